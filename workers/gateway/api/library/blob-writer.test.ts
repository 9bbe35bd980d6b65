import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { BlobWriter, IN_PROCESS_BYTES } from "./blob-writer.ts";

const dir = mkdtempSync(join(tmpdir(), "charter-blob-writer-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
let files = 0;
const file = () => open(join(dir, `f${++files}`), "wx");

/** Writes `data` through `job` one slot at a time, reusing the slot each write answers. */
async function writeAll(job: ReturnType<BlobWriter["job"]>, data: Buffer, slotBytes = 1024 * 1024): Promise<void> {
  let slot: Buffer = Buffer.allocUnsafeSlow(slotBytes);
  for (let at = 0; at < data.length; at += slotBytes) {
    const n = data.copy(slot, 0, at);
    slot = await job.write(slot, n);
  }
}

describe("BlobWriter", () => {
  it("hashes and writes a large upload on its thread, slot after slot, each slot's memory handed back", async () => {
    const writer = new BlobWriter();
    const data = randomBytes(3 * 1024 * 1024 + 5);
    const opened = file();
    const job = writer.job(opened, null);
    const slot = Buffer.allocUnsafeSlow(1024 * 1024);
    data.copy(slot, 0, 0);
    const back = await job.write(slot, slot.length);
    assert.equal(slot.length, 0, "moved to the thread, not copied");
    assert.equal(back.length, 1024 * 1024);
    await writeAll(job, data.subarray(1024 * 1024));
    assert.equal(await job.digest(), sha(data));
    await (await opened).close();
    assert.ok(readFileSync(join(dir, `f${files}`)).equals(data));
    await writer.close();
  });

  it("keeps jobs apart, and does a small declared upload from the event loop", async () => {
    const writer = new BlobWriter();
    const a = randomBytes(3000);
    const b = randomBytes(5000);
    const [fa, fb, fc] = [file(), file(), file()];
    const ja = writer.job(fa, IN_PROCESS_BYTES + 1);
    const jb = writer.job(fb, null);
    await Promise.all([writeAll(ja, a, 1024), writeAll(jb, b, 1024)]);
    assert.deepEqual(await Promise.all([ja.digest(), jb.digest()]), [sha(a), sha(b)]);
    const small = writer.job(fc, 10);
    const slot = Buffer.from("hello blobs!");
    assert.equal(await small.write(slot, 10), slot, "the same slot: no thread");
    assert.equal(await small.digest(), sha(Buffer.from("hello blob")));
    for (const f of [fa, fb, fc]) await (await f).close();
    assert.equal(readFileSync(join(dir, `f${files}`), "utf8"), "hello blob");
    await writer.close();
  });

  it("a write that fails answers its errno code; a dropped job ends; a stopped thread fails its jobs and the next job starts another", async () => {
    const writer = new BlobWriter();
    const readOnly = open(join(dir, `f${files}`), "r");
    const failing = writer.job(readOnly, null);
    await assert.rejects(failing.write(Buffer.allocUnsafeSlow(16), 16), (e: NodeJS.ErrnoException) => e.code === "EBADF");
    failing.drop();
    await assert.rejects(failing.digest(), /ended/);
    await (await readOnly).close();
    const opened = file();
    const cut = writer.job(opened, null);
    await writer.close();
    await assert.rejects(cut.write(Buffer.allocUnsafeSlow(1), 1), /ended|closed/);
    const next = writer.job(opened, null);
    await next.write(Buffer.from(new Uint8Array([122]).buffer), 1);
    assert.equal(await next.digest(), sha(Buffer.from("z")));
    await (await opened).close();
    await writer.close();
  });
});
