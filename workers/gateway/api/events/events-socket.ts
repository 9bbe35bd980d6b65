/**
 * @module The `/api/events` WebSocket of `charter node`: the upgrade, the open sockets and what
 * keeps them honest. Sources (the commit feed, and later other kinds) write frames to the clients;
 * this module knows nothing of what a frame means.
 *
 * At the upgrade, before anything is upgraded, a refusal is a plain HTTP answer with a problem
 * document: an `Origin` other than the node's is `403 bad-origin` (checked first, like the `/api`
 * gate; a client that sends no `Origin` is not a browser page), no live session cookie is
 * `401 unauthenticated`, a recovery sign-in is `403 limited-session`, a query a source refuses is
 * its `400`, and a node already holding `maxClients` sockets answers `503 unavailable`.
 *
 * Once open:
 * - a client more than `maxBehindBytes` behind — bytes its socket has not yet handed to the OS plus
 *   whatever a source holds for it — is closed with 4008; writes never wait, so a slow client never
 *   slows the node or another client;
 * - every `sessionCheckMs` each socket's session is looked up again (once per session, whatever
 *   the number of its sockets), and a socket whose session has ended is closed with 4001;
 *   `closeSession` closes a session's sockets at once;
 * - a ping goes out every `pingMs`, and a client that has not answered the previous one is cut off;
 * - what a client sends is ignored, and a message over 4 KiB closes it (1009);
 * - `close` (the gateway draining) closes every socket with 1001.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import { type Logger, requestLogger } from "../../../../shared/log.ts";
import { type Problem, problem } from "../../../../shared/problem.ts";
import { logAnswer } from "../../problem-response.ts";
import type { HostCheck } from "../../host-check.ts";
import type { SessionRecord } from "../account/account-store.ts";
import { clearSessionCookie, sessionTokenFrom } from "../account/sessions.ts";
import { wireFrames } from "./frames.ts";

/** The path of the socket. */
export const EVENTS_PATH = "/api/events";

/** Close codes a client may act on. */
export const CLOSE = {
  /** The node is stopping. */
  goingAway: 1001,
  /** The session ended (signed out, ended from another session, expired): sign in again. */
  sessionEnded: 4001,
  /** The client fell too far behind: reconnect with `?after=` the last id it received. */
  behind: 4008,
} as const;

const BEHIND_REASON = "too far behind; reconnect with ?after=<the last id received>";

/** The limits and periods of the socket; every one has a default. */
export interface EventSocketLimits {
  /** Open event sockets at most (2,000). */
  readonly maxClients?: number;
  /** Bytes a client may be behind before it is closed with 4008 (1 MiB). */
  readonly maxBehindBytes?: number;
  /** How often each socket's session is looked up again (10 s). */
  readonly sessionCheckMs?: number;
  /** How often a ping goes out; a client that misses one is cut off (30 s). */
  readonly pingMs?: number;
  /** The largest message a client may send (4 KiB). */
  readonly maxMessageBytes?: number;
}

export const DEFAULT_LIMITS: Required<EventSocketLimits> = { maxClients: 2000, maxBehindBytes: 1024 * 1024, sessionCheckMs: 10_000, pingMs: 30_000, maxMessageBytes: 4096 };

/** One open socket, as a source sees it. */
export interface EventClient {
  /** The session the socket was opened under. */
  readonly session: SessionRecord;
  readonly closed: boolean;
  /** Bytes the client is behind: what its socket has not handed to the OS yet, plus what sources hold for it. */
  readonly behind: number;
  /**
   * Writes whole frames (wireFrames) to the client; never waits. False when the client is closed,
   * or has just been closed for being too far behind.
   */
  send(wire: Buffer): boolean;
  /** Counts `bytes` a source keeps for the client against its limit; false (and the client closed) when over it. */
  hold(bytes: number): boolean;
  /** Stops counting `bytes` held. */
  release(bytes: number): void;
  /** Resolves once the socket has handed what it was given to the OS, or the client closed. */
  drained(): Promise<void>;
  /** Closes the client with `code`. */
  close(code: number, reason: string): void;
  /** Runs `listener` once when the client closes (at once if it is closed). */
  onClose(listener: () => void): void;
}

/** Something that writes frames to the clients. */
export interface EventSource {
  /** Checks the upgrade's query before the upgrade: a problem refuses it. */
  check(query: URLSearchParams): Problem | null;
  /** Starts feeding a client just opened. */
  open(client: EventClient, query: URLSearchParams): void;
  /** Stops (the node is stopping). */
  close(): void;
}

