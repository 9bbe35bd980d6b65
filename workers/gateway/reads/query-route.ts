/**
 * @module `POST /v1/{tenant}/{namespace}/queries/{Query}` (wire.md "Queries"): body
 * `{"params": {…}}` → `{"rows": […], "artifact": "art_…"}`. Exposure decides who may ask:
 * `api public` anyone, `api authenticated` a bearer token from a caller the tenant knows, internal
 * queries are not served (404). The plan is compiled to SQL once per (artifact, query) and run in
 * one read transaction, so the rows and the artifact answered come from one snapshot.
 */
import type { Context, Hono } from "hono";
import { fromColumn } from "../../../shared/store/columns.ts";
import { tenantExists } from "../../../shared/store/roles.ts";
import { HttpProblem, problem } from "../../../shared/problem.ts";
import { bearerOf, requireCaller } from "./caller.ts";
import { QueryArithmeticError } from "./int-functions.ts";
import { checkParams } from "./query-params.ts";
import { bindings, type CompiledQuery, compileQuery, queryPlan } from "./query-sql.ts";
import type { ReadRouteDeps } from "./read-deps.ts";
import { UnsupportedQuery } from "./sql-expr.ts";

/** Compiled queries kept at most; compiling again is cheap, so the cache is simply cleared. */
const MAX_COMPILED = 512;

/** The body's `params`, from `{"params": {…}}` (an empty body means no parameters). */
async function paramsFrom(c: Context): Promise<unknown> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json" && type !== "") throw new HttpProblem(problem(415, "unsupported-media-type", 'send the parameters as application/json {"params": {…}}'));
  const text = await c.req.text();
  if (text.trim() === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpProblem(problem(400, "malformed-json", "the request body is not valid JSON"));
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new HttpProblem(problem(400, "malformed-body", 'the body must be {"params": {…}}', [{ pointer: "#", detail: "must be an object" }]));
  }
  return (body as { params?: unknown }).params;
}

export function mountQueryRoute(app: Hono, deps: ReadRouteDeps): void {
  const compiled = new Map<string, CompiledQuery | UnsupportedQuery>();

  app.post("/v1/:tenant/:namespace/queries/:query", async function postQuery(c) {
    const { tenant, namespace, query } = c.req.param();
    const input = await paramsFrom(c);
    const now = deps.now();
    const bearer = await bearerOf(c, tenant, namespace, now);
    const answer = deps.store.read((db) => {
      const active = deps.store.active(tenant, namespace);
      if (active === null) {
        const what = tenantExists(db, tenant) ? `tenant '${tenant}' has no contract installed for ${namespace}` : `no tenant '${tenant}'`;
        throw new HttpProblem(problem(404, "not-found", what));
      }
      const plan = queryPlan(active.schema, query);
      if (plan === undefined || plan.exposure === "internal") throw new HttpProblem(problem(404, "not-found", `${namespace} has no query '${query}' served by the API`));
      if (plan.exposure === "authenticated") requireCaller(c, db, bearer, tenant, "known", now);

      const key = `${active.artifact}\u0000${query}`;
      let sql = compiled.get(key);
      if (sql === undefined) {
        try {
          sql = compileQuery(active.schema, plan);
        } catch (error) {
          if (!(error instanceof UnsupportedQuery)) throw error;
          sql = error;
        }
        if (compiled.size >= MAX_COMPILED) compiled.clear();
        compiled.set(key, sql);
      }
      if (sql instanceof UnsupportedQuery) throw new HttpProblem(problem(501, "query-not-supported", `${query}: ${sql.message}`));

      const params = checkParams(plan.params, input, sql.counts);
      if (!params.ok) throw new HttpProblem(problem(400, "bad-parameters", `the parameters do not match those of '${query}'`, params.errors));
      let rows: Record<string, unknown>[];
      try {
        rows = deps.store.prepare(sql.sql).all(bindings(sql, tenant, params.values)) as Record<string, unknown>[];
      } catch (error) {
        if (!(error instanceof QueryArithmeticError)) throw error;
        throw new HttpProblem({ ...problem(422, "query-failed", `${query} cannot be answered on the stored data: ${error.message}`), code: error.code });
      }
      const columns = sql.columns;
      return {
        artifact: active.artifact,
        rows: rows.map((row) => Object.fromEntries(columns.map((col) => [col.name, fromColumn(col.type, row[col.name])]))),
      };
    });
    return c.json({ rows: answer.rows, artifact: answer.artifact });
  });
}
