/**
 * @module The peer link's frame format, without sockets: length-prefixed frames read under a
 * limit, sealing and opening with per-direction counter nonces, records (messages, requests,
 * answers, pings) and their split into frames.
 *
 * On the wire every frame is a 4-byte big-endian length and that many bytes. Before the handshake
 * finishes a frame is a handshake message of at most `HANDSHAKE_FRAME_LIMIT` bytes; after it,
 * every frame is sealed with XChaCha20-Poly1305 under the direction's session key, the nonce being
 * the count of frames sent before it in that direction. A frame that was altered, replayed,
 * reordered, dropped or sealed under another key fails to open, and the link is closed.
 *
 * A sealed frame's plaintext is a piece marker and at most `CHUNK_BYTES` of a record: a record
 * that fits goes whole; a larger one (a snapshot image, a long catch-up) goes as a first piece
 * announcing the record's length, middle pieces and a last one, in order with nothing between
 * them. The reader never holds more than one frame's bytes; only a record announced by an
 * authenticated peer, within that peer's record limit, is gathered in one buffer of its size.
 */
import { AEAD_NONCE_BYTES, AEAD_TAG_BYTES, aeadOpen, aeadSeal } from "./peer-crypto.ts";

/** Bytes of the length prefix. */
export const LENGTH_BYTES = 4;
/** The largest handshake message, the only kind of frame accepted before authentication. */
export const HANDSHAKE_FRAME_LIMIT = 4096;
/** The most record bytes one sealed frame carries. */
export const CHUNK_BYTES = 256 * 1024;
/** The largest sealed frame: the piece marker, a first piece's record length, a chunk and the tag. */
export const SEALED_FRAME_LIMIT = 1 + 4 + CHUNK_BYTES + AEAD_TAG_BYTES;
/** The most frames one direction of a link may seal before the counter could leave exact integers. */
const MAX_COUNTER = Number.MAX_SAFE_INTEGER;

// Piece markers, the first plaintext byte of a sealed frame.
const WHOLE = 0;
const FIRST = 1;
const MIDDLE = 2;
const LAST = 3;

/**
 * Cuts a byte stream into length-prefixed frames. `limit` may change between frames (it grows when
 * the handshake finishes): a frame's length is checked against the limit in force when its prefix
 * is read, before any of its body is kept.
 */
export class FrameReader {
  limit: number;
  readonly #chunks: Buffer[] = [];
  #buffered = 0;
  /** The length of the frame being read, or -1 while its prefix is. */
  #length = -1;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Bytes held, waiting for the rest of a frame. */
  get buffered(): number {
    return this.#buffered;
  }

