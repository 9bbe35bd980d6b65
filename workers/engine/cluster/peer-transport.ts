/**
 * @module The voters' peer transport: WebSocket links (`ws`, on a plain `http` server) between
 * every pair of voters on a dedicated TCP port, each link mutually authenticated with the voters'
 * did:key node identities before any message is accepted.
 *
 * Every voter listens on its own address and dials every peer. A voter sends its messages and
 * requests on its own outbound link and receives a peer's on the inbound link that peer dialed;
 * the answer to a request goes back on the link the request came in on. A dropped link is dialled
 * again with capped exponential back-off (50 ms doubling to 1 s) until `close()`. Delivery is best
 * effort (Raft tolerates loss): while a peer is not connected, or its link has more than
 * `maxBufferedBytes` queued, sends are dropped and say so.
 *
 * Handshake (each frame a text frame `H` + JSON, all within `handshakeTimeoutMs`):
 *   1. server → dialer `{id, did, nonce}`: who the server is and a fresh 32-byte challenge;
 *   2. dialer → server `{id, did, nonce, sig}`: the dialer's signature over
 *      `binding("dialer", server's nonce, dialer did, server did)` and its own challenge;
 *   3. server → dialer `{sig}`: the server's signature over
 *      `binding("server", dialer's nonce, dialer did, server did)`.
 * The server accepts only a dialer whose id and did are a configured peer's, and signs only for
 * such a dialer; the dialer accepts only the did it meant to reach. Anything else closes the link
 * (close code 4001 from the server) with a warning naming the did. The links authenticate their
 * ends; they are not encrypted, so the port belongs on a private network.
 *
 * Framing after the handshake: every text frame starts with a one-byte tag.
 *   `M` + JSON body                a message;
 *   `A` + JSON body                a message whose attachment is the next frame, a binary frame;
 *   `Q` + id + ` ` + JSON body     a request (id: a decimal integer, unique per dialer link);
 *   `R` + id + ` ` + JSON value    its answer; `E` + id + ` ` + JSON string: its failure.
 * Bodies are JSON-serialised once; an attachment goes out as its own frame without being copied
 * (client frames use an all-zero mask, which `ws` writes without masking the payload); the frames
 * a link sends in one tick are written to its socket together. The dialer pings every
 * `pingIntervalMs` and drops a link that has shown no sign of life for `deadAfterMs`.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { base64urlDecode, base64urlEncode } from "../../../shared/identity/base64url.ts";
import { publicKeyFromDidKey } from "../../../shared/identity/did-key.ts";
import type { KeyPair } from "../../../shared/identity/key-pair.ts";
import { clip, type PeerAddress } from "./peers.ts";
import { ed25519Sign, ed25519Verify, SIGNATURE_BYTES } from "../../../shared/identity/sodium.ts";

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
  /** The largest frame accepted (an attachment is one frame); default 512 MiB. */
  readonly maxPayloadBytes?: number;
  /** How long a connection may take to authenticate; default 5 s. */
  readonly handshakeTimeoutMs?: number;
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
   * sent without copying, so it must not change until it has gone out.
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

/** The WebSocket path; `ws` answers 400 to any other. */
const LINK_PATH = "/charter/peer/v1";
/** Part of every signed handshake string, so these signatures mean nothing anywhere else. */
const CONTEXT = "charter-peer-link/v1";
const NONCE_BYTES = 32;
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 1_000;
const DEFAULT_MAX_BUFFERED = 64 * 1024 * 1024;
const DEFAULT_MAX_PAYLOAD = 512 * 1024 * 1024;
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 5_000;
const DEFAULT_PING_INTERVAL_MS = 1_000;
const DEFAULT_DEAD_AFTER_MS = 10_000;
/** The same warning about the same party is repeated at most this often. */
const WARN_REPEAT_MS = 30_000;

// The first byte of a text frame.
const TAG_HANDSHAKE = 0x48; // H
const TAG_MESSAGE = 0x4d; //   M
const TAG_ATTACHED = 0x41; //  A
const TAG_REQUEST = 0x51; //   Q
const TAG_REPLY = 0x52; //     R
const TAG_ERROR = 0x45; //     E
const SPACE = 0x20;

/** Close code the server uses when it refuses a dialer. */
const CLOSE_REFUSED = 4001;
/** Close code for a peer that broke the framing rules. */
const CLOSE_PROTOCOL = 4002;
/** Close code for an inbound link superseded by a newer one from the same peer. */
const CLOSE_REPLACED = 4003;

