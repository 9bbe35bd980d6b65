/**
 * The library on a real `charter node`: a 1 GiB file generated here streams up and back down with
 * its digest checked; ranges, ETags and the headers that keep a stored file from running as a page;
 * the same bytes stored once; a deleted file's blob removed after its grace period (shortened here);
 * an upload cut off, or a gateway killed mid-upload, leaves neither a record nor a blob; and bad
 * input (names that are paths, blob ids that are not digests, bodies over the limit) is refused
 * with nothing stored.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { ApiClient, createAccount, printedSetupCode } from "./helpers/api-client.ts";
import { type Charter, cleanup, lockOf, processState, sleep, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";

const MiB = 1024 * 1024;

/** `total` bytes of pseudo-random data made on the fly (1 MiB of random bytes, each copy changed), and their digest when read. */
function generated(total: number, chunk = MiB): { stream: Readable; digest: () => string } {
  const base = randomBytes(chunk);
  const hash = createHash("sha256");
  let sent = 0;
  const stream = new Readable({
    read() {
      if (sent >= total) return void this.push(null);
      const n = Math.min(chunk, total - sent);
      const piece = Buffer.from(base.subarray(0, n));
      piece.writeUInt32LE(sent / chunk, 0);
      sent += n;
      hash.update(piece);
      this.push(piece);
    },
  });
  return { stream, digest: () => hash.digest("hex") };
}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

