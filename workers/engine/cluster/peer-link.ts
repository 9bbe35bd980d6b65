/**
 * @module One peer connection, either end: runs the handshake (peer-handshake.ts) over a TCP
 * socket under the handshake frame limit and timeout, then seals every record it sends and opens
 * every frame it receives (peer-frames.ts). The first broken rule — an oversized frame, a frame
 * that does not open, a bad handshake, silence past the timeout — closes the socket at once, and
 * nothing of a record is delivered until all of it has arrived and opened.
 *
 * Records are sealed as the socket drains, not when they are queued: a snapshot image becomes
 * frames a few at a time, so the event loop never stops to encrypt a whole image, and at most
 * `PUMP_HIGH_WATER` bytes of sealed frames wait in the socket.
 */
import type { Socket } from "node:net";
import {
  decodeRecord, encodeRecord, FrameOpener, FrameReader, FrameSealer, HANDSHAKE_FRAME_LIMIT, handshakeFrame,
  type OutgoingRecord, type PeerRecord, recordBytes, SEALED_FRAME_LIMIT,
} from "./peer-frames.ts";
import { type Handshake, type KnownPeer, receiveHandshake } from "./peer-handshake.ts";

/** Sealed bytes allowed to wait in the socket before sealing pauses until it drains. */
const PUMP_HIGH_WATER = 1024 * 1024;

/** How a link ended. */
export type LinkEnd =
  /** The handshake failed: we refused the other side, or it refused us (`byPeer`). */
  | { readonly kind: "refused"; readonly reason: string; readonly did: string | null; readonly byPeer: boolean }
  /** The authenticated peer broke the frame rules (or a frame was altered on the way). */
  | { readonly kind: "protocol"; readonly reason: string }
  /** The connection closed, failed, or was closed by this side. */
  | { readonly kind: "closed"; readonly reason: string };

export interface PeerLinkOptions {
  readonly socket: Socket;
  readonly handshake: Handshake;
  /** The dialer's hello, sent once the socket connects; null for a listener. */
  readonly hello: Uint8Array | null;
  /** The largest record the peer may send once authenticated. */
  readonly maxRecordBytes: number;
  readonly handshakeTimeoutMs: number;
  readonly onOpen: (link: PeerLink, peer: KnownPeer) => void;
  /** Every record from the authenticated peer, in order. */
  readonly onRecord: (link: PeerLink, record: PeerRecord) => void;
  /** Once, when the socket has closed. */
  readonly onEnd: (link: PeerLink, end: LinkEnd) => void;
}

/** A connection to or from a peer. */
export class PeerLink {
  readonly socket: Socket;
  readonly #o: PeerLinkOptions;
  readonly #reader = new FrameReader(HANDSHAKE_FRAME_LIMIT);
  #handshake: Handshake | null;
  #timer: ReturnType<typeof setTimeout> | null;
  #sealer: FrameSealer | null = null;
  #opener: FrameOpener | null = null;
  /** The authenticated peer, once the handshake is done. */
  peer: KnownPeer | null = null;
  /** Records not yet fully sealed, oldest first, and their unsealed bytes. */
  readonly #queue: OutgoingRecord[] = [];
  #unsealed = 0;
  #corked = false;
  #end: LinkEnd | null = null;

