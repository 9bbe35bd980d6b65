import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import {
  CHUNK_BYTES, decodeRecord, encodeRecord, FrameOpener, FrameReader, FrameSealer, HANDSHAKE_FRAME_LIMIT, handshakeFrame,
  LENGTH_BYTES, type PeerRecord, recordBytes, SEALED_FRAME_LIMIT,
} from "./peer-frames.ts";

/** Reads every frame out of `bytes`, fed in pieces of `step` bytes. */
function readAll(reader: FrameReader, bytes: Buffer, step: number): { frames: Buffer[]; error: string | null } {
  const frames: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += step) {
    const error = reader.feed(bytes.subarray(at, at + step), (frame) => (frames.push(Buffer.from(frame)), true));
    if (error !== null) return { frames, error };
  }
  return { frames, error: null };
}

/** Every sealed frame of `record`, each without its length prefix (as the reader hands them on). */
function seal(sealer: FrameSealer, record: PeerRecord): Buffer[] {
  const outgoing = encodeRecord(record);
  const frames: Buffer[] = [];
  while (outgoing.sent < recordBytes(outgoing)) frames.push(sealer.sealNext(outgoing).subarray(LENGTH_BYTES));
  if (frames.length === 0) frames.push(sealer.sealNext(outgoing).subarray(LENGTH_BYTES));
  return frames;
}

/** Opens frames in order: the records completed, or the first error. */
function open(opener: FrameOpener, frames: Buffer[]): { records: PeerRecord[]; error: string | null } {
  const records: PeerRecord[] = [];
  for (const frame of frames) {
    const opened = opener.open(frame);
    if (opened === null) continue;
    if ("error" in opened) return { records, error: opened.error };
    const record = decodeRecord(opened.record);
    if ("error" in record) return { records, error: record.error };
    records.push(record);
  }
  return { records, error: null };
}

const key = () => randomBytes(32);

