/**
 * @module The tool servers at run time, in the gateway: a server is started (a stdio process) or
 * connected (streamable HTTP) when something needs it — listing its tools, a call — and stays up
 * until the node stops or its configuration changes. A server that exits is started again on the
 * next use, after a back-off that grows with each failure (1 s, 2 s, … at most a minute). Every
 * request is bounded in time (start, list, call) and every answer in size; a call past the
 * server's daily ceiling is not made, and says why. HTTP servers' hosts, and the hosts their
 * OAuth authorization reaches, are declared for the node's egress guard before they are reached.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import type { Logger } from "../../../../shared/log.ts";
import { OAUTH_RETURN_PATH } from "../../app-page/app-page.ts";
import { frameJson } from "../events/frames.ts";
import { localDay } from "../time-zone.ts";
import { hostOfUrl } from "../connectors/egress-list.ts";
import { ProcessTransport } from "./process-transport.ts";
import { ProcessLedger } from "./process-ledger.ts";
import { type ServerStore, type SeenList, type StoredServer } from "./server-store.ts";
import { seenTools, MAX_TOOLS } from "./tool-pins.ts";
import { resultText } from "./tool-result.ts";
import { ServerOAuth } from "./server-oauth.ts";
import { boundedFetch } from "./bounded-fetch.ts";

/** How long starting a server (spawn and initialize), listing its tools, and one call may take. */
export const START_MS = 20_000;
export const LIST_MS = 15_000;
export const CALL_MS = 60_000;
/** Pages of a tool listing read at most. */
const LIST_PAGES = 10;
const MAX_BACKOFF_MS = 60_000;

/** The egress source tool servers declare their hosts under. */
export const EGRESS_SOURCE = "tool-servers";

/** Why a server could not be used now. */
export class ServerUnavailable extends Error {
  readonly kind: "failed" | "unauthorized" | "waiting" | "gone";
  constructor(kind: ServerUnavailable["kind"], message: string) {
    super(message);
    this.kind = kind;
    this.name = "ServerUnavailable";
  }
}

/** What came of a call, for the model. */
export interface CallOutcome {
  readonly content: string;
  readonly isError: boolean;
  /** Why the call was not made at all (the ceiling), when it was not. */
  readonly refused?: "ceiling";
}

/** A server's state as the settings show it. */
export interface ServerStatus {
  readonly running: boolean;
  readonly pid: number | null;
  readonly startedAt: string | null;
  readonly restarts: number;
  readonly lastError: string | null;
  /** While a failed server waits before it is started again: when it may be. */
  readonly retryAt: string | null;
}

export interface ToolServersDeps {
  readonly store: ServerStore;
  readonly egress: { declare(source: string, hosts: readonly string[]): void } | null;
  readonly log: Logger;
  readonly now: () => number;
  readonly timeZone: () => string;
  /** Where stdio servers run (each in `<dir>/<id>`). */
  readonly dir: string;
  /** The node's origin: OAuth comes back to it. */
  readonly origin: string;
  readonly version: string;
  /** Sends an `/api/events` frame. */
  readonly broadcast: (json: Buffer) => void;
  /** Where running stdio servers are written down, so a gateway that crashed leaves none (process-ledger.ts); absent: not written. */
  readonly ledgerFile?: string;
  /** How long starting, listing and calling may take (START_MS, LIST_MS, CALL_MS when absent). */
  readonly timeouts?: { readonly startMs: number; readonly listMs: number; readonly callMs: number };
}

interface Running {
  readonly client: Client;
  readonly transport: ProcessTransport | StreamableHTTPClientTransport;
  readonly startedAt: number;
}

interface Health {
  failures: number;
  retryAt: number;
  lastError: string | null;
  restarts: number;
}

