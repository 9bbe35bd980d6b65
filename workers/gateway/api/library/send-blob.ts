/**
 * @module Sending a blob's bytes: streamed from the file to the socket through a few reused buffers
 * (never buffered whole), with one byte range (`Range: bytes=…` → `206`, past the end → `416`),
 * the digest as a strong `ETag` (`If-None-Match` → `304`, `If-Range`), the stored content type
 * with `nosniff`, and a `Content-Disposition` naming the file. Nothing the node serves from its own origin may run as a
 * page: every answer carries `Content-Security-Policy: sandbox`, and a type a browser would render
 * as a document with scripts (HTML, SVG, XML) is always a download, never inline.
 */
import type { HttpBindings } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context } from "hono";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { problem } from "../../../../shared/problem.ts";
import { problemResponse } from "../../problem-response.ts";

/** What a `Range` header asks of a body of `size` bytes. */
export type RangeAsk = { readonly kind: "all" } | { readonly kind: "range"; readonly start: number; readonly end: number } | { readonly kind: "unsatisfiable" };

/**
 * Reads `Range` for a body of `size` bytes: one `bytes=` range (first-last, first-, -suffix). A
 * header that is not one such range (malformed, another unit, several ranges) is ignored, as HTTP
 * allows: the whole body is sent.
 */
export function rangeOf(header: string | undefined, size: number): RangeAsk {
  if (header === undefined) return { kind: "all" };
  const match = /^bytes=(\d{0,16})-(\d{0,16})$/.exec(header.trim());
  if (match === null) return { kind: "all" };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === "" && last === "") return { kind: "all" };
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "range", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Number(last);
  if (start >= size) return { kind: "unsatisfiable" };
  if (end < start) return { kind: "all" };
  return { kind: "range", start, end: Math.min(end, size - 1) };
}

/** Types a browser would render as a document that runs scripts: never served inline. */
const DOCUMENT_TYPES = /^(?:text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|[a-z0-9.+-]+\/[a-z0-9.-]+\+xml|text\/xsl|application\/xslt\+xml|multipart\/x-mixed-replace)$/;

/** Whether a file of `type` may be shown inline (never for DOCUMENT_TYPES). */
export function inlineAllowed(type: string): boolean {
  return !DOCUMENT_TYPES.test(type.split(";")[0]?.trim().toLowerCase() ?? "");
}