/** What the socket needs: the node's origin, the session a token opens now, its sources, the log. */
export interface EventSocketOptions extends EventSocketLimits {
  readonly origin: string;
  /** With no cookie (`null`) it answers the standing session while sign-in is off, else null. */
  readonly session: (token: string | null) => SessionRecord | null;
  readonly sources: readonly EventSource[];
  readonly log: Logger;
}

/** The open sockets of `/api/events`. */
export class EventSockets {
  readonly #options: EventSocketOptions;
  readonly #limits: Required<EventSocketLimits>;
  readonly #wss: WebSocketServer;
  readonly #clients = new Set<Client>();
  /** Where refusals are logged: a per-request line, which CHARTER_LOG_REQUESTS=off silences. */
  readonly #answers: Logger;
  readonly #timers: NodeJS.Timeout[];
  #closed = false;

  constructor(options: EventSocketOptions) {
    this.#options = options;
    this.#answers = requestLogger(options.log);
    this.#limits = { ...DEFAULT_LIMITS, ...definedOnly(options) };
    // No tracking (the clients are kept here), no compression (frames are sent as framed here).
    this.#wss = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: this.#limits.maxMessageBytes });
    this.#timers = [setInterval(() => this.#checkSessions(), this.#limits.sessionCheckMs), setInterval(() => this.#ping(), this.#limits.pingMs)];
    for (const t of this.#timers) t.unref();
  }

  /** Open sockets. */
  get size(): number {
    return this.#clients.size;
  }

  /**
   * Takes an `upgrade` for `/api/events` (the caller checked the host and the path): refuses it
   * with a problem, or opens the socket.
   */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    guard(socket);
    const refused = this.#admit(req);
    if ("problem" in refused) {
      refuseUpgrade(socket, refused.problem, refused.headers);
      logAnswer(this.#answers, { method: req.method ?? "", route: EVENTS_PATH, status: refused.problem.status, code: refused.problem.code });
      return;
    }
    const { session, token, query } = refused;
    // ws answers a handshake it cannot complete (a missing key, a wrong version) with a plain 400 itself.
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#open(ws, socket, session, token, query));
  }

  /** Closes, with 4001, every socket opened under session `sessionId` (signed out, ended elsewhere). */
  closeSession(sessionId: string): void {
    for (const client of this.#clients) if (client.session.id === sessionId) client.close(CLOSE.sessionEnded, "the session ended");
  }

  /** Sends one frame (frameJson) to every open client; for kinds without a backlog to replay. */
  broadcast(json: Buffer, visible: (client: EventClient) => boolean = () => true): void {
    const wire = wireFrames([json]);
    for (const client of this.#clients) if (visible(client)) client.send(wire);
  }

  /** Closes every socket with 1001 and refuses upgrades from now on. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    for (const client of this.#clients) client.close(CLOSE.goingAway, "the node is stopping");
    for (const source of this.#options.sources) source.close();
    this.#wss.close();
  }

  #admit(req: IncomingMessage): { problem: Problem; headers?: Record<string, string> } | { session: SessionRecord; token: string | null; query: URLSearchParams } {
    if (this.#closed) return { problem: problem(503, "unavailable", "the node is stopping; try again") };
    const admitted = admitUpgrade(req, { origin: this.#options.origin, what: "the event stream", session: (token) => this.#lookUp(token) });
    if ("problem" in admitted) return admitted;
    const { session, token } = admitted;
    const query = queryOf(req.url);
    for (const source of this.#options.sources) {
      const p = source.check(query);
      if (p !== null) return { problem: p };
    }
    if (this.#clients.size >= this.#limits.maxClients) return { problem: problem(503, "unavailable", `the node holds ${this.#limits.maxClients} event sockets already; try again later`) };
    return { session, token, query };
  }

  #open(ws: WebSocket, socket: Duplex, session: SessionRecord, token: string | null, query: URLSearchParams): void {
    const client = new Client(ws, socket, session, token, this.#limits.maxBehindBytes, this.#options.log);
    if (this.#closed) {
      client.close(CLOSE.goingAway, "the node is stopping");
      return;
    }
    this.#clients.add(client);
    client.onClose(() => this.#clients.delete(client));
    for (const source of this.#options.sources) {
      if (client.closed) return;
      try {
        source.open(client, query);
      } catch (error) {
        this.#options.log.error("an event source failed to open a client", { error: (error as Error).stack ?? String(error) });
        client.close(1011, "internal error");
      }
    }
  }

  /** Looks the session up once per distinct token; closes the sockets of those that ended. */
  #checkSessions(): void {
    const byToken = new Map<string | null, Client[]>();
    for (const client of this.#clients) {
      const list = byToken.get(client.token);
      if (list === undefined) byToken.set(client.token, [client]);
      else list.push(client);
    }
    for (const [token, clients] of byToken) {
      // The same session, still live: without a cookie, the standing session of sign-in off can
      // have been replaced (signed out) or be gone (sign-in on again).
      const live = this.#lookUp(token);
      for (const client of clients) if (live === null || live.id !== client.session.id) client.close(CLOSE.sessionEnded, "the session ended");
    }
  }

  #lookUp(token: string | null): SessionRecord | null {
    try {
      return this.#options.session(token);
    } catch (error) {
      this.#options.log.error("looking up an event socket's session failed", { error: (error as Error).message });
      return null;
    }
  }

  #ping(): void {
    for (const client of this.#clients) client.ping();
  }
}

/** One open socket. */
class Client implements EventClient {
  readonly session: SessionRecord;
  readonly token: string | null;
  readonly #ws: WebSocket;
  readonly #socket: Duplex;
  readonly #maxBehind: number;
  readonly #log: Logger;
  readonly #onClose = new Set<() => void>();
  #held = 0;
  #closed = false;
  #alive = true;

