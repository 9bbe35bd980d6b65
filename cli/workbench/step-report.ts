/**
 * @module What the Workbench reports for one step: the node's receipt (the subject's new state or
 * the refusal), the problem document of a command the node did not take, or — when the step's
 * process timed out or failed — one line saying so.
 */
import type { ChildOutcome } from "../../shared/node-child.ts";
import type { StepReport } from "../../shared/protocol/workbench.ts";

export type { StepReport };

/** Which step ran, as every report names it. */
export type StepHeading = Pick<StepReport, "step" | "action" | "subject" | "signer">;

/** What step.ts prints: the node's answer to the command. */
interface StepAnswer {
  readonly status: number;
  readonly body: { receipt?: { outcome: "accepted" | "refused"; state: Record<string, unknown>; reason: unknown } };
}

/** The report for a step whose process ended with `outcome` (it was given `timeoutMs`). */
export function stepReport(heading: StepHeading, outcome: ChildOutcome, timeoutMs: number): StepReport {
  const base = { ...heading, pid: outcome.pid };
  if (!outcome.ok && outcome.timedOut) return { ...base, outcome: "timeout", error: `no answer within ${timeoutMs} ms; the step was killed` };
  if (!outcome.ok) return { ...base, outcome: "failed", error: `the step's process ${outcome.error}` };
  const answer = parseAnswer(outcome.stdout);
  if (answer === null) return { ...base, outcome: "failed", error: "the step's process printed no answer" };
  const receipt = answer.body.receipt;
  if (receipt === undefined) return { ...base, outcome: "rejected", problem: answer.body };
  return { ...base, outcome: receipt.outcome, state: receipt.state, ...(answer.status === 422 ? { reason: receipt.reason } : {}) };
}

function parseAnswer(stdout: string): StepAnswer | null {
  try {
    const answer = JSON.parse(stdout) as unknown;
    if (answer === null || typeof answer !== "object") return null;
    const { status, body } = answer as Record<string, unknown>;
    return typeof status === "number" && body !== null && typeof body === "object" ? (answer as StepAnswer) : null;
  } catch {
    return null;
  }
}
