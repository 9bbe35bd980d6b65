/**
 * @module The voters' peer transport: dialling and accepting the TCP links between every pair of
 * voters on a dedicated port. Each link is mutually authenticated with the voters' did:key node
 * identities and then encrypted and integrity-protected frame by frame (peer-handshake.ts,
 * peer-frames.ts, peer-link.ts); this file decides who may connect and routes what arrives.
 *
 * Every voter listens on its own address and dials every peer. A voter sends its messages and
 * requests on its own outbound link and receives a peer's on the inbound link that peer dialed;
 * the answer to a request goes back on the link the request came in on. A dropped link is dialled
 * again with capped exponential back-off (50 ms doubling to 1 s) until `close()`. Delivery is best
 * effort (Raft tolerates loss): while a peer is not connected, or its link has more than
 * `maxBufferedBytes` queued, sends are dropped and say so.
 *
 * Limits on the port, because anyone who can reach it can connect: before authenticating, a
 * connection may send only handshake frames of at most 4 KiB, must finish within
 * `handshakeTimeoutMs`, and at most `maxPendingHandshakes` such connections are held at once
 * (more are closed on arrival). An authenticated voter has one inbound link (a newer one replaces
 * it), sends frames of at most 256 KiB, and records (a message with its attachment, such as a
 * snapshot image) of at most `maxRecordBytes`. The dialer pings every `pingIntervalMs` and drops
 * a link that has shown no sign of life for `deadAfterMs`.
 */
import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { publicKeyFromDidKey } from "../../../shared/identity/did-key.ts";
import type { KeyPair } from "../../../shared/identity/key-pair.ts";
import { kxKeyPair, randomBytes } from "./peer-crypto.ts";
import type { PeerRecord } from "./peer-frames.ts";
import { dialerHello, HANDSHAKE_NONCE_BYTES, type HandshakeFresh, type HandshakeSelf, type KnownPeer, listenerHandshake } from "./peer-handshake.ts";
import { type LinkEnd, PeerLink } from "./peer-link.ts";
import type { PeerAddress } from "../../../shared/worker/peers.ts";

/** How to start a transport; callbacks receive the sender's peer id. */
export interface PeerTransportOptions {
  /** Where to listen (port 0 picks a free one) and who we are. */
  readonly self: PeerAddress;
  /** The other voters (never self). */
  readonly peers: readonly PeerAddress[];
  /** Self's node key; `key.did` must equal `self.did`. */
  readonly key: KeyPair;
  /** A message from a peer; an attachment is the exact bytes sent (do not keep a reference you mutate). */
  readonly onMessage: (from: string, body: unknown, attachment: Uint8Array | null) => void;
  /** A peer's request; the value (or the thrown error's message) goes back to it. */
  readonly onRequest: (from: string, body: unknown) => Promise<unknown>;
  readonly log?: { info(msg: string, fields?: Record<string, unknown>): void; warn(msg: string, fields?: Record<string, unknown>): void };
  /** Once a link has this much queued, further sends to that peer are dropped; default 64 MiB. */
  readonly maxBufferedBytes?: number;
  /** The largest record an authenticated peer may send (a message with its attachment, e.g. a snapshot image); default 512 MiB. */
  readonly maxRecordBytes?: number;
  /** How long a connection may take to authenticate; default 5 s. */
  readonly handshakeTimeoutMs?: number;
  /** How many inbound connections may be authenticating at once; default 8. */
  readonly maxPendingHandshakes?: number;
  /** How often the dialer pings each open link; default 1 s. */
  readonly pingIntervalMs?: number;
  /** An outbound link with no frame received and no send progress for this long is dropped; default 10 s. */
  readonly deadAfterMs?: number;
}

/** A running transport. */
export interface PeerTransport {
  /** The bound port. */
  readonly port: number;
  /**
   * Best effort, in order per peer while its link stays up (messages and requests share the link).
   * False when dropped: unknown or unconnected peer, or its link is backed up. The attachment is
   * sealed without a copy as the link drains, so it must not change until it has gone out.
   */
  send(to: string, body: unknown, attachment?: Uint8Array): boolean;
  /** A request on our link to `to`; fails (never rejects) when not connected, on drop or on timeout. */
  request(to: string, body: unknown, timeoutMs: number): Promise<{ ok: true; value: unknown } | { ok: false; error: string }>;
  /** Peer ids with an authenticated outbound link (the ones `send` can reach). */
  connected(): readonly string[];
  /** `Date.now()` of the last frame received from that peer on either link (pings and pongs count), or null. */
  lastContact(id: string): number | null;
  /** Stops reconnecting, closes the server and every link, fails pending requests. */
  close(): Promise<void>;
}