/** `Content-Disposition` for `name`: the ASCII fallback and the exact UTF-8 name (RFC 6266, RFC 8187). */
export function contentDisposition(kind: "inline" | "attachment", name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export interface BlobToSend {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  readonly type: string;
  /** The file's name for `Content-Disposition` (null: none). */
  readonly name: string | null;
  /** Asked as a download (`?download=1`): attachment whatever the type. */
  readonly download: boolean;
  /** `Cache-Control`: blobs never change; a library file's bytes may be replaced by a new file. */
  readonly immutable: boolean;
  /** Runs once the bytes are sent or the client went away. */
  readonly done: () => void;
}

/** Answers `GET` (or `HEAD`) of a blob; see the module comment. */
export function sendBlob(c: Context, blob: BlobToSend): Response | Promise<Response> {
  const etag = `"${blob.sha256}"`;
  const headers: Record<string, string> = {
    etag,
    "accept-ranges": "bytes",
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox; default-src 'none'",
    "cache-control": blob.immutable ? "private, max-age=31536000, immutable" : "private, no-cache",
  };
  if (blob.name !== null || !inlineAllowed(blob.type)) headers["content-disposition"] = contentDisposition(blob.download || !inlineAllowed(blob.type) ? "attachment" : "inline", blob.name ?? blob.sha256);
  if (matches(c.req.header("if-none-match"), blob.sha256)) {
    blob.done();
    return c.body(null, 304, headers);
  }
  const ifRange = c.req.header("if-range");
  const range = ifRange !== undefined && ifRange !== etag ? ({ kind: "all" } as const) : rangeOf(c.req.header("range"), blob.size);
  if (range.kind === "unsatisfiable") {
    blob.done();
    c.header("content-range", `bytes */${blob.size}`);
    return problemResponse(c, problem(416, "range-not-satisfiable", `the range is outside the file's ${blob.size} bytes`));
  }
  const start = range.kind === "range" ? range.start : 0;
  const end = range.kind === "range" ? range.end : blob.size - 1;
  const status = range.kind === "range" ? 206 : 200;
  headers["content-type"] = blob.type;
  headers["content-length"] = String(blob.size === 0 ? 0 : end - start + 1);
  if (range.kind === "range") headers["content-range"] = `bytes ${start}-${end}/${blob.size}`;
  const head = c.req.method === "HEAD";
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  if (head || blob.size === 0) {
    blob.done();
    return c.body(null, status, headers);
  }
  if (outgoing === undefined) {
    // Not behind @hono/node-server (an in-process app): a web stream of the same bytes.
    const file = createReadStream(blob.path, { start, end, highWaterMark: SEND_BUFFER_BYTES });
    file.once("close", blob.done);
    return new Response(Readable.toWeb(file) as ReadableStream, { status, headers });
  }
  outgoing.writeHead(status, headers);
  return sendRange(blob.path, start, end, outgoing).then(
    () => {
      blob.done();
      return RESPONSE_ALREADY_SENT;
    },
    () => {
      // The client went away, or the file could not be read: the socket is ended either way.
      blob.done();
      outgoing.destroy();
      return RESPONSE_ALREADY_SENT;
    },
  );
}

/** The buffers a download reads into, and how many at once (chosen by bench/library). */
const SEND_BUFFER_BYTES = 256 * 1024;
const SEND_BUFFERS = 4;

/**
 * Sends bytes `start`…`end` of the file at `path` on `outgoing`, then ends it. The bytes are read
 * into a few buffers reused all along: each is read into again only once the socket has taken what
 * it held, which is the backpressure, and a download holds those buffers and nothing more; they
 * are freed when it ends. (Fresh buffers for every read are garbage V8 collects only once it adds
 * up to about 64 MB: the gateway grew by that much while it sent a large file.)
 * Rejects when the client goes away or the file cannot be read.
 */
async function sendRange(path: string, start: number, end: number, outgoing: ServerResponse): Promise<void> {
  const file = await open(path, "r");
  try {
    const free: Buffer<ArrayBuffer>[] = [];
    let made = 0;
    let position = start;
    let failure: Error | null = null;
    let wake: (() => void) | null = null;
    const awake = () => {
      const w = wake;
      wake = null;
      w?.();
    };
    const onClose = () => {
      if (!outgoing.writableFinished) failure ??= new Error("the client went away");
      awake();
    };
    outgoing.once("close", onClose);
    try {
      while (position <= end && failure === null) {
        const buffer = free.pop() ?? (made < SEND_BUFFERS ? (made++, Buffer.allocUnsafeSlow(Math.min(SEND_BUFFER_BYTES, end - start + 1))) : null);
        if (buffer === null) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, end - position + 1), position);
        if (bytesRead === 0) throw new Error(`${path} is shorter than its size`);
        position += bytesRead;
        outgoing.write(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead), (error) => {
          if (error) failure ??= error;
          else free.push(buffer);
          awake();
        });
      }
      if (failure !== null) throw failure;
      outgoing.end();
      await finished(outgoing);
    } finally {
      outgoing.off("close", onClose);
      // Freed now rather than when the collector gets to them; a buffer a write still holds is left.
      for (const buffer of free) buffer.buffer.transfer(0);
    }
  } finally {
    await file.close();
  }
}

/** Whether `If-None-Match` names the digest (or is `*`). */
function matches(header: string | undefined, sha256: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === `"${sha256}"`);
}
