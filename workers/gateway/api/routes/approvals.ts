/**
 * @module The person's approvals, records of `std.approvals` in the personal tenant:
 *
 * ```
 * GET  /api/approvals?status=waiting|approved|denied|all&after=&limit=
 *                          → {items: [{id, kind, summary, status, sensitive, digest, target, requestedBy, requestedAt, decidedBy, decidedAt}], next}
 * GET  /api/approvals/{id} → the approval, with its payload (an install's source)
 * POST /api/approvals/{id} {approve: true}  → 200 {approval, receipt, jws} (an install: and `install`)
 * POST /api/approvals/{id} {approve: false} → 200 {denied: true, approval, receipt, jws}
 * ```
 *
 * Deciding is the contract's `Approve` or `Deny`, signed as the person; deciding twice is the
 * contract's refusal (`422 refused` with the receipt). Approving a sensitive approval (every install)
 * needs a fresh step-up, checked before anything is decided. An approved install is then carried
 * out (approvals/install-approval.ts) and what came of it recorded in the approval (`carriedOutAt`,
 * `outcome`); when the engine refuses it, the approval stays approved and the answer is the engine's
 * problem (`409 upgrade-required`, …) with the approval's receipt.
 */
import type { Hono } from "hono";
import type { ArtifactWire } from "../../../../contracts/artifact-wire.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { APPROVALS, type ApprovalStatus, type ApprovalView, approvalView, needsStepUp, readApproval, signApproval, STATUS_VALUES } from "../approvals/approval-records.ts";
import { artifactToInstall, carryOut, INSTALL, type InstallDeps } from "../approvals/install-approval.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";

/** What the approvals routes need. */
export interface ApprovalRouteDeps extends InstallDeps {
  readonly account: Pick<AccountCeremonies, "context">;
}

/** Mounts the approvals routes. */
export function mountApprovalRoutes(api: Hono<ApiEnv>, deps: ApprovalRouteDeps): void {
  const { reader, writer } = deps;

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
    sessionOf(c);
    const body = await jsonBody(c, ["approve"]);
    if (typeof body.approve !== "boolean") {
      const detail = "approve must be true (approve) or false (deny)";
      throw new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: "#/approve", detail }]));
    }
    const approval = readApproval(reader, c.req.param("id"));
    if (!body.approve) {
      const signed = await signApproval(writer, { action: "Deny", subject: approval.id, args: {} });
      return c.json({ denied: true, approval: decided(approval, signed.receipt.state), receipt: signed.receipt, jws: signed.jws });
    }
    if (needsStepUp(approval)) requireSteppedUp(c, deps.account);
    // What an install would put in place is known before the decision is recorded.
    const artifact: ArtifactWire | null = approval.kind === INSTALL ? await artifactToInstall(deps, approval) : null;
    const signed = await signApproval(writer, { action: "Approve", subject: approval.id, args: {} });
    const answer = { approval: decided(approval, signed.receipt.state), receipt: signed.receipt, jws: signed.jws };
    if (artifact === null) return c.json(answer);
    const installed = await carryOut(deps, approval.id, artifact);
    const carried = { ...answer, approval: readApproval(reader, approval.id, false) };
    if (!installed.ok) throw new HttpProblem({ ...installed.problem, detail: `approved, but not installed: ${installed.problem.detail}`, ...carried });
    return c.json({ ...carried, install: installed.value });
  });
}

/** The approval after its decision: the receipt's state, without the payload the caller already has. */
function decided(approval: ApprovalView, state: Record<string, unknown> | null): ApprovalView {
  return state === null ? approval : approvalView(approval.id, state);
}

function statusParameter(value: string | undefined): ApprovalStatus | "all" {
  if (value === undefined || value === "") return "waiting";
  if (value === "all" || Object.hasOwn(STATUS_VALUES, value)) return value as ApprovalStatus | "all";
  const detail = "status is one of waiting, approved, denied, all";
  throw new HttpProblem(problem(400, "bad-parameters", detail, [{ pointer: "?status", detail }]));
}
