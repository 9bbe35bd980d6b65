/**
 * @module The engine's preview of a command: the very checks and program run a batch gets
 * (command-plan.ts: tenant, namespace, action, exposure, caller, authorization with the signer as
 * `context.signer`, the program on the executor), planned against the current state and never
 * committed. Nothing is written — no history entry, no state, no idempotency key — so no commit
 * notice follows either. A preview is planned on its own, outside the command queue: it never
 * joins, delays or reorders a batch, and a batch never sees it.
 *
 * Planning is safe beside the batches on the one writer connection: its reads run in one
 * synchronous read transaction, and every write of the store (a batch's commit, an install) is
 * synchronous too, so neither can begin inside the other.
 */
import type { Clock } from "../../shared/clock.ts";
import { problem } from "../../shared/problem.ts";
import type { CommandAnswer, PreviewAnswer, SubmittedCommand } from "../../shared/protocol/engine.ts";
import { publicState } from "./command-commit.ts";
import { BatchPlanner, type PlanDeps, type PlannedCommand } from "./command-plan.ts";

/** What previewing needs: what planning reads, and the clock that gives the command its time. */
export interface PreviewDeps extends PlanDeps {
  readonly clock: Clock;
}

/** Previews commands against one store; its planner's statements are its own, compiled once. */
export class CommandPreviewer {
  readonly #planner: BatchPlanner;
  readonly #clock: Clock;

  constructor(deps: PreviewDeps) {
    this.#planner = new BatchPlanner(deps);
    this.#clock = deps.clock;
  }

  /** What the engine would decide for `command` now: the state it would leave, the refusal, or the problem. */
  async preview(command: SubmittedCommand): Promise<PreviewAnswer> {
    // The plan's answers are read from the plan itself: its `resolve` is never called.
    const plan = await this.#planner.plan([{ command, resolve: () => undefined }], this.#clock.now());
    const [decided] = plan.commands;
    if (decided === undefined) throw new Error("a plan of one command decided nothing");
    return previewOf(decided);
  }
}

/** The preview answer of one planned command. */
function previewOf(c: PlannedCommand): PreviewAnswer {
  switch (c.kind) {
    case "answer":
      return answered(c.answer);
    case "write":
      if (c.write.reason !== null) return { kind: "preview", outcome: "refused", reason: c.write.reason };
      return { kind: "preview", outcome: "accepted", state: publicState(c.write.fields, c.write.after) };
    case "repeat":
      // Only a batch of several commands can repeat one of its own.
      return previewOf(c.of);
    default:
      return c satisfies never;
  }
}

/**
 * An answer made without running the program: a problem as it is; a receipt stored under the
 * command's idempotency key is what sending it would answer again, so its outcome is the preview's.
 */
function answered(answer: CommandAnswer): PreviewAnswer {
  if (answer.kind === "problem") return answer;
  const { receipt } = answer;
  if (receipt.outcome === "accepted") return { kind: "preview", outcome: "accepted", state: receipt.state ?? {} };
  if (receipt.reason === null) return { kind: "problem", problem: problem(500, "internal", `receipt ${receipt.id} is refused without a reason`) };
  return { kind: "preview", outcome: "refused", reason: receipt.reason };
}
