/**
 * @module The person's records per contract, generated from each installed contract's schema:
 * `/api/personal/{contract}/…` in the personal tenant, `/api/business/{contract}/…?identity=HANDLE`
 * in a business identity (a tenant) the person owns or is a member of. `{contract}` is the
 * namespace (`std.invoices`); aggregates, actions and queries are the schema's own names.
 *
 * ```
 * GET  …/{contract}/{Aggregate}?after=&limit=            → {items: [{subject, aggregate, artifact, seq, state}], next}
 * GET  …/{contract}/{Aggregate}/{subject}?after=&limit=  → {record: {…} | null, history: {items, next}}
 * POST …/{contract}/actions/{Action} {subject, args, idempotencyKey?} → 200 {receipt, jws} | 422 (refused)
 * POST …/{contract}/queries/{Query}  {params}            → {rows, artifact}
 * ```
 *
 * A subject with neither a record nor history is `404` (a subject whose commands were all refused
 * has history and no record). Unknown contract, aggregate, action or query: `404`; a tenant that is
 * not the person's: `403`. Writes are commands signed as the person, as on `/api/data/act`.
 */
import type { Context, Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { guardGenericWrite } from "../personal/generic-writes.ts";
import { pageRequest } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { jsonBody } from "../request-body.ts";
import { commandResponse, requireMember } from "./data-answers.ts";
import { badParameter, NAME_MAX, objectField, stringField } from "./data-input.ts";

interface RecordRouteDeps {
  readonly writer: PersonWriter;
  readonly reader: PersonReader;
  readonly account: Pick<AccountCeremonies, "context">;
}

/** Which tenant a prefix addresses: undefined for the personal tenant. */
type TenantOf = (c: Context<ApiEnv>) => string | undefined;

/** Mounts the personal and business record routes. */
export function mountRecordRoutes(api: Hono<ApiEnv>, deps: RecordRouteDeps): void {
  mountContractRoutes(api, deps, "/api/personal", () => undefined);
  mountContractRoutes(api, deps, "/api/business", (c) => {
    const identity = c.req.query("identity");
    if (identity === undefined || identity === "" || identity.length > NAME_MAX) throw badParameter("identity", "identity names the business identity (tenant handle) to read or write");
    return identity;
  });
}

function mountContractRoutes(api: Hono<ApiEnv>, deps: RecordRouteDeps, prefix: string, tenantOf: TenantOf): void {
  const { reader, writer } = deps;

  api.post(`${prefix}/:contract/actions/:action`, async (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const body = await jsonBody(c, ["subject", "args", "idempotencyKey"]);
    const subject = stringField(body.subject, "subject");
    const args = objectField(body.args, "args");
    const idempotencyKey = body.idempotencyKey === undefined ? undefined : stringField(body.idempotencyKey, "idempotencyKey");
    requireMember(reader, tenant);
    guardGenericWrite(c, deps, { tenant, namespace: c.req.param("contract"), action: c.req.param("action") });
    const answer = await writer.act({
      ...(tenant === undefined ? {} : { tenant }),
      namespace: c.req.param("contract"),
      action: c.req.param("action"),
      subject,
      args,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
    return commandResponse(c, answer);
  });

  api.post(`${prefix}/:contract/queries/:query`, async (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const body = await jsonBody(c, ["params"]);
    const { rows, artifact } = reader.query(tenant, c.req.param("contract"), c.req.param("query"), objectField(body.params, "params"));
    return c.json({ rows, artifact });
  });

  api.get(`${prefix}/:contract/:aggregate`, (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const page = pageRequest(c);
    const { items, next } = reader.records(tenant, c.req.param("contract"), c.req.param("aggregate"), page.after ?? "", page.limit);
    return c.json({ items, next: next === null ? null : cursorOf(next) });
  });

  api.get(`${prefix}/:contract/:aggregate/:subject`, (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const page = pageRequest(c);
    const after = page.after === null ? 0 : seqOf(page.after);
    const { contract, aggregate, subject } = c.req.param();
    // History first: the record, read after it, is at least as new as every entry shown.
    const history = reader.history(tenant, contract, aggregate, subject, after, page.limit);
    const record = reader.record(tenant, contract, aggregate, subject);
    if (record === null && after === 0 && history.entries.length === 0) {
      throw new HttpProblem(problem(404, "not-found", `${contract} has no ${aggregate} record or history for subject '${subject}'`));
    }
    return c.json({ record, history: { items: history.entries, next: history.next === null ? null : cursorOf(String(history.next)) } });
  });
}

/** An opaque list cursor for an id (list-page.ts decodes it). */
function cursorOf(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}

/** A history cursor's seq, or a `400` for one that no page gave. */
function seqOf(after: string): number {
  if (!/^\d{1,15}$/.test(after)) throw badParameter("after", "after is a cursor from an earlier page's next");
  return Number(after);
}