/** Everything about one configured peer: our outbound link to it and when we last heard from it. */
interface PeerState {
  readonly peer: PeerAddress;
  readonly publicKey: Uint8Array;
  /** The current outbound socket (connecting, authenticating or open), or null between attempts. */
  ws: WebSocket | null;
  /** The TCP socket under `ws`, once upgraded; frames sent in one tick are written together. */
  socket: Socket | null;
  corked: boolean;
  /** Whether `ws` has authenticated the server. */
  open: boolean;
  /** Our challenge to the server on the current attempt ("" until the server's challenge arrived). */
  nonce: string;
  /** Why the current attempt failed, for the log, and whether a warning already said so. */
  why: string | null;
  warned: boolean;
  /** The failure last logged, so a peer that stays down is reported once, not every second. */
  reported: string | null;
  reportedAt: number;
  retryMs: number;
  retryTimer: ReturnType<typeof setTimeout> | null;
  handshakeTimer: ReturnType<typeof setTimeout> | null;
  readonly pending: Map<number, { resolve(answer: Answer): void; timer: ReturnType<typeof setTimeout> }>;
  nextId: number;
  /** Date.now() of the last frame on the outbound link, of the last drop in its queued bytes, and that amount. */
  outboundFrameAt: number;
  progressAt: number;
  lastBuffered: number;
  /** Date.now() of the last frame from this peer on any link; 0 for never. */
  contactAt: number;
  /** The peer's current authenticated inbound link. */
  inbound: Inbound | null;
}

/** A connection a peer dialed to us. */
interface Inbound {
  readonly ws: WebSocket;
  readonly socket: Socket;
  corked: boolean;
  readonly remote: string;
  readonly nonce: string;
  /** Set once the dialer has proven to be this peer. */
  state: PeerState | null;
  timer: ReturnType<typeof setTimeout> | null;
  /** An `A` frame's body, waiting for its attachment. */
  attached: unknown;
  awaitingAttachment: boolean;
}

