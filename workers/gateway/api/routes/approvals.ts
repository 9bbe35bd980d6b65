/**
 * @module The person's approvals, records of `std.approvals` in the personal tenant:
 *
 * ```
 * GET  /api/approvals?status=waiting|approved|denied|all&after=&limit=
 *                          → {items: [{id, kind, summary, status, sensitive, digest, target, requestedBy, requestedAt, decidedBy, decidedAt}], next}
 * GET  /api/approvals/{id} → the approval, with its payload (an install's source)
 * POST /api/approvals/{id} {approve: true, editedArgs?} → 200 {approval, receipt, jws} (an install: and `install`;
 *                                                     a tool call: the receipt is the approved command's, and `decision` the approval's)
 * POST /api/approvals/{id} {approve: false} → 200 {denied: true, approval, receipt, jws}
 * ```
 *
 * A tool call of the assistant (`kind: tool`) holds the exact command approving it signs; approving
 * with `editedArgs` (an object: the arguments to change; the others stay as proposed) dry-runs the edited command first, and a
 * refusal answers `422` and decides nothing. The decision records the session that made it and,
 * for a step-up approval, the passkey assertion the session stepped up with. Once approved, the
 * command is signed as the person with the approval's id as its idempotency key (so it runs once),
 * what came of it is recorded (`CarriedOut`), and the turn that asked resumes; a denial resumes it
 * too (the model is told).
 *
 * Deciding is the contract's `Approve` or `Deny`, signed as the person; deciding twice is the
 * contract's refusal (`422 refused` with the receipt). Approving a sensitive approval (every install)
 * needs a fresh step-up, checked before anything is decided. An approved install is then carried
 * out (approvals/install-approval.ts) and what came of it recorded in the approval (`carriedOutAt`,
 * `outcome`); when the engine refuses it, the approval stays approved and the answer is the engine's
 * problem (`409 upgrade-required`, …) with the approval's receipt. The decision itself is
 * approvals/decide-approval.ts, which an AG-UI resume on `/copilotkit` goes through as well.
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { APPROVALS, type ApprovalStatus, type ApprovalView, approvalView, readApproval, STATUS_VALUES } from "../approvals/approval-records.ts";
import { decideApproval, type DecideDeps } from "../approvals/decide-approval.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import { jsonBody } from "../request-body.ts";
import { TOOL_APPROVAL, toolCommandOf } from "../assistant-host/tool-calls.ts";

/** What the approvals routes need: what deciding needs (approvals/decide-approval.ts). */
export type ApprovalRouteDeps = DecideDeps;

/** Mounts the approvals routes. */
export function mountApprovalRoutes(api: Hono<ApiEnv>, deps: ApprovalRouteDeps): void {
  const { reader } = deps;

  api.get("/api/approvals", (c) => {
    sessionOf(c);
    const status = statusParameter(c.req.query("status"));
    const page = pageRequest(c);
    const params = { after: page.after ?? "", limit: page.limit + 1 };
    // One row more than the page tells whether another page follows.
    const { rows } = status === "all" ? reader.query(undefined, APPROVALS, "Approvals", params) : reader.query(undefined, APPROVALS, "ByStatus", { ...params, status: STATUS_VALUES[status] });
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    return c.json({ items: items.map((row) => approvalView(String(row.id), row)), next });
  });

  api.get("/api/approvals/:id", (c) => {
    sessionOf(c);
    return c.json(readApproval(reader, c.req.param("id")));
  });

  api.post("/api/approvals/:id", async (c) => {
    const session = sessionOf(c);
    const body = await jsonBody(c, ["approve", "editedArgs"]);
    if (typeof body.approve !== "boolean") {
      const detail = "approve must be true (approve) or false (deny)";
      throw new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: "#/approve", detail }]));
    }
    const approval = readApproval(reader, c.req.param("id"));
    const edited = editedArgsOf(body.editedArgs, approval, body.approve);
    return c.json(await decideApproval(deps, { approval, approve: body.approve, edited, session }));
  });
}

/** `editedArgs` as the edited arguments of a tool call's action, or null when none were sent. */
function editedArgsOf(value: unknown, approval: ApprovalView, approve: boolean): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  const bad = (detail: string) => new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: "#/editedArgs", detail }]));
  if (!approve) throw bad("editedArgs goes with approve: true");
  if (approval.kind !== TOOL_APPROVAL || toolCommandOf(approval).kind !== "action") throw bad("only an action the assistant proposed takes edited arguments");
  if (typeof value !== "object" || Array.isArray(value)) throw bad("editedArgs is an object: the action's arguments");
  // The fields sent replace the proposed ones; the others stay as proposed.
  return { ...toolCommandOf(approval).args, ...(value as Record<string, unknown>) };
}

function statusParameter(value: string | undefined): ApprovalStatus | "all" {
  if (value === undefined || value === "") return "waiting";
  if (value === "all" || Object.hasOwn(STATUS_VALUES, value)) return value as ApprovalStatus | "all";
  const detail = "status is one of waiting, approved, denied, all";
  throw new HttpProblem(problem(400, "bad-parameters", detail, [{ pointer: "?status", detail }]));
}