type Answer = { ok: true; value: unknown } | { ok: false; error: string };

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 1_000;
const DEFAULT_MAX_BUFFERED = 64 * 1024 * 1024;
const DEFAULT_MAX_RECORD = 512 * 1024 * 1024;
/** A record's length travels as 32 bits. */
const RECORD_LIMIT = 0xffff_ffff;
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_PENDING = 8;
const DEFAULT_PING_INTERVAL_MS = 1_000;
const DEFAULT_DEAD_AFTER_MS = 10_000;
/** The same warning about the same party is repeated at most this often. */
const WARN_REPEAT_MS = 30_000;
/** Request ids travel as 32 bits; they wrap long after any request has timed out. */
const MAX_REQUEST_ID = 0xffff_ffff;

/** Everything about one configured peer: our outbound link to it and when we last heard from it. */
interface PeerState {
  readonly peer: PeerAddress;
  readonly known: KnownPeer;
  /** The current outbound link (connecting, authenticating or open), or null between attempts. */
  out: PeerLink | null;
  /** Whether `out` has authenticated the peer. */
  open: boolean;
  /** The failure last logged, so a peer that stays down is reported once, not every second. */
  reported: string | null;
  reportedAt: number;
  retryMs: number;
  retryTimer: ReturnType<typeof setTimeout> | null;
  readonly pending: Map<number, { resolve(answer: Answer): void; timer: ReturnType<typeof setTimeout> }>;
  nextId: number;
  /** Date.now() of the last frame on the outbound link, of the last drop in its queued bytes, and that amount. */
  outboundFrameAt: number;
  progressAt: number;
  lastQueued: number;
  /** Date.now() of the last frame from this peer on any link; 0 for never. */
  contactAt: number;
  /** The peer's current authenticated inbound link. */
  inbound: PeerLink | null;
}

