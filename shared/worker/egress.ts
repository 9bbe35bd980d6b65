/**
 * @module The egress guard of the personal node's workers: a TCP connection may only go to a host
 * something configured declared (a connector's hosts, a model connection's base URL, a tool
 * server's URL). The declared hosts are the union the gateway keeps in `DATA/run/egress.json`
 * (workers/gateway/api/connectors/egress-list.ts); every worker process of `charter node` installs
 * this guard at start. It sits under every client in the process — `net`, `tls`, `http`, `https`
 * and `fetch` all connect through `net.Socket.prototype.connect` — so no library can go around it.
 * A refused connection fails like an unreachable host (its socket errors with code
 * `EGRESS_REFUSED`) and is logged. Unix-socket connections (the workers' own channels) are never
 * affected. The file is read again when a host is not found in it and the file changed since it was
 * last read, so a host declared a moment ago is reachable at once.
 */
import { lookup } from "node:dns/promises";
import { readFileSync, statSync } from "node:fs";
import { isIP, Socket } from "node:net";
import type { Logger } from "../log.ts";

/** What the file holds: `{hosts: ["example.com", "127.0.0.1:11434", …]}`. */
export interface EgressFile {
  readonly hosts: readonly string[];
}

/** A connection attempt the guard refused. */
export class EgressRefusedError extends Error {
  readonly code = "EGRESS_REFUSED";
  readonly host: string;
  readonly port: number;
  constructor(host: string, port: number) {
    super(`connection to ${host}:${port} refused: no connector, connection or tool server of this node declares that host`);
    this.name = "EgressRefusedError";
    this.host = host;
    this.port = port;
  }
}

/** `host` as declarations and connections are compared: lower case, no brackets, no trailing dot. */
export function normalHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  return h;
}

/** Splits a declaration `host` or `host:port` (`[v6]:port` for IPv6 with a port) into its parts; null when malformed. */
export function parseDeclaration(entry: string): { host: string; port: number | null } | null {
  const text = entry.trim();
  if (text === "" || text.length > 260) return null;
  const v6 = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (v6 !== null) return isIP(v6[1]!) === 6 ? { host: normalHost(v6[1]!), port: v6[2] === undefined ? null : portOf(v6[2]) } : null;
  if (isIP(text) === 6) return { host: normalHost(text), port: null };
  const at = text.lastIndexOf(":");
  const host = at < 0 ? text : text.slice(0, at);
  const port = at < 0 ? null : portOf(text.slice(at + 1));
  if (at >= 0 && port === null) return null;
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?\.?$/i.test(host)) return null;
  return { host: normalHost(host), port };
}

function portOf(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** The declared hosts, as the guard looks them up: host → the ports allowed (null: any). */
export class EgressPolicy {
  readonly #hosts = new Map<string, Set<number> | null>();

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const parsed = parseDeclaration(entry);
      if (parsed === null) continue;
      const ports = this.#hosts.get(parsed.host);
      if (parsed.port === null || ports === null) this.#hosts.set(parsed.host, null);
      else this.#hosts.set(parsed.host, (ports ?? new Set<number>()).add(parsed.port));
    }
  }

  allows(host: string, port: number): boolean {
    const ports = this.#hosts.get(normalHost(host));
    if (ports === undefined) return false;
    return ports === null || ports.has(port);
  }

  /** The declared host names (not IP literals) that allow `port`. */
  namesFor(port: number): string[] {
    const names: string[] = [];
    for (const [host, ports] of this.#hosts) if (isIP(host) === 0 && (ports === null || ports.has(port))) names.push(host);
    return names;
  }

  get size(): number {
    return this.#hosts.size;
  }
}

/** Reads the policy from `file`, plus `always`; only `always` when the file is missing or unreadable. */
export function readEgressFile(file: string, always: readonly string[] = []): EgressPolicy {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<EgressFile> | null;
    const hosts = Array.isArray(parsed?.hosts) ? parsed.hosts.filter((h): h is string => typeof h === "string") : [];
    return new EgressPolicy([...always, ...hosts]);
  } catch {
    return new EgressPolicy(always);
  }
}