  constructor(ws: WebSocket, socket: Duplex, session: SessionRecord, token: string | null, maxBehind: number, log: Logger) {
    this.#ws = ws;
    this.#socket = socket;
    this.session = session;
    this.token = token;
    this.#maxBehind = maxBehind;
    this.#log = log;
    // A protocol error (an oversized or malformed message) is answered by ws with a close; nothing to add.
    ws.on("error", (error) => log.debug("event socket error", { error: error.message }));
    ws.on("pong", () => (this.#alive = true));
    ws.on("close", () => this.#ended());
  }

  get closed(): boolean {
    return this.#closed;
  }

  get behind(): number {
    return this.#socket.writableLength + this.#held;
  }

  send(wire: Buffer): boolean {
    // Closing (the client's close frame came in): nothing may follow the close frame ws answers with.
    if (this.#closed || this.#ws.readyState !== WebSocket.OPEN) return false;
    // Frames go on the socket ws writes to: whole frames, never interleaved with ws's own (its
    // writes, pings and the close, are synchronous too). What the OS takes at once is not behind.
    this.#socket.write(wire);
    if (this.behind <= this.#maxBehind) return true;
    this.close(CLOSE.behind, BEHIND_REASON);
    return false;
  }

  hold(bytes: number): boolean {
    if (this.#closed) return false;
    this.#held += bytes;
    if (this.behind <= this.#maxBehind) return true;
    this.close(CLOSE.behind, BEHIND_REASON);
    return false;
  }

  release(bytes: number): void {
    this.#held = Math.max(0, this.#held - bytes);
  }

  drained(): Promise<void> {
    const socket = this.#socket;
    if (this.#closed || !socket.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        socket.off("drain", done);
        this.#onClose.delete(done);
        resolve();
      };
      socket.on("drain", done);
      this.#onClose.add(done);
    });
  }

  close(code: number, reason: string): void {
    if (this.#closed) return;
    if (code === CLOSE.behind || code === CLOSE.sessionEnded) this.#log.info("event socket closed", { code, reason });
    try {
      // The close frame follows what is queued; ws cuts the socket off if no answer comes in time.
      this.#ws.close(code, reason);
    } catch {
      this.#ws.terminate();
    }
    this.#ended();
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#onClose.add(listener);
  }

  /** Pings; a client that did not answer the previous ping is cut off. */
  ping(): void {
    if (this.#closed) return;
    if (!this.#alive) {
      this.#ws.terminate();
      this.#ended();
      return;
    }
    this.#alive = false;
    try {
      this.#ws.ping();
    } catch {
      this.#ws.terminate();
      this.#ended();
    }
  }

  #ended(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#held = 0;
    const listeners = [...this.#onClose];
    this.#onClose.clear();
    for (const listener of listeners) listener();
  }
}

/**
 * Who may open an `/api` WebSocket (events, co-editing), checked before the upgrade as the `/api`
 * gate checks a request: an `Origin` other than the node's is `403 bad-origin` (first; a client
 * that sends none is not a browser page), no live session `401` (a cookie that no longer opens one
 * is taken away), a recovery sign-in `403 limited-session`.
 */
export function admitUpgrade(
  req: IncomingMessage,
  options: { readonly origin: string; readonly what: string; readonly session: (token: string | null) => SessionRecord | null },
): { problem: Problem; headers?: Record<string, string> } | { session: SessionRecord; token: string | null } {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== options.origin) return { problem: problem(403, "bad-origin", `${options.what} is served to pages of ${options.origin} only (their Origin header)`) };
  const token = sessionTokenFrom(req.headers.cookie);
  const session = options.session(token);
  if (session === null) {
    const headers = token === null ? undefined : { "set-cookie": clearSessionCookie(options.origin) };
    return { problem: problem(401, "unauthenticated", "sign in first: this needs a session"), ...(headers === undefined ? {} : { headers }) };
  }
  if (session.scope === "recovery") return { problem: problem(403, "limited-session", "a recovery sign-in may only add a passkey: add one, then sign in with it") };
  return { session, token };
}

/** Whether `req` asks for a WebSocket (the server's `shouldUpgradeCallback`: other upgrades stay plain requests). */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return req.headers.upgrade?.toLowerCase() === "websocket";
}

/** Whether an upgrade's target is `/api/events` (any query). */
export function isEventsTarget(url: string | undefined): boolean {
  if (url === undefined) return false;
  const path = url.startsWith("/") ? url : URL.canParse(url) ? new URL(url).pathname : "";
  const end = path.search(/[?#]/);
  return (end < 0 ? path : path.slice(0, end)) === EVENTS_PATH;
}

/** Answers an upgrade with `p` as plain HTTP and closes the connection. */
export function refuseUpgrade(socket: Duplex, p: Problem, headers: Record<string, string> = {}): void {
  guard(socket);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(p);
  const lines = [
    `HTTP/1.1 ${p.status} ${p.title}`,
    "content-type: application/problem+json",
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once("finish", () => socket.destroy());
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
}

/** What the gateway's `upgrade` listener needs. */
export interface UpgradeRouting {
  readonly isOwnHost: HostCheck;
  /** The event sockets; null while they are not started (503), absent for an edition without them (404). */
  readonly events?: () => EventSockets | null;
  /** The co-editing sockets (`/api/collab/…`); null while not started (503), absent for an edition without them (404). */
  readonly collab?: () => { upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void } | null;
  /** Where refusals are logged (the gateway's per-request logger). */
  readonly log: Logger;
}

/**
 * The gateway's `upgrade` listener: the host check first, as for every request (421), then
 * `/api/events` and `/api/collab/…` for the node edition, and 404 for any other path.
 */
export function upgradeListener(routing: UpgradeRouting): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return function onUpgrade(req, socket, head) {
    guard(socket);
    const refuse = (p: Problem) => {
      refuseUpgrade(socket, p);
      logAnswer(routing.log, { method: req.method ?? "", route: null, status: p.status, code: p.code });
    };
    try {
      if (!routing.isOwnHost(req.headers.host)) {
        return refuse(problem(421, "misdirected-request", "this node does not answer for that host name; use its IP address, localhost, or a name given with --allow-host"));
      }
      if (routing.collab !== undefined && req.url?.startsWith("/api/collab/") === true) {
        const collab = routing.collab();
        if (collab === null) return refuse(problem(503, "unavailable", "the node is starting; try again"));
        return collab.upgrade(req, socket, head);
      }
      if (routing.events === undefined || !isEventsTarget(req.url)) return refuse(problem(404, "not-found", "no WebSocket is served at this path"));
      const events = routing.events();
      if (events === null) return refuse(problem(503, "unavailable", "the node is starting; try again"));
      events.upgrade(req, socket, head);
    } catch (error) {
      routing.log.error("unhandled error in an upgrade", { error: (error as Error).stack ?? String(error) });
      if (!socket.destroyed) refuse(problem(500, "internal", "the server failed to answer this request; the failure was logged"));
    }
  };
}

/** The query of a request target. */
function queryOf(url: string | undefined): URLSearchParams {
  if (url === undefined) return new URLSearchParams();
  const q = url.indexOf("?");
  if (q < 0) return new URLSearchParams();
  const hash = url.indexOf("#", q);
  return new URLSearchParams(url.slice(q + 1, hash < 0 ? undefined : hash));
}

function definedOnly(limits: EventSocketLimits): EventSocketLimits {
  return Object.fromEntries(Object.entries(limits).filter(([key, value]) => key in DEFAULT_LIMITS && value !== undefined));
}

function ignore(): void {}

/** Gives an upgraded socket an error listener (node:http no longer listens): a reset must not crash the gateway. */
function guard(socket: Duplex): void {
  if (!socket.listeners("error").includes(ignore)) socket.on("error", ignore);
}
