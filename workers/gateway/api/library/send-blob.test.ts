import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { contentDisposition, inlineAllowed, rangeOf, sendBlob } from "./send-blob.ts";
import { contentType, fileName, fileTags } from "./file-input.ts";

describe("byte ranges", () => {
  it("reads one range of each form and ignores what it does not understand", () => {
    assert.deepEqual(rangeOf(undefined, 100), { kind: "all" });
    assert.deepEqual(rangeOf("bytes=0-9", 100), { kind: "range", start: 0, end: 9 });
    assert.deepEqual(rangeOf("bytes=90-", 100), { kind: "range", start: 90, end: 99 });
    assert.deepEqual(rangeOf("bytes=-5", 100), { kind: "range", start: 95, end: 99 });
    assert.deepEqual(rangeOf("bytes=-500", 100), { kind: "range", start: 0, end: 99 });
    assert.deepEqual(rangeOf("bytes=50-5000", 100), { kind: "range", start: 50, end: 99 });
    assert.deepEqual(rangeOf("bytes=100-", 100), { kind: "unsatisfiable" });
    assert.deepEqual(rangeOf("bytes=-0", 100), { kind: "unsatisfiable" });
    assert.deepEqual(rangeOf("bytes=0-0", 0), { kind: "unsatisfiable" });
    for (const ignored of ["bytes=0-1,5-6", "items=0-1", "bytes=9-1", "bytes=a-b", "bytes=-", `bytes=${"9".repeat(40)}-`]) assert.deepEqual(rangeOf(ignored, 100), { kind: "all" }, ignored);
  });
});

describe("what is served inline", () => {
  it("never a document a browser would run scripts in", () => {
    for (const t of ["text/html", "text/html; charset=utf-8", "image/svg+xml", "application/xhtml+xml", "text/xml", "application/xml", "application/rss+xml"]) assert.equal(inlineAllowed(t), false, t);
    for (const t of ["image/png", "application/pdf", "text/plain; charset=utf-8", "video/mp4"]) assert.equal(inlineAllowed(t), true, t);
  });
  it("names the file exactly, with an ASCII fallback", () => {
    assert.equal(contentDisposition("attachment", 'Zoë "x".pdf'), `attachment; filename="Zo_ _x_.pdf"; filename*=UTF-8''Zo%C3%AB%20%22x%22.pdf`);
  });
});

describe("file names, tags and types", () => {
  it("refuses paths, control characters and overlong names", () => {
    for (const bad of [undefined, "", "  ", "../x", "a/b", "a\\b", ".", "..", "a\u0000b", "a\nb", "x".repeat(256)]) assert.equal(fileName(bad).ok, false, JSON.stringify(bad));
    assert.deepEqual(fileName("Report 2026 — final.pdf"), { ok: true, value: "Report 2026 — final.pdf" });
  });
  it("reads tags from a list or a comma-separated text", () => {
    assert.deepEqual(fileTags("a, b,a"), { ok: true, value: ["a", "b"] });
    assert.deepEqual(fileTags(""), { ok: true, value: [] });
    assert.equal(fileTags([1]).ok, false);
    assert.equal(fileTags("x".repeat(41)).ok, false);
    assert.equal(fileTags(Array.from({ length: 21 }, (_, i) => `t${i}`)).ok, false);
  });
  it("keeps a content type's essence and charset only", () => {
    assert.equal(contentType(undefined), "application/octet-stream");
    assert.equal(contentType("Text/Plain; Charset=UTF-8; x=y"), "text/plain; charset=utf-8");
    assert.equal(contentType("image/png"), "image/png");
    assert.equal(contentType("nonsense"), "application/octet-stream");
    assert.equal(contentType("text/html\r\nX-Evil: 1"), "application/octet-stream");
  });
});

describe("sending a blob over a socket", () => {
  // Over several read buffers and not a whole number of them.
  const bytes = randomBytes(3 * 256 * 1024 + 12_345);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const dir = mkdtempSync(join(tmpdir(), "charter-send-blob-"));
  const path = join(dir, sha256);
  writeFileSync(path, bytes);
  // Larger than what the socket buffers hold, so a client that stops reading stops the sending.
  const large = join(dir, "large");
  writeFileSync(large, Buffer.alloc(64 * 1024 * 1024, 1));
  let done = 0;
  const app = new Hono();
  app.get("/blob", (c) => sendBlob(c, { path, size: bytes.length, sha256, type: "application/octet-stream", name: "b.bin", download: false, immutable: true, done: () => (done += 1) }));
  app.get("/large", (c) => sendBlob(c, { path: large, size: 64 * 1024 * 1024, sha256, type: "application/octet-stream", name: null, download: false, immutable: true, done: () => (done += 1) }));
  const server = createServer(getRequestListener(app.fetch));
  let url = "";
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/blob`;
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Waits up to 5 s for `check` to hold. */
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  const get = (headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: Buffer; headers: Record<string, unknown> }>((resolve, reject) => {
      request(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
      })
        .on("error", reject)
        .end();
    });

  it("sends the whole file, and any range, byte for byte, and says when it is done", async () => {
    const before = done;
    const whole = await get();
    assert.equal(whole.status, 200);
    assert.equal(whole.headers["content-length"], String(bytes.length));
    assert.ok(whole.body.equals(bytes));
    const start = 256 * 1024 - 7;
    const end = 2 * 256 * 1024 + 3;
    const part = await get({ range: `bytes=${start}-${end}` });
    assert.equal(part.status, 206);
    assert.ok(part.body.equals(bytes.subarray(start, end + 1)));
    assert.equal((await get({ range: "bytes=-1" })).body[0], bytes[bytes.length - 1]);
    assert.equal((await get({ "if-none-match": `"${sha256}"` })).status, 304);
    // The server hears its end just after the client has read it: wait for it, briefly.
    await until(() => done - before >= 4);
    assert.equal(done - before, 4, "once per answer");
  });

  it("a client that goes away mid-file ends the sending, and it is still done once", async () => {
    const before = done;
    // Checked once the client went away (a throw inside the timer would leave the test waiting).
    const stillSending = await new Promise<boolean>((resolve, reject) => {
      const req = request(url.replace("/blob", "/large"), (res) => {
        res.once("data", () => {
          res.pause();
          setTimeout(() => {
            const sending = done === before;
            req.destroy();
            resolve(sending);
          }, 100);
        });
      });
      req.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? undefined : reject(e)));
      req.end();
    });
    assert.ok(stillSending, "still sending while the client does not read");
    await until(() => done !== before);
    assert.equal(done - before, 1);
    assert.equal((await get()).body.length, bytes.length, "the server still answers");
  });
});