/** Starts listening on `self` and dialing every peer; resolves once the port is bound. */
export async function startPeerTransport(options: PeerTransportOptions): Promise<PeerTransport> {
  const { self, key, onMessage, onRequest } = options;
  const log = options.log ?? { info() {}, warn() {} };
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
  const maxPayload = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD;
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  const pingIntervalMs = options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
  const deadAfterMs = options.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS;

  if (key.did !== self.did) throw new Error(`the node key is ${key.did}, but self (${self.id}) is configured as ${self.did}`);
  const byId = new Map<string, PeerState>();
  const byDid = new Map<string, PeerState>();
  for (const peer of options.peers) {
    if (peer.id === self.id || peer.did === self.did) throw new Error(`peer ${peer.id} (${peer.did}) is self; list only the other voters`);
    if (byId.has(peer.id)) throw new Error(`peer id ${peer.id} is configured twice`);
    if (byDid.has(peer.did)) throw new Error(`${peer.did} is configured twice`);
    const publicKey = publicKeyFromDidKey(peer.did);
    if (!publicKey.ok) throw new Error(`peer ${peer.id}: ${publicKey.error.message}`);
    const state: PeerState = {
      peer, publicKey: publicKey.value, ws: null, socket: null, corked: false, open: false, nonce: "", why: null, warned: false, reported: null, reportedAt: 0,
      retryMs: RETRY_MIN_MS, retryTimer: null, handshakeTimer: null, pending: new Map(), nextId: 1,
      outboundFrameAt: 0, progressAt: 0, lastBuffered: 0, contactAt: 0, inbound: null,
    };
    byId.set(peer.id, state);
    byDid.set(peer.did, state);
  }

  let closed = false;
  let closing: Promise<void> | null = null;
  let connectedIds: readonly string[] | null = null;
  const inbounds = new Set<Inbound>();
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

  // ---- listening -------------------------------------------------------------------------------

  const httpServer = createServer({ noDelay: true }, (_request, response) => {
    response.writeHead(426, { "content-type": "text/plain" }).end("this is a Charter peer port\n");
  });
  await listen(httpServer, self.port, self.host);
  const port = (httpServer.address() as AddressInfo).port;
  const wss = new WebSocketServer({ server: httpServer, path: LINK_PATH, perMessageDeflate: false, maxPayload, skipUTF8Validation: true, clientTracking: false });
  wss.on("error", (error) => log.warn("peer transport server error", { error: error.message }));
  wss.on("connection", accept);

  function accept(ws: WebSocket, request: IncomingMessage): void {
    tune(request.socket);
    if (closed) return void ws.terminate();
    const link: Inbound = {
      ws, socket: request.socket, corked: false, remote: `${request.socket.remoteAddress ?? "?"}:${request.socket.remotePort ?? "?"}`, nonce: newNonce(),
      state: null, timer: null, attached: undefined, awaitingAttachment: false,
    };
    inbounds.add(link);
    link.timer = setTimeout(() => refuseInbound(link, null, "the handshake timed out"), handshakeTimeoutMs);
    ws.on("message", (data, isBinary) => onInboundFrame(link, data as Buffer, isBinary));
    ws.on("ping", () => {
      if (link.state !== null) link.state.contactAt = Date.now();
    });
    ws.on("error", () => {}); // "close" follows
    ws.on("close", () => {
      inbounds.delete(link);
      if (link.timer !== null) clearTimeout(link.timer);
      if (link.state !== null && link.state.inbound === link) link.state.inbound = null;
    });
    ws.send(`H${JSON.stringify({ id: self.id, did: self.did, nonce: link.nonce })}`);
  }

  function refuseInbound(link: Inbound, did: string | null, reason: string): void {
    if (link.ws.readyState !== WebSocket.OPEN) return;
    warnAbout(`in:${did ?? link.remote}`, `refused a peer connection: ${reason}`, { did, remote: link.remote });
    link.ws.close(CLOSE_REFUSED, reason.length > 120 ? reason.slice(0, 120) : reason);
  }

  function onInboundFrame(link: Inbound, data: Buffer, isBinary: boolean): void {
    if (link.ws.readyState !== WebSocket.OPEN) return;
    const state = link.state;
    if (state === null) return handshakeInbound(link, data, isBinary);
    state.contactAt = Date.now();
    const from = state.peer.id;
    if (link.awaitingAttachment) {
      if (!isBinary) return protocolError(link.ws, state, "an attachment header was not followed by a binary frame");
      const body = link.attached;
      link.attached = undefined;
      link.awaitingAttachment = false;
      return deliver(from, body, data);
    }
    if (isBinary) return protocolError(link.ws, state, "a binary frame without an attachment header");
    try {
      const tag = data[0];
      if (tag === TAG_MESSAGE) return deliver(from, JSON.parse(data.toString("utf8", 1)), null);
      if (tag === TAG_ATTACHED) {
        link.attached = JSON.parse(data.toString("utf8", 1));
        link.awaitingAttachment = true;
        return;
      }
      if (tag === TAG_REQUEST) {
        const space = data.indexOf(SPACE, 1);
        const id = frameId(data, space);
        if (id < 0) return protocolError(link.ws, state, "a request without an id");
        return answer(link, from, id, JSON.parse(data.toString("utf8", space + 1)));
      }
    } catch (error) {
      return protocolError(link.ws, state, `an unreadable frame (${describe(error)})`);
    }
    protocolError(link.ws, state, `an unexpected frame tag ${JSON.stringify(String.fromCharCode(data[0] ?? 0))} on an inbound link`);
  }

  function handshakeInbound(link: Inbound, data: Buffer, isBinary: boolean): void {
    const hello = isBinary ? null : handshakeFrame(data);
    if (hello === null) return refuseInbound(link, null, "not a handshake frame");
    const { id, did, nonce, sig } = hello;
    if (typeof id !== "string" || typeof did !== "string" || typeof sig !== "string" || !isNonce(nonce)) return refuseInbound(link, null, "a malformed hello");
    const state = byDid.get(did);
    if (state === undefined) return refuseInbound(link, did, `${clip(did)} (calling itself ${clip(id)}) is not a configured peer`);
    if (state.peer.id !== id) return refuseInbound(link, did, `${did} calls itself ${clip(id)}, but is configured as peer ${state.peer.id}`);
    const signature = base64urlDecode(sig);
    if (signature === null || signature.length !== SIGNATURE_BYTES || !ed25519Verify(signature, binding("dialer", link.nonce, did, self.did), state.publicKey)) {
      return refuseInbound(link, did, `peer ${id} (${did}) did not prove its identity (bad signature)`);
    }
    if (link.timer !== null) clearTimeout(link.timer);
    link.timer = null;
    link.state = state;
    state.contactAt = Date.now();
    const previous = state.inbound;
    state.inbound = link;
    if (previous !== null) previous.ws.close(CLOSE_REPLACED, "replaced by a newer link");
    link.ws.send(`H${JSON.stringify({ sig: base64urlEncode(ed25519Sign(binding("server", nonce, did, self.did), key.secretKey)) })}`);
    log.info("peer dialed in", { peer: id, did, remote: link.remote });
  }

  function deliver(from: string, body: unknown, attachment: Uint8Array | null): void {
    try {
      onMessage(from, body, attachment);
    } catch (error) {
      log.warn("a peer message handler threw", { peer: from, error: describe(error) });
    }
  }

  function answer(link: Inbound, from: string, id: number, body: unknown): void {
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
          return reply(link, `E${id} ${JSON.stringify(`the answer could not be serialised: ${describe(error)}`)}`);
        }
        reply(link, `R${id} ${json}`);
      },
      (error: unknown) => reply(link, `E${id} ${JSON.stringify(describe(error))}`),
    );
  }

  function reply(link: Inbound, frame: string): void {
    if (link.ws.readyState !== WebSocket.OPEN) return;
    coalesce(link, link.socket);
    link.ws.send(frame);
  }

  // ---- dialing ---------------------------------------------------------------------------------

  function dial(state: PeerState): void {
    state.retryTimer = null;
    if (closed) return;
    const { host, port: peerPort } = state.peer;
    const ws = new WebSocket(`ws://${host.includes(":") ? `[${host}]` : host}:${peerPort}${LINK_PATH}`, {
      perMessageDeflate: false, maxPayload, skipUTF8Validation: true, handshakeTimeout: handshakeTimeoutMs, followRedirects: false, generateMask: zeroMask,
    });
    state.ws = ws;
    state.socket = null;
    state.open = false;
    state.nonce = "";
    state.why = null;
    state.warned = false;
    state.handshakeTimer = setTimeout(() => dropOutbound(state, ws, "the handshake timed out"), handshakeTimeoutMs);
    ws.on("upgrade", (response) => {
      tune(response.socket);
      if (state.ws === ws) state.socket = response.socket;
    });
    ws.on("message", (data, isBinary) => onOutboundFrame(state, ws, data as Buffer, isBinary));
    ws.on("pong", () => {
      if (state.ws === ws && state.open) state.outboundFrameAt = state.contactAt = Date.now();
    });
    ws.on("error", (error) => {
      if (state.ws === ws) state.why ??= error.message;
    });
    ws.on("close", (code, reason) => onOutboundClose(state, ws, code, reason.toString()));
  }

  /** Closes an outbound attempt or link; `close` then schedules the next attempt. */
  function dropOutbound(state: PeerState, ws: WebSocket, why: string, warn = false): void {
    if (state.ws !== ws) return;
    state.why = why;
    state.warned = warn;
    if (warn) warnAbout(`out:${state.peer.id}`, `refused peer ${state.peer.id}: ${why}`, { peer: state.peer.id, did: state.peer.did });
    ws.terminate();
  }

  function onOutboundFrame(state: PeerState, ws: WebSocket, data: Buffer, isBinary: boolean): void {
    if (state.ws !== ws || ws.readyState !== WebSocket.OPEN) return;
    if (!state.open) return handshakeOutbound(state, ws, data, isBinary);
    state.outboundFrameAt = state.contactAt = Date.now();
    const tag = data[0];
    if (isBinary || (tag !== TAG_REPLY && tag !== TAG_ERROR)) return protocolError(ws, state, "an unexpected frame on an outbound link");
    const space = data.indexOf(SPACE, 1);
    const id = frameId(data, space);
    const pending = state.pending.get(id);
    if (pending === undefined) return; // answered after its timeout
    let value: unknown;
    try {
      value = JSON.parse(data.toString("utf8", space + 1));
    } catch (error) {
      return protocolError(ws, state, `an unreadable answer (${describe(error)})`);
    }
    state.pending.delete(id);
    clearTimeout(pending.timer);
    pending.resolve(tag === TAG_REPLY ? { ok: true, value } : { ok: false, error: typeof value === "string" ? value : JSON.stringify(value) });
  }

  function handshakeOutbound(state: PeerState, ws: WebSocket, data: Buffer, isBinary: boolean): void {
    const { peer } = state;
    const frame = isBinary ? null : handshakeFrame(data);
    if (frame === null) return dropOutbound(state, ws, "the server sent no handshake", true);
    if (state.nonce === "") {
      const { id, did, nonce } = frame;
      if (typeof id !== "string" || typeof did !== "string" || !isNonce(nonce)) return dropOutbound(state, ws, "a malformed challenge", true);
      if (did !== peer.did) return dropOutbound(state, ws, `${peer.host}:${peer.port} answered as ${clip(did)}, not as ${peer.did}`, true);
      if (id !== peer.id) return dropOutbound(state, ws, `${peer.did} calls itself ${clip(id)}, but is configured as peer ${peer.id}`, true);
      state.nonce = newNonce();
      const sig = base64urlEncode(ed25519Sign(binding("dialer", nonce, self.did, peer.did), key.secretKey));
      ws.send(`H${JSON.stringify({ id: self.id, did: self.did, nonce: state.nonce, sig })}`);
      return;
    }
    const signature = typeof frame.sig === "string" ? base64urlDecode(frame.sig) : null;
    if (signature === null || signature.length !== SIGNATURE_BYTES || !ed25519Verify(signature, binding("server", state.nonce, self.did, peer.did), state.publicKey)) {
      return dropOutbound(state, ws, `the server at ${peer.host}:${peer.port} did not prove it is ${peer.did} (bad signature)`, true);
    }
    if (state.handshakeTimer !== null) clearTimeout(state.handshakeTimer);
    state.handshakeTimer = null;
    const now = Date.now();
    state.open = true;
    state.retryMs = RETRY_MIN_MS;
    state.outboundFrameAt = state.progressAt = state.contactAt = now;
    state.lastBuffered = 0;
    state.reported = null;
    connectedIds = null;
    log.info("peer link up", { peer: peer.id, did: peer.did, address: `${peer.host}:${peer.port}` });
  }

  function onOutboundClose(state: PeerState, ws: WebSocket, code: number, reason: string): void {
    if (state.ws !== ws) return;
    if (state.handshakeTimer !== null) clearTimeout(state.handshakeTimer);
    state.handshakeTimer = null;
    state.ws = null;
    state.socket = null;
    const why = state.why ?? (reason !== "" ? `closed by the peer: ${reason}` : `closed (${code})`);
    failPending(state, `the link to peer ${state.peer.id} closed: ${why}`);
    if (state.open) {
      state.open = false;
      connectedIds = null;
      log.info("peer link down", { peer: state.peer.id, reason: why });
    } else if (code === CLOSE_REFUSED) {
      warnAbout(`out:${state.peer.id}`, `peer ${state.peer.id} refused us: ${clip(reason)}`, { peer: state.peer.id, did: state.peer.did });
    } else if (!state.warned && (state.reported !== why || Date.now() - state.reportedAt > WARN_REPEAT_MS)) {
      state.reported = why;
      state.reportedAt = Date.now();
      log.info("peer unreachable, retrying", { peer: state.peer.id, address: `${state.peer.host}:${state.peer.port}`, reason: why });
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

  function protocolError(ws: WebSocket, state: PeerState, what: string): void {
    warnAbout(`protocol:${state.peer.id}`, `peer ${state.peer.id} broke the link protocol: ${what}`, { peer: state.peer.id, did: state.peer.did });
    if (state.ws === ws) return dropOutbound(state, ws, `protocol error: ${what}`);
    ws.close(CLOSE_PROTOCOL, "protocol error");
  }

  /** Pings every open outbound link; drops one that has neither answered nor drained its queue for `deadAfterMs`. */
  function tick(): void {
    const now = Date.now();
    for (const state of byId.values()) {
      const ws = state.ws;
      if (ws === null || !state.open) continue;
      const buffered = ws.bufferedAmount;
      if (buffered < state.lastBuffered) state.progressAt = now;
      state.lastBuffered = buffered;
      if (now - Math.max(state.outboundFrameAt, state.progressAt) > deadAfterMs) {
        dropOutbound(state, ws, `no sign of life for ${deadAfterMs} ms`);
        continue;
      }
      ws.ping();
    }
  }

  const ticker = setInterval(tick, pingIntervalMs);
  for (const state of byId.values()) dial(state);
  log.info("peer transport listening", { id: self.id, did: self.did, address: `${self.host}:${port}`, peers: options.peers.length });

  // ---- the API ---------------------------------------------------------------------------------

  /** The open link to `to` if a frame of `size` bytes may be queued on it now. */
  function sendable(to: string, size: number): PeerState | null {
    const state = byId.get(to);
    if (state === undefined || !state.open || state.ws === null || state.ws.readyState !== WebSocket.OPEN) return null;
    const buffered = state.ws.bufferedAmount;
    // An empty queue takes any frame, so an attachment larger than the limit still goes out.
    if (buffered > 0 && buffered + size > maxBuffered) return null;
    return state;
  }

  return {
    port,

    send(to, body, attachment) {
      const json = JSON.stringify(body) ?? "null";
      const state = sendable(to, json.length + 1 + (attachment?.byteLength ?? 0));
      if (state === null) return false;
      const ws = state.ws as WebSocket;
      if (state.socket !== null) coalesce(state, state.socket);
      if (attachment === undefined) {
        ws.send(`M${json}`);
      } else {
        ws.send(`A${json}`);
        ws.send(attachment);
      }
      return true;
    },

    request(to, body, timeoutMs) {
      if (!byId.has(to)) return Promise.resolve({ ok: false, error: `no peer ${to} is configured` });
      const json = JSON.stringify(body) ?? "null";
      const state = sendable(to, json.length + 16);
      if (state === null) {
        const open = byId.get(to)?.open === true;
        return Promise.resolve({ ok: false, error: open ? `the link to peer ${to} is backed up` : `peer ${to} is not connected` });
      }
      const id = state.nextId++;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          state.pending.delete(id);
          resolve({ ok: false, error: `peer ${to} did not answer within ${timeoutMs} ms` });
        }, timeoutMs);
        state.pending.set(id, { resolve, timer });
        if (state.socket !== null) coalesce(state, state.socket);
        (state.ws as WebSocket).send(`Q${id} ${json}`);
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
        for (const state of byId.values()) {
          if (state.retryTimer !== null) clearTimeout(state.retryTimer);
          if (state.handshakeTimer !== null) clearTimeout(state.handshakeTimer);
          state.retryTimer = state.handshakeTimer = null;
          const ws = state.ws;
          state.ws = null;
          state.socket = null;
          state.open = false;
          state.inbound = null;
          failPending(state, "the peer transport is closed");
          ws?.terminate();
        }
        connectedIds = null;
        for (const link of inbounds) {
          if (link.timer !== null) clearTimeout(link.timer);
          link.ws.terminate();
        }
        inbounds.clear();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

/**
 * Holds a link's writes until the end of the current tick, so the frames sent in one turn of the
 * event loop leave in one system call instead of one each (`ws` corks and uncorks per frame;
 * corks nest).
 */
function coalesce(link: { corked: boolean }, socket: Socket): void {
  if (link.corked) return;
  link.corked = true;
  socket.cork();
  process.nextTick(uncork, link, socket);
}

function uncork(link: { corked: boolean }, socket: Socket): void {
  link.corked = false;
  socket.uncork();
}

/** The string each side signs: the context, its role, the other side's challenge and both identities. */
function binding(role: "dialer" | "server", nonce: string, dialerDid: string, serverDid: string): Buffer {
  return Buffer.from(`${CONTEXT}\n${role}\n${nonce}\n${dialerDid}\n${serverDid}`, "utf8");
}

function newNonce(): string {
  return base64urlEncode(randomBytes(NONCE_BYTES));
}

function isNonce(value: unknown): value is string {
  if (typeof value !== "string" || value.length > 64) return false;
  return base64urlDecode(value)?.length === NONCE_BYTES;
}

/** A handshake frame's JSON object, or null. */
function handshakeFrame(data: Buffer): Record<string, unknown> | null {
  if (data.length > 4096 || data[0] !== TAG_HANDSHAKE) return null;
  try {
    const value: unknown = JSON.parse(data.toString("utf8", 1));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The decimal id between the tag and the space at `space`, or -1. */
function frameId(data: Buffer, space: number): number {
  if (space < 2 || space > 17) return -1;
  let id = 0;
  for (let i = 1; i < space; i++) {
    const digit = (data[i] as number) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    id = id * 10 + digit;
  }
  return id;
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

/** Disables Nagle's algorithm (every frame is latency-sensitive) and lets the kernel notice dead peers. */
function tune(socket: Socket): void {
  socket.setNoDelay(true);
  socket.setKeepAlive(true, 5_000);
}

/** Peer links are not browser connections, so frames need no masking (an all-zero mask makes `ws` skip it). */
function zeroMask(mask: Buffer): void {
  mask.fill(0);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
