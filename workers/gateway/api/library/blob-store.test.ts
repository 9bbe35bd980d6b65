import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { after, describe, it } from "node:test";
import { BlobCut, BlobRefused, BlobStore } from "./blob-store.ts";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function store(options: Partial<{ quotaBytes: number; graceMs: number; now: () => number }> = {}): { blobs: BlobStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "charter-blobs-"));
  dirs.push(dir);
  return { blobs: new BlobStore({ dir, quotaBytes: options.quotaBytes ?? 0, reserveBytes: 0, graceMs: options.graceMs ?? 1000, ...(options.now ? { now: options.now } : {}) }), dir };
}

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("BlobStore", () => {
  it("stores bytes under their digest, once however often they come", async () => {
    const { blobs, dir } = store();
    const bytes = Buffer.from("hello blobs");
    const first = await blobs.put(Readable.from([bytes.subarray(0, 5), bytes.subarray(5)]), { maxBytes: 100, declared: bytes.length });
    first.release();
    assert.equal(first.sha256, sha(bytes));
    assert.equal(first.size, bytes.length);
    assert.equal(first.created, true);
    const again = await blobs.put(Readable.from([bytes]), { maxBytes: 100, declared: null });
    again.release();
    assert.equal(again.created, false);
    assert.equal(blobs.size(first.sha256), bytes.length);
    assert.deepEqual(readdirSync(join(dir, first.sha256.slice(0, 2))), [first.sha256]);
    assert.deepEqual(readdirSync(join(dir, "tmp")), [], "nothing left half written");
    assert.equal(blobs.usedBytes(), bytes.length);
  });

  it("streams a large upload through its slots and the hashing thread, and leaves the caller's chunks whole", async () => {
    const { blobs, dir } = store();
    const bytes = randomBytes(5 * 1024 * 1024 + 3);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => Buffer.from(bytes.subarray(i * 65536, (i + 1) * 65536)));
    const stored = await blobs.put(Readable.from(chunks), { maxBytes: bytes.length, declared: bytes.length });
    stored.release();
    assert.equal(stored.sha256, sha(bytes));
    assert.ok(readFileSync(blobs.path(stored.sha256)).equals(bytes));
    assert.ok(Buffer.concat(chunks).equals(bytes), "not asked to free them: left whole");
    const again = await blobs.put(Readable.from(chunks), { maxBytes: bytes.length, declared: null });
    again.release();
    assert.deepEqual([again.sha256, again.created], [stored.sha256, false]);
    assert.deepEqual(readdirSync(join(dir, "tmp")), []);
    await blobs.close();
  });

  it("refuses a body over the limit or longer or shorter than declared, and keeps nothing of it", async () => {
    const { blobs, dir } = store();
    await assert.rejects(blobs.put(Readable.from([Buffer.alloc(50)]), { maxBytes: 10, declared: 50 }), (e: unknown) => e instanceof BlobRefused && e.status === 413);
    await assert.rejects(blobs.put(Readable.from([Buffer.alloc(20)]), { maxBytes: 10, declared: null }), (e: unknown) => e instanceof BlobRefused && e.status === 413);
    await assert.rejects(blobs.put(Readable.from([Buffer.alloc(8)]), { maxBytes: 10, declared: 5 }), (e: unknown) => e instanceof BlobRefused && e.status === 413);
    await assert.rejects(blobs.put(Readable.from([Buffer.alloc(3)]), { maxBytes: 10, declared: 5 }), (e: unknown) => e instanceof BlobRefused && e.status === 413);
    assert.deepEqual(
      readdirSync(dir).filter((n) => n !== "tmp"),
      [],
    );
    assert.deepEqual(readdirSync(join(dir, "tmp")), []);
  });

  it("a source that stops before its end stores nothing, and the source is left open to answer on", async () => {
    const { blobs, dir } = store();
    const source = new PassThrough();
    const put = blobs.put(source, { maxBytes: 1000, declared: 100 });
    source.write(Buffer.alloc(40));
    setImmediate(() => source.destroy(new Error("aborted")));
    await assert.rejects(put, (e: unknown) => e instanceof BlobCut);
    assert.deepEqual(readdirSync(join(dir, "tmp")), []);
  });

  it("keeps the library within its quota", async () => {
    const { blobs } = store({ quotaBytes: 100 });
    (await blobs.put(Readable.from([Buffer.alloc(60, 1)]), { maxBytes: 1000, declared: 60 })).release();
    await assert.rejects(blobs.put(Readable.from([Buffer.alloc(60, 2)]), { maxBytes: 1000, declared: 60 }), (e: unknown) => e instanceof BlobRefused && e.status === 507 && e.code === "library-full");
    // Undeclared: refused once it goes over (checked every 64 MiB, and at the start).
    (await blobs.put(Readable.from([Buffer.alloc(30, 3)]), { maxBytes: 1000, declared: null })).release();
    assert.equal(blobs.usedBytes(), 90);
  });

  it("sweeps what nothing refers to once its grace is over, never a held blob", async () => {
    let now = Date.now();
    const { blobs } = store({ graceMs: 10_000, now: () => now });
    const a = await blobs.put(Readable.from([Buffer.from("a")]), { maxBytes: 10, declared: 1 });
    a.release();
    const b = await blobs.put(Readable.from([Buffer.from("b")]), { maxBytes: 10, declared: 1 });
    b.release();
    assert.deepEqual(blobs.sweep(() => false), { removed: 0, bytes: 0 }, "within the grace period");
    now += 20_000;
    const past = new Date(now - 15_000);
    utimesSync(blobs.path(a.sha256), past, past);
    utimesSync(blobs.path(b.sha256), past, past);
    const held = blobs.hold(b.sha256);
    assert.deepEqual(blobs.sweep((s) => s === "f".repeat(64)), { removed: 1, bytes: 1 });
    assert.equal(blobs.size(a.sha256), null);
    assert.equal(blobs.size(b.sha256), 1, "held by a reader");
    held();
    assert.deepEqual(blobs.sweep((s) => s === b.sha256), { removed: 0, bytes: 0 }, "referred to");
    assert.deepEqual(blobs.sweep(() => false), { removed: 1, bytes: 1 });
  });

  it("removes what a crash left half written when it opens", () => {
    const { dir } = store();
    mkdirSync(join(dir, "tmp"), { recursive: true });
    writeFileSync(join(dir, "tmp", "abc.part"), "half");
    new BlobStore({ dir, quotaBytes: 0, reserveBytes: 0, graceMs: 0 });
    assert.equal(existsSync(join(dir, "tmp", "abc.part")), false);
  });
});
