/**
 * @module The images of the node's manual, from the package's `docs/manual/assets/`:
 *
 * ```
 * GET /api/manual/assets/{file}  → the bytes (ETag, If-None-Match → 304, Cache-Control: public, max-age=86400)
 * ```
 *
 * The folder is read once, at start-up, into an index by name (images only: png, jpg, jpeg, svg,
 * webp, gif; each at most MAX_ASSET_BYTES, at most MAX_ASSETS of them): a request's name is
 * looked up in that index and never joined into a path, so no request reaches another file.
 * Every answer carries `X-Content-Type-Options: nosniff` and a `Content-Security-Policy` with
 * `sandbox` (an SVG can hold script; none runs).
 *
 * The name is read from the request's own target, before URL normalisation: `..`, `%2e%2e`, an
 * encoded `/` or `\`, NUL, a path (absolute or not), bad percent-encoding (an overlong UTF-8 form
 * among them) and names over MAX_NAME characters are `400 bad-parameters`, whatever file they
 * would have led to; a well-formed name not in the index is `404`. Behind the session gate like
 * every `/api` route. Mounted ahead of the other routes, so a target that normalises into
 * another route is refused here first.
 */
import type { HttpBindings } from "@hono/node-server";
import type { Context, Hono, Next } from "hono";
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { ApiEnv } from "../api-env.ts";

const PREFIX = "/api/manual/assets/";
const MAX_NAME = 128;
const MAX_ASSETS = 200;
const MAX_ASSET_BYTES = 8 * 1024 * 1024;
/** A file's name: letters, digits, `_` and `-`, then dot-separated extensions; never a dot first. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9]+)+$/;

const TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
};

/** The manual's images folder, in the package. */
export const MANUAL_ASSETS_DIR = new URL("../../../../docs/manual/assets/", import.meta.url);

/** One image, held in memory. */
interface Asset {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly type: string;
  readonly etag: string;
}

/** Reads the images in `dir` into an index by name (a missing folder: none). */
export function indexAssets(dir: URL = MANUAL_ASSETS_DIR): ReadonlyMap<string, Asset> {
  const index = new Map<string, Asset>();
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return index;
  }
  for (const name of names) {
    if (index.size >= MAX_ASSETS) break;
    const type = TYPES[name.slice(name.lastIndexOf(".") + 1).toLowerCase()];
    if (type === undefined || !NAME.test(name) || name.length > MAX_NAME) continue;
    const file = new URL(name, dir);
    const stat = lstatSync(file);
    if (!stat.isFile() || stat.size > MAX_ASSET_BYTES) continue;
    const bytes = new Uint8Array(readFileSync(file));
    index.set(name, { bytes, type, etag: `"${createHash("sha256").update(bytes).digest("hex")}"` });
  }
  return index;
}

/** Mounts the manual's images; mount it before the other routes (see the module comment). */
export function mountManualAssetRoutes(api: Hono<ApiEnv>, deps: { readonly manualAssets?: ReadonlyMap<string, Asset> } = {}): void {
  const index = deps.manualAssets ?? indexAssets();
  api.use("*", async function manualAssets(c: Context<ApiEnv>, next: Next) {
    const target = rawPath(c);
    if (!target.startsWith(PREFIX)) return next();
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    // A target the gate saw as a public route once normalised (`…/assets/../../account`) has no session either.
    if (c.get("session") === null) throw new HttpProblem(problem(401, "unauthenticated", "sign in first: this needs a session"));
    const name = assetName(target.slice(PREFIX.length));
    const asset = index.get(name);
    if (asset === undefined) throw new HttpProblem(problem(404, "not-found", `the manual has no image ${JSON.stringify(name)}`));
    c.header("ETag", asset.etag);
    c.header("Cache-Control", "public, max-age=86400");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Content-Security-Policy", asset.type === "image/svg+xml" ? "default-src 'none'; style-src 'unsafe-inline'; sandbox" : "sandbox");
    if (matches(c.req.header("if-none-match"), asset.etag)) return c.body(null, 304);
    c.header("Content-Type", asset.type);
    c.header("Content-Length", String(asset.bytes.length));
    return c.req.method === "HEAD" ? c.body(null, 200) : c.body(asset.bytes, 200);
  });
}

/** The request's path as it was sent (origin-form or absolute-form), before any normalisation. */
function rawPath(c: Context): string {
  const raw = (c.env as Partial<HttpBindings> | undefined)?.incoming?.url ?? `${new URL(c.req.url).pathname}`;
  const path = raw.startsWith("/") ? raw : raw.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, "");
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

/** The file name a raw path segment names, or the `400` that refuses it. */
function assetName(raw: string): string {
  const refuse = (detail: string) => new HttpProblem(problem(400, "bad-parameters", detail, [{ pointer: "/file", detail }]));
  if (raw.length > MAX_NAME * 3) throw refuse(`a file name is at most ${MAX_NAME} characters`);
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    throw refuse("the file name is not percent-encoded UTF-8");
  }
  if (name.length > MAX_NAME) throw refuse(`a file name is at most ${MAX_NAME} characters`);
  if (!NAME.test(name)) throw refuse("a file name is letters, digits, _ and - with an extension: no path, no dot segment, no control character");
  return name;
}

/** Whether an `If-None-Match` header names `etag` (or is `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t === etag || t === `W/${etag}`;
  });
}
