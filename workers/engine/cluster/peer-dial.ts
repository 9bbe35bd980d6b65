/**
 * @module Dialling one peer: this voter's outbound link to it, which carries everything this voter
 * sends that peer — messages, and requests whose answers come back on the same link. The link is
 * dialled, authenticated (peer-handshake.ts through peer-link.ts) and, when it drops, dialled again
 * with capped exponential back-off (50 ms doubling to 1 s) until `close()`. Each `tick` pings the
 * open link or drops it once it has shown no sign of life (no frame received, no progress in
 * sending) for `deadAfterMs`.
 *
 * Delivery is best effort: while the link is not open, or has more than `maxBufferedBytes` queued,
 * sends are dropped and say so. A request fails (never rejects) when it cannot be sent, at its
 * timeout, or at once when the link drops.
 */
import { connect } from "node:net";
import type { PeerAddress } from "../../../shared/worker/peers.ts";
import type { PeerRecord } from "./peer-frames.ts";
import { dialerHello, type HandshakeFresh, type HandshakeSelf, type KnownPeer } from "./peer-handshake.ts";
import { type LinkEnd, PeerLink } from "./peer-link.ts";
import { describeError, type PeerLog, type PeerWarnings, WARN_REPEAT_MS } from "./peer-log.ts";

/** A request's answer: the peer's value, or why there is none. */
export type PeerAnswer = { ok: true; value: unknown } | { ok: false; error: string };

export interface PeerDialerOptions {
  readonly me: HandshakeSelf;
  /** Where the peer listens, and who it must prove to be. */
  readonly peer: PeerAddress;
  readonly known: KnownPeer;
  /** The largest record the peer may send back. */
  readonly maxRecordBytes: number;
  /** Once the link has this much queued, further sends are dropped. */
  readonly maxBufferedBytes: number;
  readonly handshakeTimeoutMs: number;
  /** An open link with no frame received and no send progress for this long is dropped at the next tick. */
  readonly deadAfterMs: number;
  /** The randomness for each handshake. */
  readonly fresh: () => HandshakeFresh;
  readonly log: PeerLog;
  readonly warnings: PeerWarnings;
  /** A frame arrived from the peer (or the link opened) at `at`. */
  readonly onContact: (at: number) => void;
  /** `open` changed. */
  readonly onStatus: () => void;
  readonly now?: () => number;
}

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 1_000;
/** Request ids travel as 32 bits; they wrap long after any request has timed out. */
const MAX_REQUEST_ID = 0xffff_ffff;

/** The outbound link to one peer. */
export class PeerDialer {
  readonly #o: PeerDialerOptions;
  readonly #now: () => number;
  /** The current link (connecting, authenticating or open), or null between attempts. */
  #out: PeerLink | null = null;
  #open = false;
  #closed = false;
  #retryMs = RETRY_MIN_MS;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** The failure last logged, so a peer that stays down is reported once, not every second. */
  #reported: string | null = null;
  #reportedAt = 0;
  readonly #pending = new Map<number, { resolve(answer: PeerAnswer): void; timer: ReturnType<typeof setTimeout> }>();
  #nextId = 1;
  /** When the last frame arrived, when the queued bytes last went down, and how many were queued then. */
  #frameAt = 0;
  #progressAt = 0;
  #lastQueued = 0;