/** Whether `url` names this machine (`localhost`, 127.0.0.0/8, `::1`). */
function isLoopbackUrl(url: string): boolean {
  const host = URL.canParse(url) ? new URL(url).hostname : "";
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The SDK checks a tool's structured output against its output schema; the node does not compile a server's schemas (untrusted), and gives the model text. */
const ACCEPT_ALL: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

const runtimes = new WeakMap<object, ToolServers>();

/** The tool servers that run with `settings` (the node's), or null where none do. */
export function toolServersOf(settings: object): ToolServers | null {
  return runtimes.get(settings) ?? null;
}

export class ToolServers {
  readonly #deps: ToolServersDeps;
  readonly #running = new Map<string, Running>();
  readonly #starting = new Map<string, Promise<Running>>();
  readonly #health = new Map<string, Health>();
  readonly #timeouts: NonNullable<ToolServersDeps["timeouts"]>;
  readonly #ledger: ProcessLedger | null;
  #frames = 0;
  #closed = false;

  constructor(deps: ToolServersDeps) {
    this.#deps = deps;
    this.#timeouts = deps.timeouts ?? { startMs: START_MS, listMs: LIST_MS, callMs: CALL_MS };
    // Servers an earlier gateway left running (it was killed) go before any of this one's start.
    this.#ledger = deps.ledgerFile === undefined ? null : new ProcessLedger(deps.ledgerFile, deps.log);
    this.#ledger?.sweep();
    // The assistant's tool calls find the servers by the settings they share (tool-calls.ts).
    runtimes.set(deps.store.settings, this);
    this.declareHosts();
  }

  get store(): ServerStore {
    return this.#deps.store;
  }

  /** Declares every HTTP server's host, and the hosts their authorization reaches, for egress (replacing what was declared). */
  declareHosts(): void {
    const hosts = this.#deps.store.list().flatMap((s) => {
      const own = s.url === null ? null : hostOfUrl(s.url);
      return [...(own === null ? [] : [own]), ...s.authHosts];
    });
    this.#deps.egress?.declare(EGRESS_SOURCE, [...new Set(hosts)]);
  }

  status(id: string): ServerStatus {
    const running = this.#running.get(id);
    const health = this.#health.get(id);
    const pid = running?.transport instanceof ProcessTransport ? running.transport.pid : null;
    const waiting = health !== undefined && health.retryAt > this.#deps.now();
    return {
      running: running !== undefined,
      pid,
      startedAt: running === undefined ? null : new Date(running.startedAt).toISOString(),
      restarts: health?.restarts ?? 0,
      lastError: health?.lastError ?? null,
      retryAt: waiting ? new Date(health.retryAt).toISOString() : null,
    };
  }

  /** Lists the server's tools now (starting it if needed) and keeps what it listed. */
  async list(id: string): Promise<SeenList> {
    const running = await this.#connect(id);
    const listed: unknown[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < LIST_PAGES && listed.length <= MAX_TOOLS; page++) {
        const answer = await running.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.#timeouts.listMs, maxTotalTimeout: this.#timeouts.listMs });
        listed.push(...answer.tools);
        cursor = answer.nextCursor;
        if (cursor === undefined) break;
      }
    } catch (error) {
      throw this.#unavailable(id, error, "listing its tools");
    }
    const { tools, dropped } = seenTools(listed);
    return this.#deps.store.setSeen(id, tools, dropped);
  }

  /**
   * Calls `tool` with `args`, once the server is up and the day's ceiling allows it (the call is
   * counted then); `before` runs just before the call is sent (an approved call records that it
   * was carried out). Never throws: whatever fails is the model's error result.
   */
  async call(id: string, tool: string, args: Record<string, unknown>, before?: () => Promise<void>): Promise<CallOutcome> {
    const server = this.#deps.store.get(id);
    if (server === null) return { content: `There is no tool server ${JSON.stringify(id)} any more.`, isError: true };
    let running: Running;
    try {
      running = await this.#connect(id);
    } catch (error) {
      return { content: this.#unavailable(id, error, "starting it").message, isError: true };
    }
    const zone = this.#deps.timeZone();
    if (!this.#deps.store.takeCall(id, tool, localDay(this.#deps.now(), zone), server.ceiling)) {
      this.#frame({ server: id, event: "ceiling", tool, ceiling: server.ceiling });
      this.#deps.log.warn("tool server ceiling reached: call refused", { server: id, tool, ceiling: server.ceiling });
      const content = `Not called: the tool server "${server.name}" has reached its ceiling of ${server.ceiling} calls today. Its calls are counted again from midnight (${zone}); the person can raise the ceiling in the settings.`;
      return { content, isError: true, refused: "ceiling" };
    }
    await before?.();
    try {
      const result = await running.client.callTool({ name: tool, arguments: args }, undefined, { timeout: this.#timeouts.callMs, maxTotalTimeout: this.#timeouts.callMs });
      return { content: resultText(result), isError: result.isError === true };
    } catch (error) {
      return { content: `The tool server "${server.name}" failed on ${tool}: ${this.#unavailable(id, error, "the call").message}`, isError: true };
    }
  }

  /** Stops a server (its configuration changed, or it was removed); the next use starts it again, at once. */
  stop(id: string): void {
    const running = this.#running.get(id);
    this.#running.delete(id);
    this.#health.delete(id);
    if (running !== undefined) void this.#closeTransport(running);
  }

  /** Stops every server now (the node stopping): stdio groups get SIGTERM at once, SIGKILL if they linger. */
  close(): void {
    this.#closed = true;
    for (const [id] of this.#running) this.stop(id);
  }

  /** An OAuth client for server `id`, as the settings' authorization (with its `state`) and the HTTP transport use it. */
  oauthOf(server: StoredServer, state?: string): ServerOAuth {
    return new ServerOAuth({ store: this.#deps.store, server: server.id, redirectUrl: `${this.#deps.origin}${OAUTH_RETURN_PATH}`, ...(state === undefined ? {} : { state }) });
  }

  /**
   * The fetch a server's HTTP and OAuth requests go through: bounded answers, and a host its
   * authorization names declared for egress first — only over HTTPS (or on loopback), as OAuth 2.1
   * asks of an authorization server, and at most 8 a server.
   */
  fetchOf(server: StoredServer): typeof fetch {
    const own = server.url === null ? null : hostOfUrl(server.url);
    return boundedFetch((url) => {
      const host = hostOfUrl(url);
      if (host === null || host === own || !(url.startsWith("https:") || isLoopbackUrl(url))) return;
      const current = this.#deps.store.get(server.id);
      if (current === null || current.authHosts.includes(host) || current.authHosts.length >= 8) return;
      this.#deps.store.setAuthHosts(server.id, [...current.authHosts, host]);
      this.declareHosts();
    });
  }

  async #connect(id: string): Promise<Running> {
    if (this.#closed) throw new ServerUnavailable("gone", "the node is stopping");
    const running = this.#running.get(id);
    if (running !== undefined) return running;
    const starting = this.#starting.get(id);
    if (starting !== undefined) return starting;
    const server = this.#deps.store.get(id);
    if (server === null) throw new ServerUnavailable("gone", `there is no tool server ${JSON.stringify(id)}`);
    const health = this.#health.get(id);
    const now = this.#deps.now();
    if (health !== undefined && health.retryAt > now) {
      throw new ServerUnavailable("waiting", `it failed (${health.lastError ?? "no reason"}) and is started again in ${Math.ceil((health.retryAt - now) / 1000)} s`);
    }
    const started = this.#start(server).finally(() => this.#starting.delete(id));
    this.#starting.set(id, started);
    return started;
  }

  async #start(server: StoredServer): Promise<Running> {
    const { id } = server;
    const client = new Client({ name: "charter-node", version: this.#deps.version }, { capabilities: {}, jsonSchemaValidator: ACCEPT_ALL });
    let transport: ProcessTransport | StreamableHTTPClientTransport;
    if (server.transport === "stdio") {
      const cwd = join(this.#deps.dir, id);
      mkdirSync(cwd, { recursive: true, mode: 0o700 });
      const child: ProcessTransport = new ProcessTransport({ server: id, argv: server.command ?? [], env: this.#deps.store.env(id), cwd, log: this.#deps.log, onExit: (how) => this.#exited(id, child, how), ...(this.#ledger === null ? {} : { ledger: this.#ledger }) });
      transport = child;
    } else {
      transport = new StreamableHTTPClientTransport(new URL(server.url ?? ""), { authProvider: this.oauthOf(server), fetch: this.fetchOf(server) });
    }
    try {
      await client.connect(transport, { timeout: this.#timeouts.startMs, maxTotalTimeout: this.#timeouts.startMs });
    } catch (error) {
      void this.#closeTransport({ client, transport, startedAt: 0 });
      throw this.#unavailable(id, error, "starting it", true);
    }
    const running: Running = { client, transport, startedAt: this.#deps.now() };
    if (this.#closed) {
      void this.#closeTransport(running);
      throw new ServerUnavailable("gone", "the node is stopping");
    }
    client.onerror = (error) => this.#deps.log.warn("tool server error", { server: id, error: String(error).slice(0, 300) });
    client.onclose = () => {
      if (this.#running.get(id) === running) this.#running.delete(id);
    };
    this.#running.set(id, running);
    const health = this.#health.get(id);
    if (health !== undefined) health.failures = 0;
    this.#deps.log.info("tool server started", { server: id, transport: server.transport, ...(transport instanceof ProcessTransport ? { pid: transport.pid } : {}) });
    return running;
  }

  /** A stdio server's process ended: one the node did not stop is a failure, started again after a back-off. */
  #exited(id: string, transport: ProcessTransport, how: string): void {
    const running = this.#running.get(id);
    const ours = running?.transport === transport;
    if (ours) this.#running.delete(id);
    if (!ours || this.#closed) return;
    this.#failed(id, `the process ${how}`);
    this.#deps.log.warn("tool server exited", { server: id, how });
    this.#frame({ server: id, event: "exited", how });
  }

  #failed(id: string, reason: string): void {
    const health = this.#health.get(id) ?? { failures: 0, retryAt: 0, lastError: null, restarts: 0 };
    health.failures += 1;
    health.restarts += 1;
    health.lastError = reason.slice(0, 300);
    health.retryAt = this.#deps.now() + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(health.failures - 1, 10));
    this.#health.set(id, health);
  }

  /** `error` as a ServerUnavailable; a failure to start counts for the back-off. */
  #unavailable(id: string, error: unknown, doing: string, starting = false): ServerUnavailable {
    if (error instanceof ServerUnavailable) return error;
    if (error instanceof UnauthorizedError) return new ServerUnavailable("unauthorized", "the server needs the person to authorize the node first (in the settings of tool servers)");
    const message = `${doing} failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500);
    if (starting) this.#failed(id, message);
    return new ServerUnavailable("failed", message);
  }

  async #closeTransport(running: Running): Promise<void> {
    try {
      if (running.transport instanceof ProcessTransport) running.transport.stop();
      await running.client.close();
    } catch (error) {
      this.#deps.log.warn("tool server did not close cleanly", { error: String(error) });
    }
  }

  #frame(fields: Record<string, unknown>): void {
    this.#frames += 1;
    this.#deps.broadcast(frameJson("tool-server", `tool-server-${this.#frames}`, fields));
  }
}
