/**
 * @module The person's dashboards (`std.dashboards`), under `/api/artifacts`:
 *
 * - `POST /api/artifacts {title, panels: [{namespace, query, params?}], everyMinutes?}` → `201` the
 *   dashboard; a panel whose query the personal tenant lacks, or whose parameters it does not take,
 *   is `400 bad-panel` naming it.
 * - `GET /api/artifacts/{id}` → `{id, title, panels, result: {panels: [{rows, truncated}]} | null,
 *   refreshedAt, schedule: {everyMinutes, nextAt}, error, createdAt, creator}`.
 * - `POST /api/artifacts/{id}/refresh {}` → runs every panel's query now and records the rows → the
 *   dashboard; a panel whose query fails → `422 query-failed` naming it, with the receipt of the
 *   command that recorded the failure.
 * - `POST /api/artifacts/{id}/schedule {everyMinutes}` → the dashboard (0 ends the schedule).
 * - `DELETE /api/artifacts/{id}` → `204`.
 *
 * Every write is a command signed as the person: the answers carry its `receipt` and `jws`, and a
 * change the contract refuses is `422 refused` with `reason` (`text_too_long`, `list_full`,
 * `condition_failed`, …), the receipt and its JWS; nothing changes. Unknown or deleted ids are `404`.
 */
import type { Context, Hono } from "hono";
import type { ParamProblem } from "../../../../contracts/query/query-params.ts";
import { type Receipt, receiptOf } from "../../../../shared/identity/index.ts";
import { HttpProblem, type Problem, problem } from "../../../../shared/problem.ts";
import { problemResponse } from "../../problem-response.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { panelSpecs } from "../dashboards/dashboard-panels.ts";
import { type DashboardAnswer, Dashboards } from "../dashboards/dashboards.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { refusedProblem } from "../personal/signed-write.ts";
import { jsonBody } from "../request-body.ts";

/** What the dashboard routes need; `dashboards` is the node's (shared with its scheduler), else one of their own. */
export interface DashboardRouteDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly now: () => number;
  readonly dashboards?: Dashboards;
}

/** Mounts the dashboard routes. */
export function mountDashboardRoutes(api: Hono<ApiEnv>, deps: DashboardRouteDeps): void {
  const dashboards = deps.dashboards ?? new Dashboards({ reader: deps.reader, writer: deps.writer, now: deps.now });

  api.post("/api/artifacts", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["title", "panels", "everyMinutes"]);
    const errors: ParamProblem[] = [];
    if (typeof body.title !== "string") errors.push({ pointer: "#/title", detail: "title must be a string" });
    const panels = panelSpecs(body.panels, errors);
    const everyMinutes = body.everyMinutes ?? 0;
    if (!Number.isSafeInteger(everyMinutes)) errors.push({ pointer: "#/everyMinutes", detail: "everyMinutes must be a whole number of minutes (0 for no schedule)" });
    if (errors.length > 0) throw malformed(errors);
    return answer(c, await dashboards.create({ title: body.title as string, panels, everyMinutes: everyMinutes as number }), 201);
  });

  api.get("/api/artifacts/:id", (c) => {
    sessionOf(c);
    return c.json(dashboards.read(c.req.param("id")));
  });

  api.post("/api/artifacts/:id/refresh", async (c) => {
    sessionOf(c);
    await jsonBody(c, []);
    return answer(c, await dashboards.refresh(c.req.param("id")), 200);
  });

  api.post("/api/artifacts/:id/schedule", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["everyMinutes"]);
    if (!Number.isSafeInteger(body.everyMinutes)) throw malformed([{ pointer: "#/everyMinutes", detail: "everyMinutes must be a whole number of minutes (0 ends the schedule)" }]);
    return answer(c, await dashboards.schedule(c.req.param("id"), body.everyMinutes as number), 200);
  });

  api.delete("/api/artifacts/:id", async (c) => {
    sessionOf(c);
    const removed = await dashboards.remove(c.req.param("id"));
    return removed.kind === "done" ? c.body(null, 204) : answer(c, removed, 200);
  });
}

/** A write's answer: the dashboard with the receipt and its JWS, a refusal (`422 refused` with the reason and the receipt), or the problem. */
function answer(c: Context<ApiEnv>, a: DashboardAnswer, status: 200 | 201): Response {
  switch (a.kind) {
    case "done":
      return c.json({ ...a.dashboard, receipt: receiptOf(a.jws), jws: a.jws }, status);
    case "refused":
      return problemResponse(c, refusedProblem(a.jws));
    case "failed": {
      // The failure was recorded: the problem carries that command's receipt.
      const body: Problem & { readonly receipt: Receipt; readonly jws: string } = { ...a.problem, receipt: receiptOf(a.jws), jws: a.jws };
      return problemResponse(c, body);
    }
    case "problem":
      return problemResponse(c, a.problem);
  }
}

function malformed(errors: readonly ParamProblem[]): HttpProblem {
  const first = errors[0] as ParamProblem;
  return new HttpProblem(problem(400, "malformed-body", errors.length === 1 ? first.detail : `${first.detail} (and ${errors.length - 1} more)`, errors));
}
