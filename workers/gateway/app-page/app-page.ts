/**
 * @module The personal node's app page: `GET /` (index.html), `/app.js` (one hand-written ES
 * module) and `/app.css`, read once when this module loads and answered as they are, with no build
 * step. Each answer is never cached and carries a strict content security policy: the page's own
 * script and stylesheet only, requests (`fetch`, the `/api/events` WebSocket) to its own origin
 * only (`'self'` matches `ws:`/`wss:` to the same host and port), no inline code, no frames,
 * Trusted Types required (the script writes text, never HTML).
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";

/** The policy every answer of the page carries. */
export const APP_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join("; ");

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

const read = (name: string): Buffer => readFileSync(new URL(name, import.meta.url));

/** What each path answers. */
const ASSETS: ReadonlyMap<string, Asset> = new Map([
  ["/", { type: "text/html; charset=utf-8", body: read("./index.html") }],
  ["/app.js", { type: "text/javascript; charset=utf-8", body: read("./app.js") }],
  ["/app.css", { type: "text/css; charset=utf-8", body: read("./app.css") }],
]);

/** The path of a request's raw target (origin-form, or absolute-form as a proxy may send), or null. */
function pathOf(url: string | undefined): string | null {
  if (url === undefined) return null;
  if (url.startsWith("/")) return url.replace(/[?#].*$/s, "");
  return URL.canParse(url) ? new URL(url).pathname : null;
}

/** Answers `GET`/`HEAD` of the page's paths and returns true; returns false, answering nothing, for any other request. */
export function serveAppPage(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const path = pathOf(req.url);
  const asset = path === null ? undefined : ASSETS.get(path);
  if (asset === undefined) return false;
  res.writeHead(200, {
    "content-type": asset.type,
    "content-length": asset.body.length,
    "cache-control": "no-store",
    "content-security-policy": APP_PAGE_CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
  });
  res.end(req.method === "HEAD" ? undefined : asset.body);
  return true;
}