  /**
   * Takes bytes from the stream and hands each complete frame to `onFrame`, which returns false to
   * stop reading (the link is closing). Returns why the stream is unacceptable, or null.
   */
  feed(chunk: Buffer, onFrame: (frame: Buffer) => boolean): string | null {
    if (chunk.length > 0) this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    while (true) {
      if (this.#length < 0) {
        if (this.#buffered < LENGTH_BYTES) return null;
        const length = this.#take(LENGTH_BYTES).readUInt32BE(0);
        if (length > this.limit) return `a frame of ${length} bytes (at most ${this.limit} are accepted here)`;
        this.#length = length;
      }
      if (this.#buffered < this.#length) return null;
      const frame = this.#take(this.#length);
      this.#length = -1;
      if (!onFrame(frame)) return null;
    }
  }

  /** The next `n` buffered bytes (a view when they lie in one chunk, else a copy). */
  #take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    this.#buffered -= n;
    const head = this.#chunks[0] as Buffer;
    if (head.length >= n) {
      if (head.length === n) this.#chunks.shift();
      else this.#chunks[0] = head.subarray(n);
      return head.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    while (at < n) {
      const chunk = this.#chunks[0] as Buffer;
      const used = Math.min(chunk.length, n - at);
      chunk.copy(out, at, 0, used);
      at += used;
      if (used === chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(used);
    }
    return out;
  }
}

/** A handshake message as a frame. */
export function handshakeFrame(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(LENGTH_BYTES + message.length);
  frame.writeUInt32BE(message.length, 0);
  frame.set(message, LENGTH_BYTES);
  return frame;
}

/** Writes the counter into a nonce (little-endian in its first 8 bytes; the rest stays zero). */
function setCounter(nonce: Buffer, counter: number): void {
  nonce.writeUInt32LE(counter >>> 0, 0);
  nonce.writeUInt32LE(Math.floor(counter / 0x1_0000_0000), 4);
}

/** One direction's sealing state: its key and how many frames it has sealed. */
export class FrameSealer {
  readonly #key: Uint8Array;
  readonly #nonce = Buffer.alloc(AEAD_NONCE_BYTES);
  /** Plaintext is assembled here (it never outlives one `seal`). */
  readonly #scratch = Buffer.allocUnsafe(1 + 4 + CHUNK_BYTES);
  #counter = 0;

  constructor(key: Uint8Array) {
    this.#key = key;
  }

  /**
   * The next frame of `record` (its bytes are `head` then `tail`), advancing `record.sent`; the
   * record is finished when `sent` reaches `head.length + tail.length`.
   */
  sealNext(record: OutgoingRecord): Buffer {
    if (this.#counter >= MAX_COUNTER) throw new Error("the link has sealed too many frames; it must be re-established");
    const total = record.head.length + (record.tail?.length ?? 0);
    const remaining = total - record.sent;
    const n = Math.min(remaining, CHUNK_BYTES);
    const scratch = this.#scratch;
    let at = 1;
    if (record.sent === 0 && n === total) scratch[0] = WHOLE;
    else if (record.sent === 0) {
      scratch[0] = FIRST;
      scratch.writeUInt32BE(total, 1);
      at = 5;
    } else scratch[0] = n === remaining ? LAST : MIDDLE;
    copyRange(record, record.sent, n, scratch, at);
    record.sent += n;
    const plaintext = scratch.subarray(0, at + n);
    const frame = Buffer.allocUnsafe(LENGTH_BYTES + plaintext.length + AEAD_TAG_BYTES);
    frame.writeUInt32BE(plaintext.length + AEAD_TAG_BYTES, 0);
    setCounter(this.#nonce, this.#counter++);
    aeadSeal(frame.subarray(LENGTH_BYTES), plaintext, this.#nonce, this.#key);
    return frame;
  }
}

/** Copies bytes `[from, from + n)` of `head ‖ tail` into `out` at `at`. */
function copyRange(record: OutgoingRecord, from: number, n: number, out: Buffer, at: number): void {
  const { head, tail } = record;
  if (from < head.length) {
    const used = Math.min(n, head.length - from);
    head.copy(out, at, from, from + used);
    at += used;
    n -= used;
    from = 0;
  } else from -= head.length;
  if (n > 0 && tail !== null) out.set(tail.subarray(from, from + n), at);
}

/** The other direction's state: its key, the frames opened so far, and a record being gathered. */
export class FrameOpener {
  readonly #key: Uint8Array;
  readonly #nonce = Buffer.alloc(AEAD_NONCE_BYTES);
  readonly #maxRecord: number;
  #counter = 0;
  /** The record being gathered from pieces, and how much of it has arrived. */
  #gathering: Buffer | null = null;
  #gathered = 0;

  /** `maxRecord`: the largest record this peer may send (its snapshot images included). */
  constructor(key: Uint8Array, maxRecord: number) {
    this.#key = key;
    this.#maxRecord = maxRecord;
  }

  /**
   * Opens the next sealed frame: a complete record, null when the record continues in later
   * frames, or an error (the frame did not open or broke the piece rules; close the link).
   */
  open(frame: Buffer): { record: Buffer } | { error: string } | null {
    if (frame.length < 1 + AEAD_TAG_BYTES) return { error: "a sealed frame too short to hold anything" };
    const plaintext = Buffer.allocUnsafe(frame.length - AEAD_TAG_BYTES);
    setCounter(this.#nonce, this.#counter);
    if (!aeadOpen(plaintext, frame, this.#nonce, this.#key)) return { error: "a frame that does not open (altered, replayed, reordered or forged)" };
    this.#counter++;
    const piece = plaintext[0];
    if (piece === WHOLE) {
      if (this.#gathering !== null) return { error: "a whole record inside a split one" };
      if (plaintext.length - 1 > this.#maxRecord) return { error: `a record of ${plaintext.length - 1} bytes (at most ${this.#maxRecord})` };
      return { record: plaintext.subarray(1) };
    }
    if (piece === FIRST) {
      if (this.#gathering !== null || plaintext.length < 5) return { error: "a misplaced first piece" };
      const total = plaintext.readUInt32BE(1);
      if (total > this.#maxRecord) return { error: `a record of ${total} bytes (at most ${this.#maxRecord})` };
      if (total <= plaintext.length - 5) return { error: "a split record that fits in one frame" };
      this.#gathering = Buffer.allocUnsafe(total);
      this.#gathered = plaintext.copy(this.#gathering, 0, 5);
      return null;
    }
    if (piece !== MIDDLE && piece !== LAST) return { error: `an unknown piece marker ${piece}` };
    const gathering = this.#gathering;
    if (gathering === null) return { error: "a piece without a first piece" };
    const n = plaintext.length - 1;
    const left = gathering.length - this.#gathered;
    if (piece === MIDDLE ? n >= left : n !== left) return { error: "pieces that do not add up to the announced record length" };
    this.#gathered += plaintext.copy(gathering, this.#gathered, 1);
    if (piece === MIDDLE) return null;
    this.#gathering = null;
    this.#gathered = 0;
    return { record: gathering };
  }
}

/** A record waiting to be sealed: `head` (type, id or lengths, JSON) then `tail` (an attachment). */
export interface OutgoingRecord {
  readonly head: Buffer;
  readonly tail: Uint8Array | null;
  /** How many of its bytes have been sealed. */
  sent: number;
}

/** What a record carries; JSON stays text here (the transport parses it). */
export type PeerRecord =
  | { readonly type: "message"; readonly json: string; readonly attachment: Uint8Array | null }
  | { readonly type: "request"; readonly id: number; readonly json: string }
  | { readonly type: "reply"; readonly id: number; readonly json: string }
  | { readonly type: "failure"; readonly id: number; readonly json: string }
  | { readonly type: "ping" }
  | { readonly type: "pong" };

// The first byte of a record.
const TYPE_MESSAGE = 0x4d; //    M  json
const TYPE_ATTACHED = 0x41; //   A  u32 json length, json, attachment
const TYPE_REQUEST = 0x51; //    Q  u32 id, json
const TYPE_REPLY = 0x52; //      R  u32 id, json value
const TYPE_FAILURE = 0x45; //    E  u32 id, json string
const TYPE_PING = 0x50; //       P
const TYPE_PONG = 0x4f; //       O

/** A record ready to queue. The attachment is not copied: it must not change until it is sealed. */
export function encodeRecord(record: PeerRecord): OutgoingRecord {
  switch (record.type) {
    case "message": {
      if (record.attachment === null) return outgoing(prefixed(TYPE_MESSAGE, null, record.json), null);
      return outgoing(prefixed(TYPE_ATTACHED, Buffer.byteLength(record.json, "utf8"), record.json), record.attachment);
    }
    case "request":
      return outgoing(prefixed(TYPE_REQUEST, record.id, record.json), null);
    case "reply":
      return outgoing(prefixed(TYPE_REPLY, record.id, record.json), null);
    case "failure":
      return outgoing(prefixed(TYPE_FAILURE, record.id, record.json), null);
    case "ping":
      return outgoing(Buffer.of(TYPE_PING), null);
    case "pong":
      return outgoing(Buffer.of(TYPE_PONG), null);
    default: {
      const never: never = record;
      throw new Error(`unknown record ${JSON.stringify(never)}`);
    }
  }
}

/** The record in an opened frame's bytes, or why they are not one. */
export function decodeRecord(bytes: Buffer): PeerRecord | { readonly error: string } {
  const type = bytes[0];
  if (type === TYPE_MESSAGE) return { type: "message", json: bytes.toString("utf8", 1), attachment: null };
  if (type === TYPE_PING || type === TYPE_PONG) {
    if (bytes.length !== 1) return { error: "a ping or pong with a body" };
    return { type: type === TYPE_PING ? "ping" : "pong" };
  }
  if (bytes.length < 5) return { error: "a record too short for its type" };
  const n = bytes.readUInt32BE(1);
  if (type === TYPE_ATTACHED) {
    if (n > bytes.length - 5) return { error: "an attachment header longer than its record" };
    return { type: "message", json: bytes.toString("utf8", 5, 5 + n), attachment: bytes.subarray(5 + n) };
  }
  const json = bytes.toString("utf8", 5);
  if (type === TYPE_REQUEST) return { type: "request", id: n, json };
  if (type === TYPE_REPLY) return { type: "reply", id: n, json };
  if (type === TYPE_FAILURE) return { type: "failure", id: n, json };
  return { error: `an unknown record type ${type ?? "(empty)"}` };
}

/** The type byte, an optional u32 and the JSON text, in one buffer. */
function prefixed(type: number, n: number | null, json: string): Buffer {
  const at = n === null ? 1 : 5;
  const head = Buffer.allocUnsafe(at + Buffer.byteLength(json, "utf8"));
  head[0] = type;
  if (n !== null) head.writeUInt32BE(n, 1);
  head.write(json, at, "utf8");
  return head;
}

function outgoing(head: Buffer, tail: Uint8Array | null): OutgoingRecord {
  return { head, tail, sent: 0 };
}

/** A record's size in bytes once encoded. */
export function recordBytes(record: OutgoingRecord): number {
  return record.head.length + (record.tail?.length ?? 0);
}