  constructor(options: PeerDialerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** The peer's id. */
  get id(): string {
    return this.#o.peer.id;
  }

  /** Whether the link has authenticated the peer (and has not dropped since). */
  get open(): boolean {
    return this.#open;
  }

  /** Dials now (and again whenever the link drops, until `close`). */
  dial(): void {
    this.#retryTimer = null;
    if (this.#closed) return;
    const { host, port } = this.#o.peer;
    const { state: handshake, message } = dialerHello(this.#o.me, this.#o.known, this.#o.fresh());
    const socket = connect({ host, port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 5_000 });
    this.#open = false;
    this.#out = new PeerLink({
      socket, handshake, hello: message, maxRecordBytes: this.#o.maxRecordBytes, handshakeTimeoutMs: this.#o.handshakeTimeoutMs,
      onOpen: (link) => this.#onOpen(link),
      onRecord: (link, record) => this.#onRecord(link, record),
      onEnd: (link, end) => this.#onEnd(link, end),
    });
  }

  /** Queues a message (JSON text and an attachment); false when it was dropped. */
  send(json: string, attachment: Uint8Array | null): boolean {
    const link = this.#sendable(json.length + 1 + (attachment?.byteLength ?? 0));
    if (link === null) return false;
    link.send({ type: "message", json, attachment });
    return true;
  }

  /** Sends a request (JSON text) and waits up to `timeoutMs` for its answer. */
  request(json: string, timeoutMs: number): Promise<PeerAnswer> {
    const { id: peer } = this.#o.peer;
    const link = this.#sendable(json.length + 16);
    if (link === null) return Promise.resolve({ ok: false, error: this.#open ? `the link to peer ${peer} is backed up` : `peer ${peer} is not connected` });
    const id = this.#nextId;
    this.#nextId = id >= MAX_REQUEST_ID ? 1 : id + 1;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        resolve({ ok: false, error: `peer ${peer} did not answer within ${timeoutMs} ms` });
      }, timeoutMs);
      this.#pending.set(id, { resolve, timer });
      link.send({ type: "request", id, json });
    });
  }

  /** Pings the open link, or drops it when it has neither answered nor drained its queue for `deadAfterMs`. */
  tick(): void {
    const link = this.#out;
    if (link === null || !this.#open) return;
    const now = this.#now();
    const queued = link.queuedBytes;
    if (queued < this.#lastQueued) this.#progressAt = now;
    this.#lastQueued = queued;
    if (now - Math.max(this.#frameAt, this.#progressAt) > this.#o.deadAfterMs) return link.close(`no sign of life for ${this.#o.deadAfterMs} ms`);
    link.send({ type: "ping" });
  }

  /** Stops dialling, fails pending requests, and closes the link; resolves once its socket has closed. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    const link = this.#out;
    this.#out = null;
    this.#open = false;
    this.#failPending("the peer transport is closed");
    if (link === null || link.socket.closed) return;
    await new Promise<void>((resolve) => {
      link.socket.once("close", () => resolve());
      link.close("the peer transport is closed");
    });
  }

  /** The open link if a record of `size` bytes may be queued on it now. */
  #sendable(size: number): PeerLink | null {
    const link = this.#out;
    if (!this.#open || link === null || !link.open) return null;
    const queued = link.queuedBytes;
    // An empty queue takes any record, so an attachment larger than the limit still goes out.
    if (queued > 0 && queued + size > this.#o.maxBufferedBytes) return null;
    return link;
  }

  #onOpen(link: PeerLink): void {
    if (this.#out !== link) return;
    const { peer } = this.#o;
    const now = this.#now();
    this.#open = true;
    this.#retryMs = RETRY_MIN_MS;
    this.#frameAt = this.#progressAt = now;
    this.#lastQueued = 0;
    this.#reported = null;
    this.#o.onContact(now);
    this.#o.onStatus();
    this.#o.log.info("peer link up", { peer: peer.id, did: peer.did, address: `${peer.host}:${peer.port}` });
  }

  #onRecord(link: PeerLink, record: PeerRecord): void {
    if (this.#out !== link) return;
    this.#frameAt = this.#now();
    this.#o.onContact(this.#frameAt);
    if (record.type === "pong") return;
    if (record.type !== "reply" && record.type !== "failure") return this.#protocolError(link, `an unexpected ${record.type} on an outbound link`);
    const pending = this.#pending.get(record.id);
    if (pending === undefined) return; // answered after its timeout
    let value: unknown;
    try {
      value = JSON.parse(record.json);
    } catch (error) {
      return this.#protocolError(link, `an unreadable answer (${describeError(error)})`);
    }
    this.#pending.delete(record.id);
    clearTimeout(pending.timer);
    pending.resolve(record.type === "reply" ? { ok: true, value } : { ok: false, error: typeof value === "string" ? value : JSON.stringify(value) });
  }

  #onEnd(link: PeerLink, end: LinkEnd): void {
    if (this.#out !== link) return;
    this.#out = null;
    const why = end.kind === "refused" && end.byPeer ? `refused by the peer: ${end.reason}` : end.reason;
    this.#failPending(`the link to peer ${this.#o.peer.id} closed: ${why}`);
    this.#report(end, why);
    if (this.#closed) return;
    this.#retryTimer = setTimeout(() => this.dial(), this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
  }

  /** Logs a link that ended: down after being open, refused either way, or (once in a while) unreachable. */
  #report(end: LinkEnd, why: string): void {
    const { peer, log, warnings } = this.#o;
    const fields = { peer: peer.id, did: peer.did };
    if (this.#open) {
      this.#open = false;
      this.#o.onStatus();
      if (end.kind === "protocol") warnings.protocolError(peer, end.reason);
      log.info("peer link down", { peer: peer.id, reason: why });
    } else if (end.kind === "refused" && end.byPeer) {
      warnings.warn(`out:${peer.id}`, `peer ${peer.id} refused us: ${end.reason}`, fields);
    } else if (end.kind === "refused" && end.reason !== "the handshake timed out") {
      warnings.warn(`out:${peer.id}`, `refused peer ${peer.id}: ${end.reason}`, fields);
    } else if (this.#reported !== why || this.#now() - this.#reportedAt > WARN_REPEAT_MS) {
      this.#reported = why;
      this.#reportedAt = this.#now();
      log.info("peer unreachable, retrying", { peer: peer.id, address: `${peer.host}:${peer.port}`, reason: why });
    }
  }

  #failPending(error: string): void {
    if (this.#pending.size === 0) return;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const { resolve, timer } of pending) {
      clearTimeout(timer);
      resolve({ ok: false, error });
    }
  }

  #protocolError(link: PeerLink, what: string): void {
    this.#o.warnings.protocolError(this.#o.peer, what);
    link.close(`protocol error: ${what}`);
  }
}
