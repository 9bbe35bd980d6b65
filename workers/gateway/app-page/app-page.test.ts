/**
 * @module The app page's handler: its three paths for GET and HEAD, with their types and the
 * no-store, CSP, nosniff and no-referrer headers; anything else is left to the next handler.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { APP_PAGE_CSP, serveAppPage } from "./app-page.ts";

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

const file = (name: string) => readFileSync(new URL(name, import.meta.url), "utf8");

test("GET /, /app.js and /app.css answer the files, never cached, under a strict policy", async () => {
  for (const [path, type, name] of [["/", "text/html", "index.html"], ["/?from=bookmark", "text/html", "index.html"], ["/app.js", "text/javascript", "app.js"], ["/app.css", "text/css", "app.css"]] as const) {
    const res = await fetch(`${base}${path}`);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("content-type"), `${type}; charset=utf-8`, path);
    assert.equal(res.headers.get("cache-control"), "no-store", path);
    assert.equal(res.headers.get("content-security-policy"), APP_PAGE_CSP, path);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
    assert.equal(res.headers.get("referrer-policy"), "no-referrer", path);
    assert.equal(await res.text(), file(name), path);
  }
  for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) assert.ok(APP_PAGE_CSP.includes(directive), directive);
  assert.doesNotMatch(APP_PAGE_CSP, /unsafe|\*|data:|blob:/);
});

test("HEAD answers the headers and no body", async () => {
  const answer = await new Promise<{ status: number; length: string | undefined; body: string }>((resolve, reject) => {
    const req = request(`${base}/app.js`, { method: "HEAD" }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, length: res.headers["content-length"], body }));
    });
    req.on("error", reject);
    req.end();
  });
  assert.deepEqual(answer, { status: 200, length: String(Buffer.byteLength(file("app.js"))), body: "" });
});

test("other paths and methods are left to the next handler", async () => {
  for (const [method, path] of [["GET", "/index.html"], ["GET", "/health"], ["GET", "/app.js/x"], ["POST", "/"], ["PUT", "/app.js"], ["DELETE", "/app.css"]] as const) {
    const res = await fetch(`${base}${path}`, { method });
    assert.equal(res.status, 418, `${method} ${path}`);
    assert.equal(await res.text(), "next");
  }
});
