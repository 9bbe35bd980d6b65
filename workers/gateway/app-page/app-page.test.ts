/**
 * @module The app's handler: the built page at `/` and its hashed assets for GET and HEAD, each
 * with its type, caching, CSP, nosniff and no-referrer headers, compressed as the request
 * accepts; anything else is left to the next handler.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { APP_DIST, APP_PAGE_CSP, serveAppPage } from "./app-page.ts";

let base = "";
const server = createServer((req, res) => {
  if (serveAppPage(req, res)) return;
  res.writeHead(418).end("next");
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const indexHtml = readFileSync(`${APP_DIST}index.html`, "utf8");
const script = /src="(\/assets\/index-[^"]+\.js)"/.exec(indexHtml)?.[1] ?? "";
const style = /href="(\/assets\/index-[^"]+\.css)"/.exec(indexHtml)?.[1] ?? "";

/** GET with node:http (fetch would decompress on its own). */
function get(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("GET / answers the built page, never cached; its assets are cached for good, all under a strict policy", async () => {
  assert.notEqual(script, "", "the page names its script");
  assert.notEqual(style, "", "the page names its stylesheet");
  for (const [path, type, cache] of [["/", "text/html", "no-store"], ["/?from=bookmark", "text/html", "no-store"], ["/oauth/callback?code=c&state=s", "text/html", "no-store"], [script, "text/javascript", "public, max-age=31536000, immutable"], [style, "text/css", "public, max-age=31536000, immutable"]] as const) {
    const res = await get(path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers["content-type"], `${type}; charset=utf-8`, path);
    assert.equal(res.headers["cache-control"], cache, path);
    assert.equal(res.headers["content-security-policy"], APP_PAGE_CSP, path);
    assert.equal(res.headers["x-content-type-options"], "nosniff", path);
    assert.equal(res.headers["referrer-policy"], "no-referrer", path);
    assert.equal(res.headers["content-encoding"], undefined, path);
    assert.deepEqual(res.body, readFileSync(`${APP_DIST}${path.startsWith("/assets") ? path.slice(1) : "index.html"}`), path);
  }
  for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'", "require-trusted-types-for 'script'"]) assert.ok(APP_PAGE_CSP.includes(directive), directive);
  assert.doesNotMatch(APP_PAGE_CSP, /unsafe|\*|data:|blob:|https?:/);
});

test("answers brotli or gzip as accept-encoding allows, the same bytes once decoded", async () => {
  const plain = readFileSync(`${APP_DIST}${script.slice(1)}`);
  const br = await get(script, { "accept-encoding": "gzip, deflate, br" });
  assert.equal(br.headers["content-encoding"], "br");
  assert.equal(br.headers.vary, "accept-encoding");
  assert.deepEqual(brotliDecompressSync(br.body), plain);
  assert.ok(br.body.length < plain.length / 2, "compressed");
  const gz = await get(script, { "accept-encoding": "gzip, br;q=0" });
  assert.equal(gz.headers["content-encoding"], "gzip");
  assert.deepEqual(gunzipSync(gz.body), plain);
  const none = await get(script, { "accept-encoding": "identity" });
  assert.equal(none.headers["content-encoding"], undefined);
  assert.deepEqual(none.body, plain);
});

test("HEAD answers the headers and no body", async () => {
  const answer = await get(script, {}, "HEAD");
  assert.equal(answer.status, 200);
  assert.equal(answer.headers["content-length"], String(readFileSync(`${APP_DIST}${script.slice(1)}`).length));
  assert.equal(answer.body.length, 0);
});

test("other paths and methods are left to the next handler", async () => {
  for (const [method, path] of [["GET", "/index.html"], ["GET", "/health"], ["GET", "/oauth"], ["GET", "/oauth/callback/x"], ["POST", "/oauth/callback"], ["GET", "/assets/"], ["GET", "/assets/../index.html"], ["GET", `${script}/x`], ["POST", "/"], ["PUT", script], ["DELETE", style]] as const) {
    const res = await fetch(`${base}${path}`, { method });
    assert.equal(res.status, 418, `${method} ${path}`);
    assert.equal(await res.text(), "next");
  }
});