/** Starts listening on `self` and dialing every peer; resolves once the port is bound. */
export async function startPeerTransport(options: PeerTransportOptions): Promise<PeerTransport> {
  const { self, key, onMessage, onRequest } = options;
  const log = options.log ?? { info() {}, warn() {} };
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
  const maxRecordBytes = Math.min(options.maxRecordBytes ?? DEFAULT_MAX_RECORD, RECORD_LIMIT);
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  const maxPending = options.maxPendingHandshakes ?? DEFAULT_MAX_PENDING;
  const pingIntervalMs = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
  const deadAfterMs = options.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS;

  if (key.did !== self.did) throw new Error(`the node key is ${key.did}, but self (${self.id}) is configured as ${self.did}`);
  const me: HandshakeSelf = { id: self.id, did: self.did, secretKey: key.secretKey };
  const byId = new Map<string, PeerState>();
  const byDid = new Map<string, PeerState>();
  const knownByDid = new Map<string, KnownPeer>();
  for (const peer of options.peers) {
    if (peer.id === self.id || peer.did === self.did) throw new Error(`peer ${peer.id} (${peer.did}) is self; list only the other voters`);
    if (byId.has(peer.id)) throw new Error(`peer id ${peer.id} is configured twice`);
    if (byDid.has(peer.did)) throw new Error(`${peer.did} is configured twice`);
    const publicKey = publicKeyFromDidKey(peer.did);
    if (!publicKey.ok) throw new Error(`peer ${peer.id}: ${publicKey.error.message}`);
    const known: KnownPeer = { id: peer.id, did: peer.did, publicKey: publicKey.value };
    const state: PeerState = {
      peer, known, out: null, open: false, reported: null, reportedAt: 0, retryMs: RETRY_MIN_MS, retryTimer: null, pending: new Map(), nextId: 1,
      outboundFrameAt: 0, progressAt: 0, lastQueued: 0, contactAt: 0, inbound: null,
    };
    byId.set(peer.id, state);
    byDid.set(peer.did, state);
    knownByDid.set(peer.did, known);
  }

  let closed = false;
  let closing: Promise<void> | null = null;
  let connectedIds: readonly string[] | null = null;
  /** Every inbound connection, and those still authenticating. */
  const inbounds = new Set<PeerLink>();
  const authenticating = new Set<PeerLink>();
  const recentWarnings = new Map<string, { msg: string; at: number }>();

  /** Warns, unless the same warning about the same party went out recently. */
  function warnAbout(party: string, msg: string, fields: Record<string, unknown>): void {
    const now = Date.now();
    const last = recentWarnings.get(party);
    if (last !== undefined && last.msg === msg && now - last.at < WARN_REPEAT_MS) return;
    if (recentWarnings.size >= 1024) recentWarnings.clear();
    recentWarnings.set(party, { msg, at: now });
    log.warn(msg, fields);
  }

  // ---- accepting -------------------------------------------------------------------------------

  const server = createServer({ noDelay: true, keepAlive: true, keepAliveInitialDelay: 5_000 }, accept);
  await listen(server, self.port, self.host);
  const port = (server.address() as AddressInfo).port;
  server.on("error", (error) => log.warn("peer transport server error", { error: error.message }));

  function accept(socket: Socket): void {
    const remote = `${socket.remoteAddress ?? "?"}:${socket.remotePort ?? "?"}`;
    if (closed) return void socket.destroy();
    if (authenticating.size >= maxPending) {
      warnAbout("pending-cap", `refused a peer connection: ${maxPending} connections are already authenticating`, { remote });
      return void socket.destroy();
    }
    const link = new PeerLink({
      socket, handshake: listenerHandshake(me, knownByDid, fresh()), hello: null, maxRecordBytes, handshakeTimeoutMs,
      onOpen: onInboundOpen, onRecord: onInboundRecord, onEnd: (l, end) => onInboundEnd(l, end, remote),
    });
    inbounds.add(link);
    authenticating.add(link);
  }

  function onInboundOpen(link: PeerLink, peer: KnownPeer): void {
    authenticating.delete(link);
    const state = byDid.get(peer.did) as PeerState;
    state.contactAt = Date.now();
    const previous = state.inbound;
    state.inbound = link;
    previous?.close("replaced by a newer link");
    log.info("peer dialed in", { peer: peer.id, did: peer.did, remote: `${link.socket.remoteAddress ?? "?"}:${link.socket.remotePort ?? "?"}` });
  }

  function onInboundRecord(link: PeerLink, record: PeerRecord): void {
    const state = byDid.get((link.peer as KnownPeer).did) as PeerState;
    state.contactAt = Date.now();
    const from = state.peer.id;
    try {
      switch (record.type) {
        case "message":
          return deliver(from, JSON.parse(record.json), record.attachment);
        case "request":
          return answer(link, from, record.id, JSON.parse(record.json));
        case "ping":
          return link.send({ type: "pong" });
        case "reply":
        case "failure":
        case "pong":
          return protocolError(link, state, `an unexpected ${record.type} on an inbound link`);
        default: {
          const never: never = record;
          throw new Error(`unknown record ${JSON.stringify(never)}`);
        }
      }
    } catch (error) {
      protocolError(link, state, `an unreadable record (${describe(error)})`);
    }
  }

  function onInboundEnd(link: PeerLink, end: LinkEnd, remote: string): void {
    inbounds.delete(link);
    authenticating.delete(link);
    const state = link.peer === null ? undefined : byDid.get(link.peer.did);
    if (state !== undefined && state.inbound === link) state.inbound = null;
    if (end.kind === "refused" && !end.byPeer) warnAbout(`in:${end.did ?? remote}`, `refused a peer connection: ${end.reason}`, { did: end.did, remote });
    if (end.kind === "protocol" && state !== undefined) reportProtocolError(state, end.reason);
  }

  function deliver(from: string, body: unknown, attachment: Uint8Array | null): void {
    try {
      onMessage(from, body, attachment);
    } catch (error) {
      log.warn("a peer message handler threw", { peer: from, error: describe(error) });
    }
  }

  function answer(link: PeerLink, from: string, id: number, body: unknown): void {
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(onRequest(from, body));
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(
      (value) => {
        let json: string;
        try {
          json = JSON.stringify(value) ?? "null";
        } catch (error) {
          return link.send({ type: "failure", id, json: JSON.stringify(`the answer could not be serialised: ${describe(error)}`) });
        }
        link.send({ type: "reply", id, json });
      },
      (error: unknown) => link.send({ type: "failure", id, json: JSON.stringify(describe(error)) }),
    );
  }

  // ---- dialing ---------------------------------------------------------------------------------

  function dial(state: PeerState): void {
    state.retryTimer = null;
    if (closed) return;
    const { host, port: peerPort } = state.peer;
    const { state: handshake, message } = dialerHello(me, state.known, fresh());
    const socket = connect({ host, port: peerPort, noDelay: true, keepAlive: true, keepAliveInitialDelay: 5_000 });
    state.open = false;
    state.out = new PeerLink({
      socket, handshake, hello: message, maxRecordBytes, handshakeTimeoutMs,
      onOpen: (link) => onOutboundOpen(state, link),
      onRecord: (link, record) => onOutboundRecord(state, link, record),
      onEnd: (link, end) => onOutboundEnd(state, link, end),
    });
  }

  function onOutboundOpen(state: PeerState, link: PeerLink): void {
    if (state.out !== link) return;
    const { peer } = state;
    const now = Date.now();
    state.open = true;
    state.retryMs = RETRY_MIN_MS;
    state.outboundFrameAt = state.progressAt = state.contactAt = now;
    state.lastQueued = 0;
    state.reported = null;
    connectedIds = null;
    log.info("peer link up", { peer: peer.id, did: peer.did, address: `${peer.host}:${peer.port}` });
  }

  function onOutboundRecord(state: PeerState, link: PeerLink, record: PeerRecord): void {
    if (state.out !== link) return;
    state.outboundFrameAt = state.contactAt = Date.now();
    if (record.type === "pong") return;
    if (record.type !== "reply" && record.type !== "failure") return protocolError(link, state, `an unexpected ${record.type} on an outbound link`);
    const pending = state.pending.get(record.id);
    if (pending === undefined) return; // answered after its timeout
    let value: unknown;
    try {
      value = JSON.parse(record.json);
    } catch (error) {
      return protocolError(link, state, `an unreadable answer (${describe(error)})`);
    }
    state.pending.delete(record.id);
    clearTimeout(pending.timer);
    pending.resolve(record.type === "reply" ? { ok: true, value } : { ok: false, error: typeof value === "string" ? value : JSON.stringify(value) });
  }

  function onOutboundEnd(state: PeerState, link: PeerLink, end: LinkEnd): void {
    if (state.out !== link) return;
    state.out = null;
    const { peer } = state;
    const why = end.kind === "refused" && end.byPeer ? `refused by the peer: ${end.reason}` : end.reason;
    failPending(state, `the link to peer ${peer.id} closed: ${why}`);
    const fields = { peer: peer.id, did: peer.did };
    if (state.open) {
      state.open = false;
      connectedIds = null;
      if (end.kind === "protocol") reportProtocolError(state, end.reason);
      log.info("peer link down", { peer: peer.id, reason: why });
    } else if (end.kind === "refused" && end.byPeer) {
      warnAbout(`out:${peer.id}`, `peer ${peer.id} refused us: ${end.reason}`, fields);
    } else if (end.kind === "refused" && end.reason !== "the handshake timed out") {
      warnAbout(`out:${peer.id}`, `refused peer ${peer.id}: ${end.reason}`, fields);
    } else if (state.reported !== why || Date.now() - state.reportedAt > WARN_REPEAT_MS) {
      state.reported = why;
      state.reportedAt = Date.now();
      log.info("peer unreachable, retrying", { peer: peer.id, address: `${peer.host}:${peer.port}`, reason: why });
    }
    if (closed) return;
    state.retryTimer = setTimeout(dial, state.retryMs, state);
    state.retryMs = Math.min(state.retryMs * 2, RETRY_MAX_MS);
  }

  function failPending(state: PeerState, error: string): void {
    if (state.pending.size === 0) return;
    const pending = [...state.pending.values()];
    state.pending.clear();
    for (const { resolve, timer } of pending) {
      clearTimeout(timer);
      resolve({ ok: false, error });
    }
  }

  function protocolError(link: PeerLink, state: PeerState, what: string): void {
    reportProtocolError(state, what);
    link.close(`protocol error: ${what}`);
  }

  function reportProtocolError(state: PeerState, what: string): void {
    warnAbout(`protocol:${state.peer.id}`, `peer ${state.peer.id} broke the link protocol: ${what}`, { peer: state.peer.id, did: state.peer.did });
  }

  /** Pings every open outbound link; drops one that has neither answered nor drained its queue for `deadAfterMs`. */
  function tick(): void {
    const now = Date.now();
    for (const state of byId.values()) {
      const link = state.out;
      if (link === null || !state.open) continue;
      const queued = link.queuedBytes;
      if (queued < state.lastQueued) state.progressAt = now;
      state.lastQueued = queued;
      if (now - Math.max(state.outboundFrameAt, state.progressAt) > deadAfterMs) {
        link.close(`no sign of life for ${deadAfterMs} ms`);
        continue;
      }
      link.send({ type: "ping" });
    }
  }

  const ticker = setInterval(tick, pingIntervalMs);
  for (const state of byId.values()) dial(state);
  log.info("peer transport listening", { id: self.id, did: self.did, address: `${self.host}:${port}`, peers: options.peers.length });

  // ---- the API ---------------------------------------------------------------------------------

  /** The open link to `to` if a record of `size` bytes may be queued on it now. */
  function sendable(to: string, size: number): PeerLink | null {
    const state = byId.get(to);
    const link = state?.out ?? null;
    if (state === undefined || !state.open || link === null || !link.open) return null;
    const queued = link.queuedBytes;
    // An empty queue takes any record, so an attachment larger than the limit still goes out.
    if (queued > 0 && queued + size > maxBuffered) return null;
    return link;
  }

  return {
    port,

    send(to, body, attachment) {
      const json = JSON.stringify(body) ?? "null";
      const link = sendable(to, json.length + 1 + (attachment?.byteLength ?? 0));
      if (link === null) return false;
      link.send({ type: "message", json, attachment: attachment ?? null });
      return true;
    },

    request(to, body, timeoutMs) {
      const state = byId.get(to);
      if (state === undefined) return Promise.resolve({ ok: false, error: `no peer ${to} is configured` });
      const json = JSON.stringify(body) ?? "null";
      const link = sendable(to, json.length + 16);
      if (link === null) return Promise.resolve({ ok: false, error: state.open ? `the link to peer ${to} is backed up` : `peer ${to} is not connected` });
      const id = state.nextId;
      state.nextId = id >= MAX_REQUEST_ID ? 1 : id + 1;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          state.pending.delete(id);
          resolve({ ok: false, error: `peer ${to} did not answer within ${timeoutMs} ms` });
        }, timeoutMs);
        state.pending.set(id, { resolve, timer });
        link.send({ type: "request", id, json });
      });
    },

    connected() {
      if (connectedIds === null) {
        const ids: string[] = [];
        for (const state of byId.values()) if (state.open) ids.push(state.peer.id);
        connectedIds = Object.freeze(ids);
      }
      return connectedIds;
    },

    lastContact(id) {
      const at = byId.get(id)?.contactAt ?? 0;
      return at === 0 ? null : at;
    },

    close() {
      closing ??= (async () => {
        closed = true;
        clearInterval(ticker);
        const ended: Promise<void>[] = [];
        for (const state of byId.values()) {
          if (state.retryTimer !== null) clearTimeout(state.retryTimer);
          state.retryTimer = null;
          const link = state.out;
          state.out = null;
          state.open = false;
          state.inbound = null;
          failPending(state, "the peer transport is closed");
          if (link !== null) ended.push(closeLink(link));
        }
        connectedIds = null;
        for (const link of inbounds) ended.push(closeLink(link));
        inbounds.clear();
        authenticating.clear();
        await Promise.all(ended);
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closing;
    },
  };
}

/** The randomness for one handshake. */
function fresh(): HandshakeFresh {
  return { ephemeral: kxKeyPair(), nonce: randomBytes(HANDSHAKE_NONCE_BYTES) };
}

/** Closes a link's socket and resolves once it has closed. */
function closeLink(link: PeerLink): Promise<void> {
  if (link.socket.closed) return Promise.resolve();
  const done = new Promise<void>((resolve) => link.socket.once("close", () => resolve()));
  link.close("the peer transport is closed");
  return done;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
