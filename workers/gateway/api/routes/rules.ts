/**
 * @module The person's standing rules, records of `std.rules` in the personal tenant:
 *
 * ```
 * GET    /api/rules?after=&limit=  → {items: [{id, text, enabled, createdAt, createdBy}], next}
 * POST   /api/rules {text}         → 201 {id, text, enabled, createdAt, createdBy, receipt, jws}
 * DELETE /api/rules/{id}           → 204; 404 when there is no such rule or it is deleted
 * ```
 *
 * The list is the contract's `Rules` query (kept rules, by id); a rule's `createdAt` is the commit
 * time of its first history entry. Writes are the contract's `Add` and `Delete`, signed as the
 * person; a refusal (text over 2,000 characters: `text_too_long`) is `422 refused` with the receipt.
 */
import type { Hono } from "hono";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { jsonBody } from "../request-body.ts";
import { FieldCheck } from "./field-check.ts";
import { createdAt, deleteKept, type KeptRecord } from "./kept-records.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { signedWrite } from "../personal/signed-write.ts";

const RULE: KeptRecord = { namespace: "std.rules", aggregate: "Rule", noun: "rule" };

/** A rule as the routes answer it. */
export interface RuleView {
  readonly id: string;
  readonly text: string;
  readonly enabled: boolean;
  readonly createdAt: string | null;
  readonly createdBy: string | null;
}

/** Mounts the standing rules' routes. */
export function mountRulesRoutes(api: Hono<ApiEnv>, deps: { readonly writer: PersonWriter; readonly reader: PersonReader; readonly now: () => number }): void {
  const { reader, writer } = deps;

  api.get("/api/rules", (c) => {
    sessionOf(c);
    const page = pageRequest(c);
    // One row more than the page tells whether another page follows.
    const { rows } = reader.query(undefined, RULE.namespace, "Rules", { after: page.after ?? "", limit: page.limit + 1 });
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    return c.json({ items: items.map((row) => ruleOf(reader, row)), next });
  });

  api.post("/api/rules", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["text"]);
    const check = new FieldCheck();
    const text = check.text(body.text, "text", true);
    check.done();
    const id = timeOrderedId("rule", deps.now());
    const signed = await signedWrite(writer, { namespace: RULE.namespace, action: "Add", subject: id, args: { text } });
    const stored = reader.record(undefined, RULE.namespace, RULE.aggregate, id);
    if (stored === null) throw new Error(`rule ${id} was accepted (seq ${signed.receipt.seq}) but cannot be read`);
    return c.json({ ...ruleOf(reader, { id, ...stored.state }), receipt: signed.receipt, jws: signed.jws }, 201);
  });

  api.delete("/api/rules/:id", async (c) => {
    sessionOf(c);
    await deleteKept(reader, writer, RULE, c.req.param("id"));
    return c.body(null, 204);
  });
}

/** A rule from a row of `Rules` (or a record's state with its id). */
function ruleOf(reader: PersonReader, row: Record<string, unknown>): RuleView {
  const id = String(row.id);
  return {
    id,
    text: String(row.text),
    enabled: row.enabled === true,
    createdAt: createdAt(reader, RULE.namespace, RULE.aggregate, id),
    createdBy: typeof row.creator === "string" ? row.creator : null,
  };
}
