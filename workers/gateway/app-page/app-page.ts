/**
 * @module The personal node's app: `GET /` answers the built page (`dist/index.html`, made from
 * `app/` by `npm run app:build` and committed), and so do the paths another site sends the
 * person back to (`APP_RETURN_PATHS`); `/assets/*` its scripts and stylesheets. The files
 * are read at the first request of the page (a node that is never opened, and `charter serve`,
 * never read them), and each is compressed (brotli or gzip) the first time it is asked for that
 * way, off the event loop; the result is kept, so later requests cost a lookup and a write. The
 * page is never cached (it names the current assets); an asset's name carries its content hash,
 * so it is cached for a year.
 *
 * Every answer carries a strict content security policy: the page's own scripts and styles only,
 * requests (`fetch`, the `/api/events` WebSocket) to its own origin only (`'self'` matches
 * `ws:`/`wss:` to the same host and port), images and framed previews (a PDF in the library) from
 * its own origin, no inline code, no plugins, and Trusted Types required (the page writes text and
 * elements, never HTML).
 */
import { readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** The policy every answer of the page carries. */
export const APP_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join("; ");

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

type Encoding = "br" | "gzip";

interface Asset {
  readonly type: string;
  readonly body: Buffer;
  /** Each encoding once made (or being made). */
  readonly encoded: Map<Encoding, Promise<Buffer>>;
  readonly cache: string;
}

/**
 * Paths that answer the page too: where another site sends the person's browser back to the node
 * (an OAuth authorization server, after the person allowed a tool server). The page takes what the
 * address carries and sends it to `/api` itself, so the session cookie (`SameSite=Strict`, which a
 * navigation from another site does not carry) goes with it.
 */
/** The return path of a tool server's OAuth authorization (tool-servers.ts makes it the redirect URL). */
export const OAUTH_RETURN_PATH = "/oauth/callback";
export const APP_RETURN_PATHS: ReadonlySet<string> = new Set([OAUTH_RETURN_PATH]);

/** Where the built app is: the committed build, or a developer's own (`CHARTER_APP_DIST`, from `node app/build.ts <folder>`). */
export const APP_DIST = process.env.CHARTER_APP_DIST === undefined || process.env.CHARTER_APP_DIST === "" ? fileURLToPath(new URL("./dist/", import.meta.url)) : `${process.env.CHARTER_APP_DIST.replace(/\/+$/, "")}/`;

/** Every file of `dist/` by its path (`/` for index.html). */
function loadAssets(dir: string): ReadonlyMap<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (folder: string, prefix: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        walk(join(folder, entry.name), path);
        continue;
      }
      const page = path === "/index.html";
      assets.set(page ? "/" : path, {
        type: TYPES[extname(entry.name)] ?? "application/octet-stream",
        body: readFileSync(join(folder, entry.name)),
        encoded: new Map(),
        cache: page ? "no-store" : "public, max-age=31536000, immutable",
      });
    }
  };
  walk(dir, "");
  return assets;
}

let assets: ReadonlyMap<string, Asset> | null = null;

/** `asset`'s bytes in `encoding`, made the first time (brotli at its best quality: once per asset and process). */
function encodedBody(asset: Asset, encoding: Encoding): Promise<Buffer> {
  let made = asset.encoded.get(encoding);
  if (made === undefined) {
    made = encoding === "br" ? brotliAsync(asset.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: asset.body.length } }) : gzipAsync(asset.body, { level: 9 });
    asset.encoded.set(encoding, made);
  }
  return made;
}

/** The path of a request's raw target (origin-form, or absolute-form as a proxy may send), or null. */
function pathOf(url: string | undefined): string | null {
  if (url === undefined) return null;
  if (url.startsWith("/")) return url.replace(/[?#].*$/s, "");
  return URL.canParse(url) ? new URL(url).pathname : null;
}

/** The encoding to answer with: brotli, gzip or none, as `accept-encoding` allows (q=0 refuses). */
function encodingOf(header: string | undefined): Encoding | null {
  if (header === undefined) return null;
  const accepted = new Set<string>();
  for (const part of header.split(",", 16)) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const refused = params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
    if (name !== undefined && !refused) accepted.add(name);
  }
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip")) return "gzip";
  return null;
}

/** Answers `GET`/`HEAD` of the app's paths and returns true; returns false, answering nothing, for any other request. */
export function serveAppPage(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const path = pathOf(req.url);
  assets ??= loadAssets(APP_DIST);
  const asset = path === null ? undefined : assets.get(APP_RETURN_PATHS.has(path) ? "/" : path);
  if (asset === undefined) return false;
  const encoding = encodingOf(req.headers["accept-encoding"]);
  const send = (body: Buffer, used: Encoding | null) => {
    if (res.destroyed) return;
    res.writeHead(200, {
      "content-type": asset.type,
      "content-length": body.length,
      ...(used === null ? {} : { "content-encoding": used }),
      vary: "accept-encoding",
      "cache-control": asset.cache,
      "content-security-policy": APP_PAGE_CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cross-origin-opener-policy": "same-origin",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  };
  if (encoding === null) send(asset.body, null);
  else
    encodedBody(asset, encoding).then(
      (body) => send(body, encoding),
      // Compressing cannot fail on bytes read from a file; were it to, the plain bytes still serve.
      () => send(asset.body, null),
    );
  return true;
}
