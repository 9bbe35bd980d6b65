/**
 * @module The tool servers' configuration, kept in the node's settings (`DATA/accounts.db`,
 * node-settings.ts): which servers, how each runs, the person's pinned tool modes, the tools each
 * server last listed, and the day's call counts. They configure the node, they are not the
 * person's records. A server's environment and its OAuth state (client registration, tokens,
 * PKCE verifier) are kept only sealed under the key-encryption key, as connection keys are, bound
 * to the server's id and when it was added, so a sealed value moved to another server no longer
 * opens. Every value is bounded (node-settings.ts MAX_SETTING_BYTES).
 */
import { openSecret, sealSecret } from "../identity/aead.ts";
import type { NodeSettings } from "../assistant-host/node-settings.ts";
import type { ToolMode } from "../assistant-host/tool-modes.ts";
import type { ServerConfig } from "./server-config.ts";
import type { Pin, SeenTool } from "./tool-pins.ts";

/** A server as stored: its configuration, the person's pins, the hosts its authorization reaches. */
export interface StoredServer extends ServerConfig {
  readonly pins: Readonly<Record<string, Pin>>;
  /** The names of its environment's variables (the values are sealed). */
  readonly envNames: readonly string[];
  /** Hosts its OAuth authorization server is reached at (declared for egress with its URL's). */
  readonly authHosts: readonly string[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What a server last listed. */
export interface SeenList {
  readonly listedAt: number;
  readonly tools: readonly SeenTool[];
  /** Tools left out (past MAX_TOOLS, or past what a setting holds). */
  readonly dropped: number;
}

/** A server's OAuth state, as the SDK's client provider keeps it. */
export interface OAuthState {
  readonly client?: unknown;
  readonly tokens?: unknown;
  readonly verifier?: string;
  readonly discovery?: unknown;
}

/** What is kept sealed for a server. */
interface Secrets {
  readonly env: Record<string, string>;
  readonly oauth: OAuthState;
}

/** Calls counted per server and tool, for one local day. */
interface Usage {
  readonly day: number;
  readonly counts: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

const INDEX = "tool-servers";
const USAGE = "tool-servers-usage";
/** A seen list is cut to fit under this many bytes of JSON (below the settings' limit). */
const SEEN_BYTES = 200 * 1024;

export class ServerStore {
  readonly #settings: NodeSettings;
  readonly #kek: () => Buffer;
  readonly #now: () => number;

  constructor(options: { settings: NodeSettings; kek: () => Buffer; now: () => number }) {
    this.#settings = options.settings;
    this.#kek = options.kek;
    this.#now = options.now;
  }

  /** The settings the store keeps its values in. */
  get settings(): NodeSettings {
    return this.#settings;
  }

  /** Every server, in the order they were added. */
  list(): StoredServer[] {
    return serversOf(this.#settings);
  }

  get(id: string): StoredServer | null {
    return serverOf(this.#settings, id);
  }

  /** Adds `config` with its environment; the caller checked the id is free and the count below MAX_SERVERS. */
  add(config: ServerConfig, env: Record<string, string>): StoredServer {
    const now = this.#now();
    const server: StoredServer = { ...config, pins: {}, envNames: Object.keys(env).sort(), authHosts: [], createdAt: now, updatedAt: now };
    this.#settings.put(`tool-server:${config.id}`, server);
    this.#putSecrets(server, { env, oauth: {} });
    this.#settings.put(INDEX, { ids: [...idsOf(this.#settings), config.id] });
    return server;
  }

  /** Replaces a server's configuration (and its environment, when given); its pins stay. */
  update(id: string, config: ServerConfig, env?: Record<string, string>): StoredServer | null {
    const before = this.get(id);
    if (before === null) return null;
    const server: StoredServer = { ...before, ...config, id, envNames: env === undefined ? before.envNames : Object.keys(env).sort(), updatedAt: this.#now() };
    this.#settings.put(`tool-server:${id}`, server);
    if (env !== undefined) this.#putSecrets(server, { ...this.#secrets(before), env });
    return server;
  }

  /** Removes a server with everything kept for it; false when there was none. */
  remove(id: string): boolean {
    if (this.get(id) === null) return false;
    this.#settings.put(INDEX, { ids: idsOf(this.#settings).filter((x) => x !== id) });
    for (const key of [`tool-server:${id}`, `tool-server-seen:${id}`, `tool-server-secret:${id}`]) this.#settings.put(key, null);
    return true;
  }

  /** Sets modes, pinning each to the tool as `seen` describes it now. */
  pin(id: string, modes: ReadonlyMap<string, { mode: ToolMode; digest: string }>): StoredServer | null {
    const before = this.get(id);
    if (before === null) return null;
    const at = this.#now();
    const pins = { ...before.pins };
    for (const [name, { mode, digest }] of modes) pins[name] = { mode, digest, at };
    const server = { ...before, pins, updatedAt: at };
    this.#settings.put(`tool-server:${id}`, server);
    return server;
  }

  /** The hosts a server's authorization reaches, kept so they are declared again at start-up. */
  setAuthHosts(id: string, hosts: readonly string[]): void {
    const before = this.get(id);
    if (before !== null) this.#settings.put(`tool-server:${id}`, { ...before, authHosts: hosts.slice(0, 8) });
  }

  /** What the server last listed, or null. */
  seen(id: string): SeenList | null {
    return seenOf(this.#settings, id);
  }

  /** Keeps what the server listed now (cut to fit a setting), unless it is what was kept. */
  setSeen(id: string, tools: readonly SeenTool[], dropped: number): SeenList {
    const before = this.seen(id);
    const same = before !== null && before.dropped === dropped && before.tools.length === tools.length && before.tools.every((t, i) => t.name === tools[i]?.name && t.digest === tools[i]?.digest);
    if (same) return before;
    const kept = [...tools];
    let cut = dropped;
    while (kept.length > 0 && Buffer.byteLength(JSON.stringify(kept)) > SEEN_BYTES) {
      kept.pop();
      cut++;
    }
    const list: SeenList = { listedAt: this.#now(), tools: kept, dropped: cut };
    this.#settings.put(`tool-server-seen:${id}`, list);
    return list;
  }

  /** The server's environment, opened (for spawning it). */
  env(id: string): Record<string, string> {
    const server = this.get(id);
    return server === null ? {} : this.#secrets(server).env;
  }

  /** The server's OAuth state, opened. */
  oauth(id: string): OAuthState {
    const server = this.get(id);
    return server === null ? {} : this.#secrets(server).oauth;
  }

  /** Replaces the server's OAuth state. */
  setOAuth(id: string, oauth: OAuthState): void {
    const server = this.get(id);
    if (server !== null) this.#putSecrets(server, { ...this.#secrets(server), oauth });
  }

  /** Counts one call of `tool` of `server` on local day `day`, unless the server's calls that day reached `ceiling`: false then. */
  takeCall(server: string, tool: string, day: number, ceiling: number): boolean {
    const usage = usageOf(this.#settings, day);
    const mine = usage.counts[server] ?? {};
    if (total(mine) >= ceiling) return false;
    const counts = { ...usage.counts, [server]: { ...mine, [tool]: (mine[tool] ?? 0) + 1 } };
    this.#settings.put(USAGE, { day, counts });
    return true;
  }

  #secrets(server: StoredServer): Secrets {
    const stored = this.#settings.get<{ nonce?: unknown; ciphertext?: unknown } | null>(`tool-server-secret:${server.id}`, null);
    if (stored === null || typeof stored.nonce !== "string" || typeof stored.ciphertext !== "string") return { env: {}, oauth: {} };
    const opened = openSecret({ nonce: Buffer.from(stored.nonce, "base64"), ciphertext: Buffer.from(stored.ciphertext, "base64") }, this.#kek(), boundTo(server));
    if (opened === null) throw new Error(`the secrets of tool server ${JSON.stringify(server.id)} cannot be opened with DATA/keys/account-kek (another key, or an altered value)`);
    const value = JSON.parse(opened.toString("utf8")) as Partial<Secrets>;
    return { env: value.env ?? {}, oauth: value.oauth ?? {} };
  }

  #putSecrets(server: StoredServer, secrets: Secrets): void {
    const sealed = sealSecret(Buffer.from(JSON.stringify(secrets), "utf8"), this.#kek(), boundTo(server));
    this.#settings.put(`tool-server-secret:${server.id}`, { nonce: Buffer.from(sealed.nonce).toString("base64"), ciphertext: Buffer.from(sealed.ciphertext).toString("base64") });
  }
}

/** Every stored server (read straight from the settings: the assistant's catalogue reads them so). */
export function serversOf(settings: NodeSettings): StoredServer[] {
  return idsOf(settings).flatMap((id) => serverOf(settings, id) ?? []);
}

export function serverOf(settings: NodeSettings, id: string): StoredServer | null {
  return settings.get<StoredServer | null>(`tool-server:${id}`, null);
}

export function seenOf(settings: NodeSettings, id: string): SeenList | null {
  return settings.get<SeenList | null>(`tool-server-seen:${id}`, null);
}

/** Each server's calls on local day `day`, by tool. */
export function callsOn(settings: NodeSettings, day: number): Readonly<Record<string, Readonly<Record<string, number>>>> {
  return usageOf(settings, day).counts;
}

/** The sum of a server's counts. */
export function total(counts: Readonly<Record<string, number>>): number {
  let sum = 0;
  for (const n of Object.values(counts)) sum += n;
  return sum;
}

function usageOf(settings: NodeSettings, day: number): Usage {
  const usage = settings.get<Usage | null>(USAGE, null);
  // Another day's counts are over: the ceiling is per day.
  return usage !== null && usage.day === day ? usage : { day, counts: {} };
}

function idsOf(settings: NodeSettings): string[] {
  const index = settings.get<{ ids?: unknown } | null>(INDEX, null);
  return Array.isArray(index?.ids) ? index.ids.filter((x): x is string => typeof x === "string") : [];
}

/** What a server's sealed values are bound to: its id and the moment it was added. */
function boundTo(server: Pick<StoredServer, "id" | "createdAt">): Buffer {
  return Buffer.from(JSON.stringify(["charter.tool-server", server.id, server.createdAt]), "utf8");
}