describe("the library: files and blobs", () => {
  let node: Charter;
  let api: ApiClient;
  let cookie = "";
  const blobsDir = () => join(node.dataDir, "blobs");
  const blobFiles = () =>
    readdirSync(blobsDir())
      .filter((d) => /^[0-9a-f]{2}$/.test(d))
      .flatMap((d) => readdirSync(join(blobsDir(), d)));

  /** Sends `body` (a stream or bytes) as an upload and answers the raw answer. */
  function upload(query: string, body: Readable | Buffer, headers: Record<string, string> = {}): Promise<Raw> {
    const url = new URL(`${node.url}/api/library?${query}`);
    return new Promise((resolve, reject) => {
      const req = request(url, { method: "POST", headers: { cookie, origin: api.origin, "content-type": "application/octet-stream", ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on("error", reject);
      if (Buffer.isBuffer(body)) req.end(body);
      else body.pipe(req);
    });
  }

  /** A GET whose body is hashed as it streams, never held (for the large file), or kept (small ones). */
  function download(path: string, headers: Record<string, string> = {}, keep = true): Promise<Raw & { sha256: string; length: number }> {
    return new Promise((resolve, reject) => {
      const req = request(new URL(`${node.url}${path}`), { headers: { cookie, ...headers } }, (res) => {
        const hash = createHash("sha256");
        const chunks: Buffer[] = [];
        let length = 0;
        res.on("data", (c: Buffer) => {
          hash.update(c);
          length += c.length;
          if (keep) chunks.push(c);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), sha256: hash.digest("hex"), length }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  const json = (raw: Raw) => JSON.parse(raw.body.toString("utf8")) as Record<string, unknown> & { id: string; sha256: string; size: number };

  before(async () => {
    node = await startCharter({ edition: "node", args: ["--upload-limit", String(1100 * MiB)], env: { CHARTER_BLOB_GRACE_MS: "300" } });
    api = new ApiClient(node);
    ({ cookie } = await createAccount(api, printedSetupCode(node)));
    await waitFor("std.library in the personal tenant", async () => ((await api.call("GET", "/api/library", { cookie })).status === 200 ? true : undefined), 20_000);
  });
  after(async () => {
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("a 1 GiB file streams up and back down whole, its digest checked both ways", async () => {
    const file = generated(1024 * MiB);
    const up = await upload("name=big.bin&tags=test,large", file.stream, { "content-length": String(1024 * MiB) });
    assert.equal(up.status, 201, up.body.toString());
    const stored = json(up);
    assert.equal(stored.sha256, file.digest());
    assert.equal(stored.size, 1024 * MiB);
    assert.deepEqual(stored.tags, ["test", "large"]);
    assert.equal(stored.type, "application/octet-stream");
    const down = await download(`/api/library/${stored.id}/content`, {}, false);
    assert.equal(down.status, 200);
    assert.equal(down.length, 1024 * MiB);
    assert.equal(down.sha256, stored.sha256);
    assert.equal(down.headers.etag, `"${stored.sha256}"`);
    const blob = await download(`/api/blobs/${stored.sha256}`, { range: `bytes=${1024 * MiB - 10}-` });
    assert.equal(blob.status, 206);
    assert.equal(blob.length, 10);
    assert.equal(blob.headers["content-range"], `bytes ${1024 * MiB - 10}-${1024 * MiB - 1}/${1024 * MiB}`);
    assert.equal((await api.call("DELETE", `/api/library/${stored.id}`, { cookie })).status, 204);
  });

  it("answers ranges, ETags and the headers that keep a file from running as a page", async () => {
    const bytes = Buffer.from("0123456789abcdefghij");
    const up = await upload("name=notes.txt", bytes, { "content-type": "text/plain; charset=utf-8" });
    assert.equal(up.status, 201, up.body.toString());
    const { id, sha256 } = json(up);
    const path = `/api/library/${id}/content`;
    const whole = await download(path);
    assert.equal(whole.body.toString(), bytes.toString());
    assert.equal(whole.headers["content-type"], "text/plain; charset=utf-8");
    assert.equal(whole.headers["x-content-type-options"], "nosniff");
    assert.match(String(whole.headers["content-security-policy"]), /sandbox/);
    assert.match(String(whole.headers["content-disposition"]), /^inline; filename="notes.txt"/);
    assert.equal(whole.headers["accept-ranges"], "bytes");
    assert.match(String((await download(`${path}?download=1`)).headers["content-disposition"]), /^attachment/);
    const first = await download(path, { range: "bytes=0-3" });
    assert.equal(first.status, 206);
    assert.equal(first.body.toString(), "0123");
    assert.equal((await download(path, { range: "bytes=-4" })).body.toString(), "ghij");
    assert.equal((await download(path, { range: "bytes=10-" })).body.toString(), "abcdefghij");
    const past = await download(path, { range: "bytes=20-" });
    assert.equal(past.status, 416);
    assert.equal(past.headers["content-range"], "bytes */20");
    assert.equal(JSON.parse(past.body.toString()).code, "range-not-satisfiable");
    const cached = await download(path, { "if-none-match": `"${sha256}"` });
    assert.equal(cached.status, 304);
    assert.equal(cached.length, 0);
    // An If-Range that is not the current ETag: the whole file.
    assert.equal((await download(path, { range: "bytes=0-3", "if-range": '"other"' })).status, 200);
    assert.match(String((await download(`/api/blobs/${sha256}`)).headers["cache-control"]), /immutable/);

    // HTML and SVG are never shown inline from the node's origin.
    for (const type of ["text/html", "image/svg+xml"]) {
      const page = await upload("name=page", Buffer.from("<script>alert(1)</script>"), { "content-type": type });
      assert.equal(page.status, 201);
      const served = await download(`/api/library/${json(page).id}/content`);
      assert.match(String(served.headers["content-disposition"]), /^attachment/, type);
      assert.equal(served.headers["content-type"], type);
    }
  });

  it("lists, searches, tags, renames and deletes files as contract commands", async () => {
    const a = json(await upload("name=Quarterly%20report.pdf&tags=work", Buffer.from("report"), { "content-type": "application/pdf" }));
    const b = json(await upload("name=holiday.jpg&tags=photos,2026", Buffer.from("photo"), { "content-type": "image/jpeg" }));
    const listed = await api.call("GET", "/api/library?limit=200", { cookie });
    assert.equal(listed.status, 200);
    const ids = (listed.body.items as { id: string }[]).map((f) => f.id);
    assert.ok(ids.includes(a.id) && ids.includes(b.id));
    const found = await api.call("GET", "/api/library?q=quarterly", { cookie });
    assert.deepEqual(
      (found.body.items as { id: string }[]).map((f) => f.id),
      [a.id],
    );
    const tagged = await api.call("GET", "/api/library?tag=photos", { cookie });
    assert.deepEqual(
      (tagged.body.items as { id: string }[]).map((f) => f.id),
      [b.id],
    );
    const patched = await api.call("PATCH", `/api/library/${b.id}`, { cookie, body: { name: "beach.jpg", tags: ["photos", "beach"] } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.name, "beach.jpg");
    assert.deepEqual(patched.body.tags, ["photos", "beach"]);
    assert.equal((await api.call("GET", `/api/library/${b.id}`, { cookie })).body.name, "beach.jpg");
    assert.equal((await api.call("DELETE", `/api/library/${a.id}`, { cookie })).status, 204);
    assert.equal((await api.call("GET", `/api/library/${a.id}`, { cookie })).status, 404);
    assert.equal((await api.call("DELETE", `/api/library/${a.id}`, { cookie })).status, 404);
    assert.equal((await api.call("PATCH", `/api/library/${a.id}`, { cookie, body: { name: "x" } })).status, 404);
  });

  it("keeps the same bytes once, and removes a blob a grace period after its last file is deleted", async () => {
    const bytes = randomBytes(4096);
    const one = json(await upload("name=one.bin", bytes));
    const two = json(await upload("name=two.bin", bytes));
    assert.equal(one.sha256, two.sha256);
    assert.equal(blobFiles().filter((f) => f === one.sha256).length, 1);
    assert.equal((await api.call("DELETE", `/api/library/${one.id}`, { cookie })).status, 204);
    await sleep(1800);
    assert.ok(blobFiles().includes(one.sha256), "still referred to by the other file");
    assert.equal((await download(`/api/library/${two.id}/content`)).sha256, one.sha256);
    assert.equal((await api.call("DELETE", `/api/library/${two.id}`, { cookie })).status, 204);
    await waitFor("the blob removed after its grace period", () => (blobFiles().includes(one.sha256) ? undefined : true), 10_000);
    assert.equal((await download(`/api/blobs/${one.sha256}`)).status, 404);
  });

  it("an upload cut off halfway leaves neither a record nor a blob", async () => {
    const before = (await api.call("GET", "/api/library?limit=200", { cookie })).body.items.length as number;
    const blobsBefore = blobFiles().length;
    await new Promise<void>((resolve) => {
      const req = request(new URL(`${node.url}/api/library?name=cut.bin`), { method: "POST", headers: { cookie, origin: api.origin, "content-length": String(64 * MiB) } });
      req.on("error", () => resolve());
      req.write(randomBytes(4 * MiB), () => setTimeout(() => req.destroy(), 100));
      req.on("close", () => resolve());
    });
    await sleep(300);
    assert.equal((await api.call("GET", "/api/library?limit=200", { cookie })).body.items.length, before);
    assert.equal(blobFiles().length, blobsBefore);
    await waitFor("the half-written file removed", () => (readdirSync(join(blobsDir(), "tmp")).length === 0 ? true : undefined));
  });

  it("refuses bad input and stores nothing", async () => {
    const blobsBefore = blobFiles().length;
    for (const name of ["", "..%2Fetc%2Fpasswd", "a%2Fb", "a%5Cb", "..", "a%00b", "x".repeat(256)]) {
      const r = await upload(`name=${name}`, Buffer.from("x"));
      assert.equal(r.status, 400, `name=${name}: ${r.body.toString()}`);
      assert.equal(JSON.parse(r.body.toString()).code, "bad-parameters");
    }
    assert.equal((await upload("tags=ok", Buffer.from("x"))).status, 400, "no name");
    assert.equal((await upload(`name=a&tags=${"t".repeat(41)}`, Buffer.from("x"))).status, 400);
    // Declared over the upload limit: refused before a byte is read.
    const over = await upload("name=huge.bin", Buffer.alloc(0), { "content-length": String(2000 * MiB) }).catch(() => ({ status: 413, body: Buffer.from("{}"), headers: {} }));
    assert.equal(over.status, 413);
    assert.equal((await download("/api/blobs/not-a-digest")).status, 400);
    assert.equal((await download(`/api/blobs/${"A".repeat(64)}`)).status, 400);
    assert.equal((await download(`/api/blobs/${"0".repeat(64)}`)).status, 404);
    assert.equal((await download("/api/library/file-nope/content")).status, 404);
    const patched = await api.call("PATCH", "/api/library/file-nope", { cookie, body: { name: 5, tags: "x", extra: 1 } });
    assert.equal(patched.status, 400);
    assert.equal((await api.call("GET", "/api/library?limit=0", { cookie })).status, 400);
    // Without a session: 401 before anything is read.
    assert.equal((await api.call("GET", "/api/library", {})).status, 401);
    const anonymous = await new Promise<number>((resolve, reject) => {
      const req = request(new URL(`${node.url}/api/library?name=x`), { method: "POST", headers: { origin: api.origin } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end("x");
    });
    assert.equal(anonymous, 401);
    assert.equal(blobFiles().length, blobsBefore);
  });

  it("a message's attachments are files the library keeps", async () => {
    const kept = json(await upload("name=attached.txt", Buffer.from("attached"), { "content-type": "text/plain" }));
    const missing = await api.call("POST", "/api/messages", { cookie, body: { text: "look", attachments: [kept.id, "file-nope"] } });
    assert.equal(missing.status, 404, JSON.stringify(missing.body));
    assert.deepEqual(
      missing.body.errors.map((e: { pointer: string }) => e.pointer),
      ["#/attachments/1"],
    );
    // A kept file passes the check (the node has no model, so nothing is said).
    const said = await api.call("POST", "/api/messages", { cookie, body: { text: "look", attachments: [kept.id] } });
    assert.equal(said.status, 409, JSON.stringify(said.body));
    assert.equal(said.body.code, "no-model");
  });

  it("a gateway killed mid-upload leaves nothing once it is back", async () => {
    const gateway = lockOf(node.dataDir).workers.gateway;
    assert.ok(gateway !== undefined);
    const before = (await api.call("GET", "/api/library?limit=200", { cookie })).body.items.length as number;
    const blobsBefore = blobFiles().length;
    const sending = new Promise<void>((resolve) => {
      const req = request(new URL(`${node.url}/api/library?name=killed.bin`), { method: "POST", headers: { cookie, origin: api.origin, "content-length": String(256 * MiB) } });
      req.on("error", () => resolve());
      req.on("close", () => resolve());
      req.write(randomBytes(8 * MiB));
    });
    await waitFor("part of the upload on disk", () => (readdirSync(join(blobsDir(), "tmp")).length > 0 ? true : undefined));
    process.kill(gateway, "SIGKILL");
    await sending;
    await waitFor("the gateway gone", () => (processState(gateway) === null ? true : undefined));
    await waitFor("a new gateway", async () => {
      const pid = lockOf(node.dataDir).workers.gateway;
      if (pid === undefined || pid === gateway) return undefined;
      return (await api.call("GET", "/api/library", { cookie }).catch(() => ({ status: 0 }))).status === 200 ? true : undefined;
    }, 20_000);
    assert.equal(readdirSync(join(blobsDir(), "tmp")).length, 0);
    assert.equal(blobFiles().length, blobsBefore);
    assert.equal((await api.call("GET", "/api/library?limit=200", { cookie })).body.items.length, before);
    assert.ok(existsSync(blobsDir()));
  });
});
