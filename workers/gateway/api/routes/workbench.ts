/**
 * @module The Workbench over `/api`:
 *
 * ```
 * POST /api/workbench/check   {source, steps: [{action, subject, args?, signer?}]}
 *                             → 200 {artifact, namespace, steps: [{step, action, subject, signer, pid, outcome, state | reason | problem | error}]}
 *                             | 422 compile-errors {errors: [{message, line, column}]}
 * POST /api/workbench/install {source} → 202 {approval: {id, kind, summary, status}, receipt, jws}
 * GET  /api/workbench/tools   → {items: [{name, kind, params, aggregate?, exposure}], next}
 * ```
 *
 * A check runs the Workbench on a throwaway node in a child process (workbench/workbench-runner.ts):
 * real records are never touched. An install is not done here: it becomes a waiting approval that
 * the person decides with `POST /api/approvals/{id}` (routes/approvals.ts).
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { APPROVALS } from "../approvals/approval-records.ts";
import { type InstallDeps, requestInstall } from "../approvals/install-approval.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import { jsonBody } from "../request-body.ts";
import { readSteps } from "../workbench/check-steps.ts";
import { compileErrors } from "../workbench/install-compile.ts";
import { contractTools, type Tool } from "../workbench/tools.ts";
import { WorkbenchRunner } from "../workbench/workbench-runner.ts";

/** What the Workbench routes need. */
export interface WorkbenchDeps extends InstallDeps {
  /** Runs checks in child processes (one is made when absent). */
  readonly workbench?: WorkbenchRunner;
}

/** Mounts the Workbench routes. */
export function mountWorkbenchRoutes(api: Hono<ApiEnv>, deps: WorkbenchDeps): void {
  const runner = deps.workbench ?? new WorkbenchRunner();

  api.post("/api/workbench/check", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["source", "steps"]);
    const source = sourceOf(body.source);
    const steps = readSteps(body.steps);
    const result = await runner.check(source, steps, c.req.raw.signal);
    if (!result.ok) throw compileErrors(result.errors);
    return c.json({ artifact: result.artifact, namespace: result.namespace, steps: result.steps });
  });

  api.post("/api/workbench/install", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["source"]);
    const { approval, signed } = await requestInstall(deps, sourceOf(body.source));
    return c.json({ approval, receipt: signed.receipt, jws: signed.jws }, 202);
  });

  api.get("/api/workbench/tools", (c) => {
    sessionOf(c);
    const page = pageRequest(c);
    const tools = deps.reader.read(undefined, (r) => {
      const rows = r.db.prepare("SELECT namespace FROM installs WHERE tenant = ? AND status = 'active' ORDER BY namespace").all(r.tenant) as { namespace: string }[];
      // Deciding approvals is the person's alone: a tool that could approve would defeat them.
      return rows.filter((row) => row.namespace !== APPROVALS).flatMap((row): Tool[] => contractTools(r.contract(row.namespace).schema));
    });
    return c.json(pageOf(tools, (tool) => tool.name, page));
  });
}

function sourceOf(value: unknown): string {
  if (typeof value === "string") return value;
  const detail = value === undefined ? "source is required: the contract's Markdown" : "source must be a string: the contract's Markdown";
  throw new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: "#/source", detail }]));
}
