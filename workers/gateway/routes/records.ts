/**
 * @module One record and its history, for the tenant's owners and members (bearer token with
 * aud `"{tenant}/{namespace}"`):
 *
 * - `GET /v1/{tenant}/{namespace}/records/{Aggregate}/{subject}` → `{subject, aggregate, artifact,
 *   seq, state}` — the public fields only; 404 when the subject has no record.
 * - `GET …/records/{Aggregate}/{subject}/history?after=SEQ&limit=N` → `{entries, next}`: every
 *   command decided on that subject, accepted or refused, in commit order, `limit` (≤ 500,
 *   default 100) at a time after `after`; `next` is the `after` of the following page, or null.
 *
 * Who is asking is checked before what is asked for, so a stranger's 401 or 403 is the same for a
 * tenant, namespace or aggregate that does not exist as for one that does.
 */
import type { Context, Hono } from "hono";
import type { DatabaseSync } from "node:sqlite";
import type { Schema } from "../../../contracts/schema.ts";
import { HttpProblem, problem } from "../../../shared/problem.ts";
import { bearerOf, missingInstall, requireCaller } from "../reads/caller.ts";
import type { ReadRouteDeps } from "../reads/read-deps.ts";
import { readHistory, readRecord } from "../reads/record-reads.ts";

const MAX_LIMIT = 500;
const DEFAULT_LIMIT = 100;
/** Checks the caller and finds the aggregate in the active schema; answers its public fields. */
function resolve(c: Context, deps: ReadRouteDeps, db: DatabaseSync, bearer: Awaited<ReturnType<typeof bearerOf>>, now: number): { artifact: string; schema: Schema; fields: Schema["aggregates"][string]["fields"] } {
  const { tenant, namespace, aggregate } = c.req.param() as { tenant: string; namespace: string; aggregate: string };
  // The caller first: anyone who is not an owner or member gets the same 401 or 403
  // whether or not the tenant, namespace or aggregate exists, so these routes tell strangers nothing.
  requireCaller(c, db, bearer, tenant, "member", now);
  // A retired namespace's records and history stay readable, to owners only.
  const active = deps.store.active(tenant, namespace);
  const retired = active === null ? deps.store.retired(tenant, namespace) : null;
  const installed = active ?? retired;
  if (installed === null) throw new HttpProblem(problem(404, "not-found", missingInstall(db, tenant, namespace)));
  if (retired !== null) requireCaller(c, db, bearer, tenant, "owner", now);
  const agg = Object.hasOwn(installed.schema.aggregates, aggregate) ? installed.schema.aggregates[aggregate] : undefined;
  if (agg === undefined) throw new HttpProblem(problem(404, "not-found", `${namespace} has no aggregate '${aggregate}'`));
  return { artifact: installed.artifact, schema: installed.schema, fields: agg.fields.filter((f) => f.visibility === "public") };
}

/** A non-negative integer query parameter, within `max`, or a 400 problem. */
function intParam(c: Context, name: string, fallback: number, min: number, max: number): number {
  const text = c.req.query(name);
  if (text === undefined) return fallback;
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) throw new HttpProblem(problem(400, "bad-parameters", `'${name}' must be an integer from ${min} to ${max}`, [{ pointer: `?${name}`, detail: `must be an integer from ${min} to ${max}` }]));
  return n;
}

export function mountRecordRoutes(app: Hono, deps: ReadRouteDeps): void {
  app.get("/v1/:tenant/:namespace/records/:aggregate/:subject", async function getRecord(c) {
    const { tenant, namespace, aggregate, subject } = c.req.param();
    const now = deps.now();
    const bearer = await bearerOf(c, tenant, namespace, now);
    const record = deps.store.read((db) => {
      const { schema } = resolve(c, deps, db, bearer, now);
      const found = readRecord(deps.store, schema, aggregate, tenant, subject);
      if (found === null) throw new HttpProblem(problem(404, "not-found", `${aggregate} '${subject}' has no record`));
      return found;
    });
    return c.json(record);
  });

  app.get("/v1/:tenant/:namespace/records/:aggregate/:subject/history", async function getHistory(c) {
    const { tenant, namespace, aggregate, subject } = c.req.param();
    const after = intParam(c, "after", 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = intParam(c, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
    const now = deps.now();
    const bearer = await bearerOf(c, tenant, namespace, now);
    const page = deps.store.read((db) => {
      resolve(c, deps, db, bearer, now);
      return readHistory(deps.store, tenant, namespace, aggregate, subject, after, limit);
    });
    return c.json(page);
  });
}
