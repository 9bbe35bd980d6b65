/**
 * @module The person's library: files whose records are `std.library` commands signed as the
 * person, and whose bytes are blobs (library/blob-store.ts).
 *
 * ```
 * POST   /api/library?name=NAME&tags=a,b   the file as the raw body (streamed)  → 201 {id, name, type, size, sha256, tags, createdAt, createdBy, receipt, jws}
 * GET    /api/library?after=&limit=        → {items: [file…], next}             (?q=words: ranked by name; ?tag=T: with that tag)
 * GET    /api/library/{id}                  → the file
 * PATCH  /api/library/{id}                  {name?, tags?} → the file
 * DELETE /api/library/{id}                  → 204 (the blob goes once nothing refers to it, after a grace period)
 * GET    /api/library/{id}/content          the bytes (Range, ETag, If-None-Match; ?download=1: as a download)
 * GET    /api/blobs/{sha256}                the bytes of a blob a kept file names
 * ```
 *
 * An upload is read as it arrives, hashed and written to disk, never held in memory: up to the
 * node's upload limit (`--upload-limit`, 2 GiB by default; `413` over it), within the library's
 * quota and the disk's reserve (`507 library-full`). Its record is written only once its blob is
 * stored whole, so an upload cut off (or a crash) leaves neither.
 */
import type { HttpBindings } from "@hono/node-server";
import type { Context, Hono } from "hono";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { allowLongBody } from "../../connection-guard.ts";
import { discardBody } from "../../discard-body.ts";
import { problemResponse } from "../../problem-response.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { BLOB_ID, BlobCut, BlobRefused, type BlobStore } from "../library/blob-store.ts";
import { contentType, fileName, fileTags } from "../library/file-input.ts";
import { fileView, findFile, LIBRARY } from "../library/library-records.ts";
import { sendBlob } from "../library/send-blob.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { signedWrite } from "../personal/signed-write.ts";
import { jsonBody } from "../request-body.ts";

export interface LibraryRouteDeps {
  readonly writer: PersonWriter;
  readonly reader: PersonReader;
  readonly now: () => number;
  readonly blobs: BlobStore;
  /** The largest file an upload may be. */
  readonly uploadLimit: number;
  /** Hears each file deleted (the sweep of unreferenced blobs is scheduled from it). */
  readonly onDeleted?: () => void;
}

/** The longest pause in an upload's bytes before it is given up. */
const UPLOAD_IDLE_MS = 60_000;

