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
import { receiptOf } from "../../../../shared/identity/index.ts";
import { carryOutTool, TOOL_APPROVAL, toolCommandOf } from "../assistant-host/tool-calls.ts";
import type { TurnHost } from "../assistant-host/turn-host.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { refusedProblem } from "../personal/signed-write.ts";

/** What the approvals routes need. */
export interface ApprovalRouteDeps extends InstallDeps {
  readonly account: Pick<AccountCeremonies, "context">;
  /** Resumes the assistant's turn a decided tool call belongs to (absent where no assistant runs). */
  readonly turns?: Pick<TurnHost, "enqueue" | "approvalFrame">;
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
    const session = sessionOf(c);
    const body = await jsonBody(c, ["approve", "editedArgs"]);
    if (typeof body.approve !== "boolean") {
      const detail = "approve must be true (approve) or false (deny)";
      throw new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: "#/approve", detail }]));
    }
    const approval = readApproval(reader, c.req.param("id"));
    const edited = editedArgsOf(body.editedArgs, approval, body.approve);
    if (!body.approve) {
      const signed = await signApproval(writer, { action: "Deny", subject: approval.id, args: { session: session.id } });
      const denied = decided(approval, signed.receipt.state);
      if (approval.kind === TOOL_APPROVAL) await resume(deps, denied);
      return c.json({ denied: true, approval: denied, receipt: signed.receipt, jws: signed.jws });
    }
    const stepUp = needsStepUp(approval);
    if (stepUp) requireSteppedUp(c, deps.account);
    const evidence = stepUp ? clip(session.stepUpEvidence ?? "", 4000) : "";
    if (approval.kind === TOOL_APPROVAL) {
      if (edited !== null) await dryRunEdited(writer, approval, edited);
      const signed = await signApproval(writer, { action: "Approve", subject: approval.id, args: { session: session.id, evidence, edited_args: edited === null ? "" : JSON.stringify(edited) } });
      const approved = decided(approval, signed.receipt.state);
      const command = toolCommandOf(approval);
      const decision = { receipt: signed.receipt, jws: signed.jws };
      if (command.kind === "query") {
        await resume(deps, approved);
        return c.json({ approval: approved, decision, ...decision });
      }
      const answer = await carryOutTool({ reader, writer }, { ...approval, ...approved, payload: approval.payload }, edited);
      await resume(deps, readApproval(reader, approval.id, false));
      const carried = { approval: readApproval(reader, approval.id, false), decision };
      if (answer.kind === "problem") throw new HttpProblem({ ...answer.problem, detail: `approved, but not carried out: ${answer.problem.detail ?? answer.problem.title}`, ...carried });
      if (answer.outcome === "refused") throw new HttpProblem({ ...refusedProblem(answer.jws), ...carried });
      return c.json({ ...carried, receipt: receiptOf(answer.jws), jws: answer.jws });
    }
    // What an install would put in place is known before the decision is recorded.
    const artifact: ArtifactWire | null = approval.kind === INSTALL ? await artifactToInstall(deps, approval) : null;
    const signed = await signApproval(writer, { action: "Approve", subject: approval.id, args: { session: session.id, evidence, edited_args: "" } });
    const answer = { approval: decided(approval, signed.receipt.state), receipt: signed.receipt, jws: signed.jws };
    if (artifact === null) return c.json(answer);
    const installed = await carryOut(deps, approval.id, artifact);
    const carried = { ...answer, approval: readApproval(reader, approval.id, false) };
    if (!installed.ok) throw new HttpProblem({ ...installed.problem, detail: `approved, but not installed: ${installed.problem.detail}`, ...carried });
    return c.json({ ...carried, install: installed.value });
  });
}

/** The turn a decided tool call belongs to runs on, and `/api/events` hears of the decision. */
async function resume(deps: ApprovalRouteDeps, approval: ApprovalView): Promise<void> {
  deps.turns?.approvalFrame(approval);
  if (approval.turn !== null) await deps.turns?.enqueue(approval.turn, `${approval.id}:decided`);
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

/** Dry-runs a tool call's command with edited arguments: a refusal or a problem is thrown, and nothing is decided. */
async function dryRunEdited(writer: PersonWriter, approval: ApprovalView, args: Record<string, unknown>): Promise<void> {
  const command = toolCommandOf(approval);
  const preview = await writer.preview({ namespace: command.namespace, action: command.member, subject: command.subject, args });
  if (preview.kind === "problem") throw new HttpProblem(preview.problem);
  if (preview.outcome === "refused") {
    throw new HttpProblem({ ...problem(422, "refused", `with the edited arguments, ${command.namespace} refuses ${command.member}: ${preview.reason.message}`), reason: preview.reason.code });
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
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
