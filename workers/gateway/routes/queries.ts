/**
 * @module `POST /v1/{tenant}/{namespace}/queries/{Query}` (wire.md "Queries"): body
 * `{"params": {…}}` → `{"rows": […], "artifact": "art_…"}`. Exposure decides who may ask:
 * `api public` anyone, `api authenticated` a bearer token from an owner or member of the tenant or
 * from a delegate whose scope the contract delegates an action to, internal queries are not served
 * (404). A 404 names what is missing only to the tenant's owners and members; anyone else gets the
 * same 404 for a missing tenant, namespace or query. The query runs through run-query.ts inside the
 * store view's read transaction, so the rows and the artifact answered come from one snapshot.
 */
import type { Context, Hono } from "hono";
import { HttpProblem, problem } from "../../../shared/problem.ts";
import { bearerOf, missingInstall, notFound, requireReader } from "../reads/caller.ts";
import { queryPlan } from "../../../contracts/query/query-sql.ts";
import type { ReadRouteDeps } from "../reads/read-deps.ts";
import { queryProblem, queryRunner } from "../reads/run-query.ts";

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
  app.post("/v1/:tenant/:namespace/queries/:query", async function postQuery(c) {
    const { tenant, namespace, query } = c.req.param();
    const input = await paramsFrom(c);
    const now = deps.now();
    const bearer = await bearerOf(c, tenant, namespace, now);
    const answer = deps.store.read((db) => {
      const active = deps.store.active(tenant, namespace);
      if (active === null) throw notFound(db, bearer, tenant, now, () => missingInstall(db, tenant, namespace));
      const plan = queryPlan(active.schema, query);
      if (plan === undefined || plan.exposure === "internal") throw notFound(db, bearer, tenant, now, () => `${namespace} has no query '${query}' served by the API`);
      if (plan.exposure === "authenticated") requireReader(c, db, bearer, tenant, active.schema, now);
      const outcome = queryRunner(db).run(active.schema, query, tenant, input, active.artifact);
      if (outcome.ok) return { artifact: active.artifact, rows: outcome.rows };
      // An unknown query tells a stranger no more than an unknown tenant does.
      if (outcome.code === "not-found") throw notFound(db, bearer, tenant, now, () => outcome.message);
      throw queryProblem(outcome);
    });
    return c.json({ rows: answer.rows, artifact: answer.artifact });
  });
}