/** Mounts the library and blob routes. */
export function mountLibraryRoutes(api: Hono<ApiEnv>, deps: LibraryRouteDeps): void {
  const { reader, writer, blobs } = deps;

  api.post("/api/library", async (c) => {
    sessionOf(c);
    const errors: { pointer: string; detail: string }[] = [];
    const name = fileName(c.req.query("name"));
    if (!name.ok) errors.push({ pointer: "?name", detail: name.reason });
    const tags = fileTags(c.req.query("tags") ?? "");
    if (!tags.ok) errors.push({ pointer: "?tags", detail: tags.reason });
    if (!name.ok || !tags.ok) return refuseUpload(c, problem(400, "bad-parameters", errors.map((e) => e.detail).join("; "), errors));
    // The person's key must be there before a byte is stored.
    reader.query(undefined, LIBRARY, "Files", { after: "", limit: 1 });

    const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
    const source = incoming ?? (c.req.raw.body === null ? Readable.from([]) : Readable.fromWeb(c.req.raw.body as WebReadableStream));
    const length = c.req.header("content-length");
    const declared = length !== undefined && c.req.header("transfer-encoding") === undefined ? Number(length) : null;
    if (declared !== null && !Number.isSafeInteger(declared)) return refuseUpload(c, problem(400, "bad-parameters", "Content-Length is not a length"));
    if (incoming !== undefined) allowLongBody(incoming);
    // An upload that stops sending is given up: its pauses are bounded, not its length.
    const idle = new AbortController();
    let timer = setTimeout(() => idle.abort(), UPLOAD_IDLE_MS);
    const onData = () => {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), UPLOAD_IDLE_MS);
    };
    source.on("data", onData);
    let stored;
    try {
      // A request's chunks are copies its parser made for this reader alone: freed once stored.
      stored = await blobs.put(source, { maxBytes: deps.uploadLimit, declared, signal: idle.signal, releaseChunks: incoming !== undefined });
    } catch (error) {
      if (error instanceof BlobRefused) return refuseUpload(c, problem(error.status, error.code, error.message));
      if (error instanceof BlobCut || idle.signal.aborted) return refuseUpload(c, problem(400, "malformed-body", idle.signal.aborted ? "the upload paused too long: nothing was stored" : "the upload ended before the file did: nothing was stored"));
      throw error;
    } finally {
      clearTimeout(timer);
      source.off("data", onData);
    }
    try {
      const id = timeOrderedId("file", deps.now());
      const args = { name: name.value, type: contentType(c.req.header("content-type")), size: stored.size, sha256: stored.sha256, tags: tags.value };
      const signed = await signedWrite(writer, { namespace: LIBRARY, action: "Add", subject: id, args, idempotencyKey: `${id}:add` });
      const file = findFile(reader, id);
      if (file === null) throw new Error(`file ${id} was accepted (seq ${signed.receipt.seq}) but cannot be read`);
      return c.json({ ...file, receipt: signed.receipt, jws: signed.jws }, 201);
    } finally {
      stored.release();
    }
  });

  api.get("/api/library", (c) => {
    sessionOf(c);
    const page = pageRequest(c);
    const q = c.req.query("q");
    const tag = c.req.query("tag");
    if (q !== undefined && q !== "") {
      if (page.after !== null) throw new HttpProblem(problem(400, "bad-parameters", "a search is one ranked page: after does not apply", [{ pointer: "?after", detail: "not with q" }]));
      const { rows } = reader.query(undefined, LIBRARY, "Search", { q: q.slice(0, 400), limit: page.limit });
      return c.json({ items: rows.map((row) => ({ ...fileView(String(row.id), row), score: row.score })), next: null });
    }
    const params = tag !== undefined && tag !== "" ? { tag: tag.slice(0, 40), after: page.after ?? "", limit: page.limit + 1 } : { after: page.after ?? "", limit: page.limit + 1 };
    // One row more than the page tells whether another page follows.
    const { rows } = reader.query(undefined, LIBRARY, "tag" in params ? "Tagged" : "Files", params);
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    return c.json({ items: items.map((row) => fileView(String(row.id), row)), next });
  });

  api.get("/api/library/:id", (c) => {
    sessionOf(c);
    return c.json(kept(reader, c.req.param("id")));
  });

  api.patch("/api/library/:id", async (c) => {
    sessionOf(c);
    const id = c.req.param("id");
    const body = await jsonBody(c, ["name", "tags"]);
    const errors: { pointer: string; detail: string }[] = [];
    const name = body.name === undefined ? null : fileName(body.name);
    if (name !== null && !name.ok) errors.push({ pointer: "#/name", detail: name.reason });
    const tags = body.tags === undefined ? null : fileTags(body.tags);
    if (tags !== null && !tags.ok) errors.push({ pointer: "#/tags", detail: tags.reason });
    if (errors.length > 0) throw new HttpProblem(problem(400, "malformed-body", errors.map((e) => e.detail).join("; "), errors));
    const before = kept(reader, id);
    if (name?.ok === true && name.value !== before.name) await signedWrite(writer, { namespace: LIBRARY, action: "Rename", subject: id, args: { name: name.value } });
    if (tags?.ok === true && tags.value.join("\n") !== before.tags.join("\n")) await signedWrite(writer, { namespace: LIBRARY, action: "Tag", subject: id, args: { tags: tags.value } });
    return c.json(kept(reader, id));
  });

  api.delete("/api/library/:id", async (c) => {
    sessionOf(c);
    const id = c.req.param("id");
    kept(reader, id);
    await signedWrite(writer, { namespace: LIBRARY, action: "Delete", subject: id, args: {} });
    deps.onDeleted?.();
    return c.body(null, 204);
  });

  api.get("/api/library/:id/content", (c) => {
    sessionOf(c);
    const file = kept(reader, c.req.param("id"));
    return sendStored(c, blobs, file.sha256, { name: file.name, type: file.type, immutable: false });
  });

  api.get("/api/blobs/:sha256", (c) => {
    sessionOf(c);
    const sha256 = c.req.param("sha256");
    if (!BLOB_ID.test(sha256)) throw new HttpProblem(problem(400, "bad-parameters", "a blob id is a SHA-256 in lower-case hex (64 characters)", [{ pointer: "/sha256", detail: "not a SHA-256" }]));
    // Only the bytes of a file the person keeps: a digest alone opens nothing else.
    const { rows } = reader.query(undefined, LIBRARY, "OfBlob", { sha256, limit: 1 });
    const row = rows[0];
    if (row === undefined) throw new HttpProblem(problem(404, "not-found", `no kept file has the blob ${sha256}`));
    return sendStored(c, blobs, sha256, { name: null, type: String(row.type), immutable: true });
  });
}

/** The kept file `id`, or a `404`. */
function kept(reader: PersonReader, id: string) {
  const file = findFile(reader, id);
  if (file === null) throw new HttpProblem(problem(404, "not-found", `no file '${id.slice(0, 128)}'`));
  return file;
}

function sendStored(c: Context, blobs: BlobStore, sha256: string, what: { name: string | null; type: string; immutable: boolean }): Response | Promise<Response> {
  const release = blobs.hold(sha256);
  const size = blobs.size(sha256);
  if (size === null) {
    release();
    throw new Error(`the blob ${sha256} of a kept file is missing from the blob store`);
  }
  return sendBlob(c, { path: blobs.path(sha256), size, sha256, type: what.type, name: what.name, download: c.req.query("download") === "1", immutable: what.immutable, done: release });
}

/**
 * Answers an upload that is not stored: the rest of a body not far over is read and dropped first
 * (so the client reads the answer, not a reset); otherwise the connection closes after it.
 */
async function refuseUpload(c: Context, p: ReturnType<typeof problem>): Promise<Response> {
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  if (incoming === undefined || !(await discardBody(incoming))) c.header("connection", "close");
  return problemResponse(c, p);
}
