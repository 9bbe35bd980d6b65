/**
 * @module The exchange's `/api` routes (exchange/exchange.ts): the person's relationships with
 * other persons' nodes, and the signed documents sent to them and received from them.
 *
 * ```
 * GET    /api/exchange/relationships?after&limit         → {items: [{id, did, url, name, addedAt, lastContact, lastError}], next}
 * POST   /api/exchange/relationships {did, url, name}    → 201 the relationship        (step-up)
 * PATCH  /api/exchange/relationships/{id} {name?, url?} → 200 the relationship        (step-up for a new url)
 * DELETE /api/exchange/relationships/{id}                → 204                         (step-up)
 * POST   /api/exchange/documents {relationship, namespace, subject, aggregate?, tenant?}
 *                                                        → 201 {id, status: "delivered" | "failed", error?}
 * POST   /api/exchange/documents/{id}/retry              → 200 {id, status, error?}; 409 document-not-failed
 * GET    /api/exchange/documents?box=in|out&after&limit  → {items: [document…], next}, newest first
 * GET    /api/exchange/documents/{id}?box=in|out         → the document, its payload, its JWS and `verified`
 * ```
 *
 * Wrong fields are `400 bad-settings` naming each (`#/url`); a did pinned already `409
 * relationship-exists`; an unknown relationship or document `404`. A relationship's did is what it
 * pins and never changes (remove it and add another); a new URL is where the person's signed
 * documents go next, so it needs a step-up as adding one does; a new name does not. Each change
 * of the exchange is an `exchange` frame on `/api/events` (exchange/exchange.ts `ExchangeEvent`).
 */
import type { Context, Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { Exchange, SendInput } from "../exchange/exchange.ts";
import type { Box } from "../exchange/exchange-store.ts";
import { type FieldError, relationshipChange, relationshipInput } from "../exchange/relationship-rules.ts";
import { pageRequest } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import { badParameter, NAME_MAX } from "./data-input.ts";

/** What the exchange routes need. */
export interface ExchangeRouteDeps {
  readonly exchange: Exchange;
  readonly reader: Pick<PersonReader, "did">;
  readonly account: Pick<AccountCeremonies, "context">;
}

/** Longest subject a document is sent for. */
const SUBJECT_MAX = 256;

/** Mounts the exchange routes. */
export function mountExchangeRoutes(api: Hono<ApiEnv>, deps: ExchangeRouteDeps): void {
  const { exchange } = deps;

  api.get("/api/exchange/relationships", (c) => {
    sessionOf(c);
    return c.json(exchange.relationships(pageRequest(c)));
  });

  api.post("/api/exchange/relationships", async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    const body = await jsonBody(c, ["did", "url", "name"]);
    const input = relationshipInput(body, deps.reader.did());
    if (!input.ok) throw badSettings(input.errors);
    return c.json(exchange.addRelationship(input.value), 201);
  });

  api.patch("/api/exchange/relationships/:id", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["name", "url"]);
    const change = relationshipChange(body);
    if (!change.ok) throw badSettings(change.errors);
    const id = c.req.param("id");
    const current = exchange.relationship(id);
    if (current === null) throw new HttpProblem(problem(404, "not-found", "no such relationship"));
    if (change.value.url !== undefined && change.value.url !== current.url) requireSteppedUp(c, deps.account);
    const edited = exchange.editRelationship(id, change.value);
    if (edited === null) throw new HttpProblem(problem(404, "not-found", "no such relationship"));
    return c.json(edited);
  });

  api.delete("/api/exchange/relationships/:id", (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    if (!exchange.removeRelationship(c.req.param("id"))) throw new HttpProblem(problem(404, "not-found", "no such relationship"));
    return c.body(null, 204);
  });

  api.post("/api/exchange/documents", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["relationship", "namespace", "subject", "aggregate", "tenant"]);
    return c.json(await exchange.send(sendInput(body)), 201);
  });

  api.post("/api/exchange/documents/:id/retry", async (c) => {
    sessionOf(c);
    return c.json(await exchange.retry(c.req.param("id")));
  });

  api.get("/api/exchange/documents", (c) => {
    sessionOf(c);
    return c.json(exchange.documents(boxOf(c), pageRequest(c)));
  });

  api.get("/api/exchange/documents/:id", (c) => {
    sessionOf(c);
    const found = exchange.document(c.req.param("id"), boxOf(c));
    if (found === null) throw new HttpProblem(problem(404, "not-found", "no such document"));
    return c.json(found);
  });
}

/** What to send, every wrong field named. */
function sendInput(body: { readonly [K in keyof SendInput]?: unknown }): SendInput {
  const errors: FieldError[] = [];
  const text = (field: keyof SendInput, max: number, optional = false): string | undefined => {
    const value = body[field];
    if (value === undefined && optional) return undefined;
    if (typeof value === "string" && value.length > 0 && value.length <= max) return value;
    errors.push({ pointer: `#/${field}`, detail: `${field} is a string of 1 to ${max} characters${optional ? ", or absent" : ""}` });
    return undefined;
  };
  const relationship = text("relationship", NAME_MAX);
  const namespace = text("namespace", NAME_MAX);
  const subject = text("subject", SUBJECT_MAX);
  const aggregate = text("aggregate", NAME_MAX, true);
  const tenant = text("tenant", NAME_MAX, true);
  if (errors.length > 0 || relationship === undefined || namespace === undefined || subject === undefined) throw badSettings(errors);
  return { relationship, namespace, subject, ...(aggregate === undefined ? {} : { aggregate }), ...(tenant === undefined ? {} : { tenant }) };
}

/** `?box`: `in`, `out`, or null (both) when absent. */
function boxOf(c: Context): Box | null {
  const box = c.req.query("box");
  if (box === undefined || box === "") return null;
  if (box !== "in" && box !== "out") throw badParameter("box", "box is in or out");
  return box;
}

function badSettings(errors: readonly FieldError[]): HttpProblem {
  return new HttpProblem(problem(400, "bad-settings", errors.map((e) => e.detail).join("; "), errors));
}
