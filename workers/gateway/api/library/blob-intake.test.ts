import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { PassThrough, Readable } from "node:stream";
import { describe, it } from "node:test";
import { BlobCut, intake, type IntakeOptions } from "./blob-intake.ts";

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A sink keeping what it is given, each call settling when `gate` says (at once by default). */
function collector(gate: () => Promise<void> = () => Promise.resolve()) {
  const parts: Buffer[] = [];
  let busy = 0;
  let mostBusy = 0;
  const seen = new Set<Buffer>();
  const sink = async (slot: Buffer, length: number) => {
    seen.add(slot);
    busy += 1;
    mostBusy = Math.max(mostBusy, busy);
    parts.push(Buffer.from(slot.subarray(0, length)));
    await gate();
    busy -= 1;
    return slot;
  };
  return { sink, bytes: () => Buffer.concat(parts), mostBusy: () => mostBusy, slots: () => seen.size, seen: () => seen, lengths: () => parts.map((p) => p.length) };
}

const options = (sink: IntakeOptions["sink"], more: Partial<IntakeOptions> = {}): IntakeOptions => ({ sink, slot: () => Buffer.alloc(10), slots: 2, check: () => {}, releaseChunks: false, ...more });

describe("intake", () => {
  it("copies chunks of any size into full slots, in order, and the last one partly filled", async () => {
    const data = randomBytes(57);
    const chunks = [data.subarray(0, 3), data.subarray(3, 25), data.subarray(25, 26), data.subarray(26)];
    const got = collector();
    assert.equal(await intake(Readable.from(chunks), options(got.sink)), 57);
    assert.deepEqual(got.bytes(), data);
    assert.deepEqual(got.lengths(), [10, 10, 10, 10, 10, 7]);
  });

  it("holds at most its slots: a slow sink pauses the source until one is free", async () => {
    const data = randomBytes(200);
    const source = new PassThrough({ highWaterMark: 16 });
    let open: (() => void)[] = [];
    const got = collector(() => new Promise((resolve) => open.push(resolve)));
    const taking = intake(source, options(got.sink));
    for (let at = 0; at < data.length; at += 7) source.write(data.subarray(at, at + 7));
    source.end();
    await tick();
    assert.equal(got.mostBusy(), 2);
    assert.equal(source.isPaused(), true, "paused while both slots are in the sink");
    while (open.length > 0) {
      const now = open;
      open = [];
      for (const resolve of now) resolve();
      await tick();
    }
    assert.equal(await taking, 200);
    assert.deepEqual(got.bytes(), data);
    assert.equal(got.slots(), 2, "the same two slots all along");
    assert.equal(got.mostBusy(), 2);
    assert.deepEqual(
      [...got.seen()].map((s) => s.buffer.byteLength),
      [0, 0],
      "freed at the end",
    );
  });

  it("frees a chunk that spans its own memory once copied, only when asked, and never part of a larger one", async () => {
    const own = Buffer.from(new Uint8Array([1, 2, 3, 4]).buffer);
    const part = Buffer.from(new Uint8Array([5, 6, 7, 8, 9, 10]).buffer, 0, 3);
    const kept = Buffer.from([11, 12]);
    const keptMemory = kept.buffer.byteLength;
    const got = collector();
    await intake(Readable.from([own, part]), options(got.sink, { releaseChunks: true }));
    assert.deepEqual([...got.bytes()], [1, 2, 3, 4, 5, 6, 7]);
    assert.equal(own.buffer.byteLength, 0, "freed");
    assert.equal(own.length, 0);
    assert.equal(part.buffer.byteLength, 6, "a view of a larger buffer is left alone");
    await intake(Readable.from([kept]), options(collector().sink));
    assert.equal(kept.buffer.byteLength, keptMemory, "not asked: left alone");
  });

  it("a refusal stops it with the check's error, once the sink is done, and leaves the source open and paused", async () => {
    const source = new PassThrough();
    let sinking = 0;
    const got = collector(async () => {
      sinking += 1;
      await tick();
      sinking -= 1;
    });
    const taking = intake(source, options(got.sink, { check: (size) => assert.ok(size <= 25, "too long") }));
    source.write(randomBytes(20));
    source.write(randomBytes(20));
    await assert.rejects(taking, /too long/);
    assert.equal(sinking, 0, "no slot still in the sink");
    assert.equal(source.destroyed, false);
    assert.equal(source.isPaused(), true);
  });

  it("a source that fails or closes before its end is a cut; an abort gives the signal's reason", async () => {
    const failing = new PassThrough();
    const failed = intake(failing, options(collector().sink));
    failing.write(randomBytes(15));
    failing.destroy(new Error("reset"));
    await assert.rejects(failed, (e: unknown) => e instanceof BlobCut);

    const closing = new PassThrough();
    const closed = intake(closing, options(collector().sink));
    closing.destroy();
    await assert.rejects(closed, (e: unknown) => e instanceof BlobCut);

    const idle = new AbortController();
    const waiting = intake(new PassThrough(), options(collector().sink, { signal: idle.signal }));
    idle.abort(new Error("paused too long"));
    await assert.rejects(waiting, /paused too long/);
  });

  it("a sink that fails stops it with the sink's error", async () => {
    const data = randomBytes(100);
    const taking = intake(Readable.from([data]), options(() => Promise.reject(Object.assign(new Error("no space"), { code: "ENOSPC" }))));
    await assert.rejects(taking, (e: unknown) => (e as NodeJS.ErrnoException).code === "ENOSPC");
  });
});
