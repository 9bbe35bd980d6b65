/**
 * @module The person's memory notes, records of `std.memory` in the personal tenant:
 *
 * ```
 * GET    /api/memory?after=&limit=   → {items: [{id, text, tags, createdAt, createdBy}], next}
 * GET    /api/memory?q=TEXT&limit=   → {items: [{…, score}], next: null}   (ranked, best first)
 * POST   /api/memory {text, tags?}   → 201 {id, text, tags, createdAt, createdBy, receipt, jws}
 * DELETE /api/memory/{id}            → 204; 404 when there is no such note or it is deleted
 * ```
 *
 * The list is the contract's `Notes` query (kept notes, by id), a search its `Search` query; a
 * note's `createdAt` is the commit time of its first history entry. Writes are the contract's
 * `Add` and `Delete`, signed as the person; a refusal (text over 4,000 characters: `text_too_long`)
 * is `422 refused` with the receipt.
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { jsonBody } from "../request-body.ts";
import { FieldCheck } from "./field-check.ts";
import { createdAt, deleteKept, type KeptRecord } from "./kept-records.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { signedWrite } from "../personal/signed-write.ts";

const NOTE: KeptRecord = { namespace: "std.memory", aggregate: "Note", noun: "note" };

/** A note as the routes answer it. */
export interface NoteView {
  readonly id: string;
  readonly text: string;
  readonly tags: readonly string[];
  readonly createdAt: string | null;
  readonly createdBy: string | null;
}

/** Mounts the memory routes. */
export function mountMemoryRoutes(api: Hono<ApiEnv>, deps: { readonly writer: PersonWriter; readonly reader: PersonReader; readonly now: () => number }): void {
  const { reader, writer } = deps;

  api.get("/api/memory", (c) => {
    sessionOf(c);
    const page = pageRequest(c);
    const q = c.req.query("q");
    if (q !== undefined && q !== "") {
      if (page.after !== null) throw new HttpProblem(problem(400, "bad-parameters", "a search is one ranked page: after does not apply", [{ pointer: "?after", detail: "not with q" }]));
      const { rows } = reader.query(undefined, NOTE.namespace, "Search", { q, limit: page.limit });
      return c.json({ items: rows.map((row) => ({ ...noteOf(reader, row), score: row.score })), next: null });
    }
    // One row more than the page tells whether another page follows.
    const { rows } = reader.query(undefined, NOTE.namespace, "Notes", { after: page.after ?? "", limit: page.limit + 1 });
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    return c.json({ items: items.map((row) => noteOf(reader, row)), next });
  });

  api.post("/api/memory", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["text", "tags"]);
    const check = new FieldCheck();
    const text = check.text(body.text, "text", true);
    const tags = check.texts(body.tags, "tags");
    check.done();
    const id = timeOrderedId("note", deps.now());
    const signed = await signedWrite(writer, { namespace: NOTE.namespace, action: "Add", subject: id, args: { text, tags: tags ?? [] } });
    const stored = reader.record(undefined, NOTE.namespace, NOTE.aggregate, id);
    if (stored === null) throw new Error(`note ${id} was accepted (seq ${signed.receipt.seq}) but cannot be read`);
    return c.json({ ...noteOf(reader, { id, ...stored.state }), receipt: signed.receipt, jws: signed.jws }, 201);
  });

  api.delete("/api/memory/:id", async (c) => {
    sessionOf(c);
    await deleteKept(reader, writer, NOTE, c.req.param("id"));
    return c.body(null, 204);
  });
}

/** A note from a row of `Notes` or `Search` (or a record's state with its id). */
function noteOf(reader: PersonReader, row: Record<string, unknown>): NoteView {
  const id = String(row.id);
  return {
    id,
    text: String(row.text),
    tags: Array.isArray(row.tags) ? row.tags.map(String) : [],
    createdAt: createdAt(reader, NOTE.namespace, NOTE.aggregate, id),
    createdBy: typeof row.creator === "string" ? row.creator : null,
  };
}
