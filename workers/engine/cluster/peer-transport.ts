/**
 * @module The voters' peer transport: the TCP links between every pair of voters on a dedicated
 * port. Each link is mutually authenticated with the voters' did:key node identities and then
 * encrypted and integrity-protected frame by frame (peer-handshake.ts, peer-frames.ts,
 * peer-link.ts). This file checks the configuration, starts the two halves — accepting the links
 * other voters dial (peer-accept.ts) and dialling one link to each of them (peer-dial.ts) — and
 * routes the API to them.
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
import { publicKeyFromDidKey } from "../../../shared/identity/did-key.ts";
import type { KeyPair } from "../../../shared/identity/key-pair.ts";
import type { PeerAddress } from "../../../shared/worker/peers.ts";
import { PeerAcceptor } from "./peer-accept.ts";
import { kxKeyPair, randomBytes } from "./peer-crypto.ts";
import { type PeerAnswer, PeerDialer } from "./peer-dial.ts";
import { HANDSHAKE_NONCE_BYTES, type HandshakeFresh, type HandshakeSelf, type KnownPeer } from "./peer-handshake.ts";
import { type PeerLog, PeerWarnings } from "./peer-log.ts";

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
  readonly log?: PeerLog;
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
  request(to: string, body: unknown, timeoutMs: number): Promise<PeerAnswer>;
  /** Peer ids with an authenticated outbound link (the ones `send` can reach). */
  connected(): readonly string[];
  /** `Date.now()` of the last frame received from that peer on either link (pings and pongs count), or null. */
  lastContact(id: string): number | null;
  /** Stops reconnecting, closes the server and every link, fails pending requests. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BUFFERED = 64 * 1024 * 1024;
const DEFAULT_MAX_RECORD = 512 * 1024 * 1024;
/** A record's length travels as 32 bits. */
const RECORD_LIMIT = 0xffff_ffff;
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_PENDING = 8;
const DEFAULT_PING_INTERVAL_MS = 1_000;
const DEFAULT_DEAD_AFTER_MS = 10_000;

/** Starts listening on `self` and dialing every peer; resolves once the port is bound. */
export async function startPeerTransport(options: PeerTransportOptions): Promise<PeerTransport> {
  const { self, key } = options;
  if (key.did !== self.did) throw new Error(`the node key is ${key.did}, but self (${self.id}) is configured as ${self.did}`);
  const known = knownPeers(self, options.peers);
  const me: HandshakeSelf = { id: self.id, did: self.did, secretKey: key.secretKey };
  const log = options.log ?? { info() {}, warn() {} };
  const warnings = new PeerWarnings(log);
  const maxRecordBytes = Math.min(options.maxRecordBytes ?? DEFAULT_MAX_RECORD, RECORD_LIMIT);
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  /** `Date.now()` of the last frame from each peer on either link. */
  const contact = new Map<string, number>();
  let connectedIds: readonly string[] | null = null;

  const acceptor = await PeerAcceptor.listen(self.host, self.port, {
    me, peers: new Map(known.map((k) => [k.did, k])), maxRecordBytes, handshakeTimeoutMs, maxPendingHandshakes: options.maxPendingHandshakes ?? DEFAULT_MAX_PENDING,
    fresh, log, warnings, onMessage: options.onMessage, onRequest: options.onRequest, onContact: (peer, at) => contact.set(peer, at),
  });
  const dialers = new Map<string, PeerDialer>();
  for (const [i, peer] of options.peers.entries()) {
    dialers.set(peer.id, new PeerDialer({
      me, peer, known: known[i] as KnownPeer, maxRecordBytes, maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED, handshakeTimeoutMs,
      deadAfterMs: options.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS, fresh, log, warnings,
      onContact: (at) => contact.set(peer.id, at), onStatus: () => (connectedIds = null),
    }));
  }
  const ticker = setInterval(() => {
    for (const dialer of dialers.values()) dialer.tick();
  }, options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS);
  for (const dialer of dialers.values()) dialer.dial();
  const port = acceptor.port;
  log.info("peer transport listening", { id: self.id, did: self.did, address: `${self.host}:${port}`, peers: options.peers.length });

  let closing: Promise<void> | null = null;
  return {
    port,
    send: (to, body, attachment) => {
      const json = JSON.stringify(body) ?? "null";
      return dialers.get(to)?.send(json, attachment ?? null) ?? false;
    },
    request: (to, body, timeoutMs) => {
      const dialer = dialers.get(to);
      if (dialer === undefined) return Promise.resolve({ ok: false, error: `no peer ${to} is configured` });
      return dialer.request(JSON.stringify(body) ?? "null", timeoutMs);
    },
    connected: () => (connectedIds ??= Object.freeze([...dialers.values()].filter((d) => d.open).map((d) => d.id))),
    lastContact: (id) => contact.get(id) ?? null,
    close: () =>
      (closing ??= (async () => {
        clearInterval(ticker);
        const closed = [...dialers.values()].map((dialer) => dialer.close());
        connectedIds = null;
        await Promise.all([...closed, acceptor.close()]);
      })()),
  };
}

/** The configured peers as the handshake knows them, in order; throws on a list that cannot work. */
function knownPeers(self: PeerAddress, peers: readonly PeerAddress[]): KnownPeer[] {
  const ids = new Set<string>();
  const dids = new Set<string>();
  return peers.map((peer) => {
    if (peer.id === self.id || peer.did === self.did) throw new Error(`peer ${peer.id} (${peer.did}) is self; list only the other voters`);
    if (ids.has(peer.id)) throw new Error(`peer id ${peer.id} is configured twice`);
    if (dids.has(peer.did)) throw new Error(`${peer.did} is configured twice`);
    const publicKey = publicKeyFromDidKey(peer.did);
    if (!publicKey.ok) throw new Error(`peer ${peer.id}: ${publicKey.error.message}`);
    ids.add(peer.id);
    dids.add(peer.did);
    return { id: peer.id, did: peer.did, publicKey: publicKey.value };
  });
}

/** The randomness for one handshake. */
function fresh(): HandshakeFresh {
  return { ephemeral: kxKeyPair(), nonce: randomBytes(HANDSHAKE_NONCE_BYTES) };
}