  constructor(options: PeerLinkOptions) {
    this.#o = options;
    this.socket = options.socket;
    this.#handshake = options.handshake;
    const socket = options.socket;
    this.#timer = setTimeout(() => this.#fail({ kind: "refused", reason: "the handshake timed out", did: null, byPeer: false }), options.handshakeTimeoutMs);
    socket.on("data", (chunk: Buffer) => this.#onData(chunk));
    socket.on("drain", () => this.#pump());
    socket.on("error", (error) => {
      this.#end ??= { kind: "closed", reason: error.message };
    });
    socket.on("close", () => {
      if (this.#timer !== null) clearTimeout(this.#timer);
      this.#timer = null;
      this.#queue.length = 0;
      this.#unsealed = 0;
      options.onEnd(this, this.#end ?? { kind: "closed", reason: "closed by the peer" });
    });
    if (options.hello !== null) {
      const hello = options.hello;
      socket.once("connect", () => socket.write(handshakeFrame(hello)));
    }
  }

  /** Whether the handshake is done and the socket still up. */
  get open(): boolean {
    return this.#sealer !== null && this.#end === null && !this.socket.destroyed;
  }

  /** Bytes queued and not yet on the wire: unsealed records plus sealed frames in the socket. */
  get queuedBytes(): number {
    return this.#unsealed + this.socket.writableLength;
  }

  /** Queues a record (only on an open link); frames go out in the order records were queued. */
  send(record: PeerRecord): void {
    if (!this.open) return;
    const outgoing = encodeRecord(record);
    this.#queue.push(outgoing);
    this.#unsealed += recordBytes(outgoing);
    this.#pump();
  }

  /** Closes the socket at once; `onEnd` reports `reason` (unless the link had already failed). */
  close(reason: string): void {
    this.#fail({ kind: "closed", reason });
  }

  #fail(end: LinkEnd): void {
    this.#end ??= end;
    this.socket.destroy();
  }

  #onData(chunk: Buffer): void {
    if (this.#end !== null) return;
    const error = this.#reader.feed(chunk, (frame) => this.#onFrame(frame));
    if (error === null) return;
    if (this.#sealer !== null) return this.#fail({ kind: "protocol", reason: error });
    const reason = this.#o.hello === null ? `${error} before authenticating` : `the peer did not answer with a Charter peer handshake (${error})`;
    this.#fail({ kind: "refused", reason, did: null, byPeer: false });
  }

  /** One frame; false stops reading (the link failed). */
  #onFrame(frame: Buffer): boolean {
    if (this.#end !== null) return false;
    const opener = this.#opener;
    if (opener === null) return this.#onHandshakeFrame(frame);
    const opened = opener.open(frame);
    if (opened === null) return true;
    if ("error" in opened) {
      this.#fail({ kind: "protocol", reason: opened.error });
      return false;
    }
    const record = decodeRecord(opened.record);
    if ("error" in record) {
      this.#fail({ kind: "protocol", reason: record.error });
      return false;
    }
    this.#o.onRecord(this, record);
    return this.#end === null;
  }

  #onHandshakeFrame(frame: Buffer): boolean {
    const state = this.#handshake;
    if (state === null) return false;
    const step = receiveHandshake(state, frame);
    if (step.kind === "continue") {
      this.#handshake = step.state;
      this.socket.write(handshakeFrame(step.message));
      return true;
    }
    this.#handshake = null;
    if (step.kind === "refused") {
      this.#end = { kind: "refused", reason: step.reason, did: step.did, byPeer: step.byPeer };
      // Tell the dialer why, then close as soon as that is written.
      if (step.message !== null) this.socket.end(handshakeFrame(step.message), () => this.socket.destroy());
      else this.socket.destroy();
      return false;
    }
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (step.message !== null) this.socket.write(handshakeFrame(step.message));
    this.#sealer = new FrameSealer(step.keys.send);
    this.#opener = new FrameOpener(step.keys.receive, this.#o.maxRecordBytes);
    this.#reader.limit = SEALED_FRAME_LIMIT;
    this.peer = step.peer;
    this.#o.onOpen(this, step.peer);
    return this.#end === null;
  }

  /** Seals queued records into the socket while it has room. */
  #pump(): void {
    const sealer = this.#sealer;
    if (sealer === null || this.#end !== null) return;
    const socket = this.socket;
    if (this.#queue.length > 0) this.#coalesce();
    while (this.#queue.length > 0 && socket.writableLength < PUMP_HIGH_WATER) {
      const record = this.#queue[0] as OutgoingRecord;
      const before = record.sent;
      socket.write(sealer.sealNext(record));
      this.#unsealed -= record.sent - before;
      if (record.sent === recordBytes(record)) this.#queue.shift();
    }
  }

  /**
   * Holds the socket's writes until the end of the current tick, so the frames queued in one turn
   * of the event loop leave in one system call instead of one each.
   */
  #coalesce(): void {
    if (this.#corked) return;
    this.#corked = true;
    this.socket.cork();
    process.nextTick(() => {
      this.#corked = false;
      this.socket.uncork();
    });
  }
}