interface Target {
  path?: string;
  host: string;
  port: number;
}

/** Where a `Socket#connect` call goes, from any of its argument shapes. */
function targetOf(args: unknown[]): Target | null {
  // net.connect() and tls.connect() call socket.connect with their normalized [options, callback].
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === "string" && !/^\d+$/.test(first)) return { path: first, host: "", port: 0 };
  if (typeof first === "number" || typeof first === "string") {
    return { host: typeof args[1] === "string" ? args[1] : "localhost", port: Number(first) };
  }
  if (first !== null && typeof first === "object") {
    const options = first as { path?: unknown; host?: unknown; port?: unknown };
    if (typeof options.path === "string") return { path: options.path, host: "", port: 0 };
    return { host: typeof options.host === "string" && options.host !== "" ? options.host : "localhost", port: Number(options.port) };
  }
  return null;
}

let installed: { file: string; policy: EgressPolicy; mtimeMs: number; log: Logger | null; always: readonly string[] } | null = null;

/**
 * Installs the guard in this process, reading what is declared from `file`; `always` is declared
 * besides, whatever the file says. Idempotent: a second call only changes the file, logger and
 * `always`.
 */
export function installEgressGuard(file: string, log: Logger | null = null, always: readonly string[] = []): void {
  const state = { file, policy: readEgressFile(file, always), mtimeMs: mtimeOf(file), log, always };
  if (installed !== null) {
    installed = state;
    return;
  }
  installed = state;
  const connect = Socket.prototype.connect as (this: Socket, ...args: unknown[]) => Socket;
  Socket.prototype.connect = function guardedConnect(this: Socket, ...args: unknown[]): Socket {
    const target = targetOf(args);
    if (target === null || target.path !== undefined || egressAllowed(target.host, target.port)) return connect.apply(this, args);
    const refuse = () => {
      installed?.log?.warn("egress refused", { host: target.host, port: target.port });
      this.destroy(new EgressRefusedError(target.host, target.port));
    };
    // A client that resolves a declared name itself (nodemailer does) connects to an address: it
    // is let through when a declared name resolves to it here too.
    const names = isIP(normalHost(target.host)) === 0 ? [] : (installed?.policy.namesFor(target.port) ?? []);
    if (names.length === 0) {
      process.nextTick(refuse);
      return this;
    }
    void resolvesTo(names, normalHost(target.host)).then((found) => {
      if (this.destroyed) return;
      if (found) connect.apply(this, args);
      else refuse();
    });
    return this;
  } as typeof Socket.prototype.connect;
}

/** Whether this process's guard lets a connection to `host:port` through (true when no guard is installed). */
export function egressAllowed(host: string, port: number): boolean {
  const state = installed;
  if (state === null) return true;
  if (state.policy.allows(host, port)) return true;
  const mtimeMs = mtimeOf(state.file);
  if (mtimeMs === state.mtimeMs) return false;
  state.policy = readEgressFile(state.file, state.always);
  state.mtimeMs = mtimeMs;
  return state.policy.allows(host, port);
}

/** Resolved addresses of declared names, kept a minute. */
const resolved = new Map<string, { addresses: Set<string>; until: number }>();
const RESOLVED_TTL_MS = 60_000;

/** Whether any of `names` resolves to `address` (each name looked up at most once a minute). */
async function resolvesTo(names: readonly string[], address: string): Promise<boolean> {
  const now = Date.now();
  for (const name of names.slice(0, 64)) {
    let entry = resolved.get(name);
    if (entry === undefined || entry.until < now) {
      const addresses = await lookup(name, { all: true }).then(
        (list) => new Set(list.map((a) => normalHost(a.address))),
        () => new Set<string>(),
      );
      entry = { addresses, until: now + RESOLVED_TTL_MS };
      resolved.set(name, entry);
    }
    if (entry.addresses.has(address)) return true;
  }
  return false;
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}