describe("peer frames", () => {
  it("cuts a stream into frames however it arrives", () => {
    const frames = [Buffer.from("hello"), Buffer.alloc(0), randomBytes(3000), Buffer.from("x")];
    const stream = Buffer.concat(frames.map((f) => handshakeFrame(f)));
    for (const step of [1, 3, 7, 1000, stream.length]) {
      const { frames: got, error } = readAll(new FrameReader(HANDSHAKE_FRAME_LIMIT), stream, step);
      assert.equal(error, null);
      assert.deepEqual(got, frames);
    }
  });

  it("issue 16 #5: refuses a 512 MiB length before authentication as soon as the prefix arrives, holding nothing", () => {
    const reader = new FrameReader(HANDSHAKE_FRAME_LIMIT);
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(512 * 1024 * 1024);
    let delivered = 0;
    const error = reader.feed(prefix, () => (delivered++, true));
    assert.match(error ?? "", /a frame of 536870912 bytes \(at most 4096/);
    assert.equal(delivered, 0);
    assert.equal(reader.buffered, 0);
    // One byte over the limit is refused too; the limit itself is not.
    const over = Buffer.alloc(4);
    over.writeUInt32BE(HANDSHAKE_FRAME_LIMIT + 1);
    assert.notEqual(new FrameReader(HANDSHAKE_FRAME_LIMIT).feed(over, () => true), null);
    assert.equal(readAll(new FrameReader(HANDSHAKE_FRAME_LIMIT), handshakeFrame(Buffer.alloc(HANDSHAKE_FRAME_LIMIT)), 100).error, null);
  });

  it("issue 16 #5: applies a raised limit from the next frame on (the handshake's last frame and sealed frames arrive together)", () => {
    const reader = new FrameReader(HANDSHAKE_FRAME_LIMIT);
    const stream = Buffer.concat([handshakeFrame(Buffer.from("proof")), handshakeFrame(Buffer.alloc(100_000))]);
    const sizes: number[] = [];
    const error = reader.feed(stream, (frame) => {
      sizes.push(frame.length);
      reader.limit = SEALED_FRAME_LIMIT;
      return true;
    });
    assert.equal(error, null);
    assert.deepEqual(sizes, [5, 100_000]);
    const tooBig = Buffer.alloc(4);
    tooBig.writeUInt32BE(SEALED_FRAME_LIMIT + 1);
    assert.match(reader.feed(tooBig, () => true) ?? "", /at most/);
  });

  it("seals and opens every kind of record, small and split across frames", () => {
    const k = key();
    const sealer = new FrameSealer(k);
    const opener = new FrameOpener(k, 64 * 1024 * 1024);
    const image = randomBytes(3 * CHUNK_BYTES + 123);
    const records: PeerRecord[] = [
      { type: "message", json: JSON.stringify({ type: "append-entries", text: "héllo ✓" }), attachment: null },
      { type: "message", json: "{}", attachment: image },
      { type: "message", json: JSON.stringify({ big: "x".repeat(CHUNK_BYTES * 2) }), attachment: null },
      { type: "message", json: "{}", attachment: new Uint8Array(0) },
      { type: "message", json: "{}", attachment: randomBytes(CHUNK_BYTES - 7) }, // exactly one frame's worth with its header
      { type: "request", id: 7, json: "{\"op\":1}" },
      { type: "reply", id: 0xffff_ffff, json: "null" },
      { type: "failure", id: 3, json: "\"no\"" },
      { type: "ping" },
      { type: "pong" },
    ];
    const frames = records.flatMap((r) => seal(sealer, r));
    assert.ok(frames.every((f) => f.length <= SEALED_FRAME_LIMIT));
    assert.ok(frames.length === records.length + 5, "the image and the long body went as several frames");
    const { records: got, error } = open(opener, frames);
    assert.equal(error, null);
    assert.equal(got.length, records.length);
    for (let i = 0; i < records.length; i++) {
      const want = records[i] as PeerRecord;
      const have = got[i] as PeerRecord;
      if (want.type === "message" && have.type === "message") {
        assert.equal(have.json, want.json);
        assert.equal(have.attachment === null, want.attachment === null);
        if (want.attachment !== null) assert.ok(Buffer.from(have.attachment as Uint8Array).equals(Buffer.from(want.attachment)));
      } else assert.deepEqual(have, want);
    }
  });

  it("issue 16 #6: rejects a frame with any one bit flipped, and delivers nothing of its record", () => {
    const k = key();
    const frames = seal(new FrameSealer(k), { type: "message", json: "{\"a\":1}", attachment: randomBytes(2 * CHUNK_BYTES) });
    assert.equal(frames.length, 3);
    for (const [frameIndex, byte] of [[0, 0], [1, 17], [2, -1]] as const) {
      const tampered = frames.map((f) => Buffer.from(f));
      const frame = tampered[frameIndex] as Buffer;
      const at = byte < 0 ? frame.length + byte : byte;
      frame[at] = (frame[at] as number) ^ 0x01;
      const { records, error } = open(new FrameOpener(k, 64 * 1024 * 1024), tampered);
      assert.deepEqual(records, []);
      assert.match(error ?? "", /does not open/);
    }
  });

  it("issue 16 #6: rejects a replayed, reordered, dropped or foreign frame", () => {
    const k = key();
    const sealer = new FrameSealer(k);
    const [f1, f2, f3] = ["1", "2", "3"].map((n) => seal(sealer, { type: "message", json: n, attachment: null })[0] as Buffer) as [Buffer, Buffer, Buffer];
    const cases: [string, Buffer[], number][] = [
      ["replayed", [f1, f1], 1],
      ["replayed later", [f1, f2, f1], 2],
      ["reordered", [f2, f1], 0],
      ["dropped", [f1, f3], 1],
      ["from another link", [seal(new FrameSealer(key()), { type: "message", json: "1", attachment: null })[0] as Buffer], 0],
    ];
    for (const [what, frames, delivered] of cases) {
      const { records, error } = open(new FrameOpener(k, 1024), frames);
      assert.equal(records.length, delivered, what);
      assert.match(error ?? "", /does not open/, what);
    }
  });

  it("issue 16 #6: delivers nothing of a split record whose last pieces never come", () => {
    const k = key();
    const frames = seal(new FrameSealer(k), { type: "message", json: "{}", attachment: randomBytes(3 * CHUNK_BYTES) });
    const { records, error } = open(new FrameOpener(k, 64 * 1024 * 1024), frames.slice(0, -1));
    assert.deepEqual(records, []);
    assert.equal(error, null);
  });

  it("issue 16 #5: refuses a record above the peer's limit at its first piece, before gathering it", () => {
    const k = key();
    const frames = seal(new FrameSealer(k), { type: "message", json: "{}", attachment: randomBytes(CHUNK_BYTES + 1) });
    const opener = new FrameOpener(k, CHUNK_BYTES);
    const first = opener.open(frames[0] as Buffer);
    assert.ok(first !== null && "error" in first);
    assert.match(first.error, /a record of \d+ bytes \(at most 262144\)/);
    const whole = seal(new FrameSealer(k), { type: "message", json: "\"0123456789\"", attachment: null });
    const small = new FrameOpener(k, 8).open(whole[0] as Buffer);
    assert.ok(small !== null && "error" in small);
  });

  it("refuses records that break the format", () => {
    for (const bytes of [Buffer.alloc(0), Buffer.from("Z{}"), Buffer.from("Q12"), Buffer.from("P!"), Buffer.from([0x41, 0, 0, 0, 9, 0x7b, 0x7d])]) {
      assert.ok("error" in decodeRecord(bytes), JSON.stringify(bytes.toString("latin1")));
    }
  });
});
