/**
 * @module Deciding an approval, the one way `POST /api/approvals/{id}` and an AG-UI resume on
 * `/copilotkit` both do it. Denying signs `Deny`; approving checks the step-up a sensitive approval
 * needs before anything is decided, then signs `Approve` with the deciding session (and, for a
 * step-up, the passkey assertion the session stepped up with). An approved tool call of the
 * assistant is dry-run first when its arguments were edited (a refusal decides nothing), then
 * carried out once (its approval's id is the command's idempotency key), and its turn resumes; a
 * denial resumes the turn too (the model is told). An approved install is compiled again and
 * installed (install-approval.ts); an approved email is queued once through the outbox
 * (comms/mail-sender.ts). What the contract refuses (deciding twice, an expired approval)
 * is thrown as `422 refused` with the receipt.
 */
import type { ArtifactWire } from "../../../../contracts/artifact-wire.ts";
import { receiptOf } from "../../../../shared/identity/index.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { SessionRecord } from "../account/account-store.ts";
import { requireStepUp } from "../account/account-context.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { accountProblem } from "../account-problem.ts";
import { carryOutTool, TOOL_APPROVAL, toolCommandOf } from "../assistant-host/tool-calls.ts";
import type { TurnHost } from "../assistant-host/turn-host.ts";
import type { Comms } from "../comms/comms.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { refusedProblem } from "../personal/signed-write.ts";
import { type ApprovalView, approvalView, needsStepUp, readApproval, signApproval } from "./approval-records.ts";
import { artifactToInstall, carryOut, INSTALL, type InstallDeps } from "./install-approval.ts";

/** What deciding needs. */
export interface DecideDeps extends InstallDeps {
  readonly account: Pick<AccountCeremonies, "context">;
  /** Resumes the assistant's turn a decided tool call belongs to (absent where no assistant runs). */
  readonly turns?: Pick<TurnHost, "enqueue" | "approvalFrame">;
  /** Carries out an approved email (absent where no mail is sent: carried out at the next start). */
  readonly comms?: Pick<Comms, "carryOutApproved">;
}

/** One decision: the approval as read (with its payload), yes or no, the edited arguments (the action's whole arguments) or null, and the deciding session. */
export interface Decision {
  readonly approval: ApprovalView;
  readonly approve: boolean;
  readonly edited: Record<string, unknown> | null;
  readonly session: SessionRecord;
}

/** Decides `decision.approval`; answers what `POST /api/approvals/{id}` answers, or throws its problem. */
export async function decideApproval(deps: DecideDeps, decision: Decision): Promise<Record<string, unknown>> {
  const { reader, writer } = deps;
  const { approval, edited, session } = decision;
  if (!decision.approve) {
    const signed = await signApproval(writer, { action: "Deny", subject: approval.id, args: { session: session.id } });
    const denied = decided(approval, signed.receipt.state);
    if (approval.kind === TOOL_APPROVAL) await resume(deps, denied);
    return { denied: true, approval: denied, receipt: signed.receipt, jws: signed.jws };
  }
  const stepUp = needsStepUp(approval);
  if (stepUp) {
    const allowed = requireStepUp(deps.account.context, session);
    if (!allowed.ok) throw new HttpProblem(accountProblem(allowed.error));
  }
  const evidence = stepUp ? clip(session.stepUpEvidence ?? "", 4000) : "";
  if (approval.kind === TOOL_APPROVAL) {
    if (edited !== null) await dryRunEdited(writer, approval, edited);
    const signed = await signApproval(writer, { action: "Approve", subject: approval.id, args: { session: session.id, evidence, edited_args: edited === null ? "" : JSON.stringify(edited) } });
    const approved = decided(approval, signed.receipt.state);
    const command = toolCommandOf(approval);
    const receipt = { receipt: signed.receipt, jws: signed.jws };
    if (command.kind === "query") {
      await resume(deps, approved);
      return { approval: approved, decision: receipt, ...receipt };
    }
    const answer = await carryOutTool({ reader, writer }, { ...approval, ...approved, payload: approval.payload }, edited);
    await resume(deps, readApproval(reader, approval.id, false));
    const carried = { approval: readApproval(reader, approval.id, false), decision: receipt };
    if (answer.kind === "problem") throw new HttpProblem({ ...answer.problem, detail: `approved, but not carried out: ${answer.problem.detail ?? answer.problem.title}`, ...carried });
    if (answer.outcome === "refused") throw new HttpProblem({ ...refusedProblem(answer.jws), ...carried });
    return { ...carried, receipt: receiptOf(answer.jws), jws: answer.jws };
  }
  // What an install would put in place is known before the decision is recorded.
  const artifact: ArtifactWire | null = approval.kind === INSTALL ? await artifactToInstall(deps, approval) : null;
  const signed = await signApproval(writer, { action: "Approve", subject: approval.id, args: { session: session.id, evidence, edited_args: "" } });
  const answer = { approval: decided(approval, signed.receipt.state), receipt: signed.receipt, jws: signed.jws };
  if (artifact === null) {
    const sending = deps.comms?.carryOutApproved({ ...approval, ...answer.approval, payload: approval.payload ?? "" }) ?? null;
    return sending === null ? answer : { ...answer, ...(await sending), approval: readApproval(reader, approval.id, false) };
  }
  const installed = await carryOut(deps, approval.id, artifact);
  const carried = { ...answer, approval: readApproval(reader, approval.id, false) };
  if (!installed.ok) throw new HttpProblem({ ...installed.problem, detail: `approved, but not installed: ${installed.problem.detail}`, ...carried });
  return { ...carried, install: installed.value };
}

/** The turn a decided tool call belongs to runs on, and `/api/events` hears of the decision. */
export async function resume(deps: Pick<DecideDeps, "turns">, approval: ApprovalView): Promise<void> {
  deps.turns?.approvalFrame(approval);
  if (approval.turn !== null) await deps.turns?.enqueue(approval.turn, `${approval.id}:decided`);
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
