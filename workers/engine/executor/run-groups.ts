/**
 * @module Running a batch's commands through contract programs, grouped by subject: the commands of
 * one subject run in order, each on the state the previous one left; different subjects are
 * independent, so groups can run on different threads. Pure apart from the artifact loader.
 */
import type { LoadedArtifact, Outcome, State } from "../../../contracts/runtime/index.ts";
import { ArgumentError } from "../../../contracts/runtime/index.ts";
import { type Reason, refusals } from "../../../contracts/refusals.ts";

/** One command to run: its action (`Aggregate.Action`), arguments and context. */
export interface ExecStep {
  readonly action: string;
  readonly args: Record<string, unknown>;
  readonly context: { readonly signer: string; readonly time: number };
  /** A refusal the engine already decided (authorization): the program is not run. */
  readonly refusal?: Reason;
}

/** The commands of one subject, in order, with the state they start from (null: no record yet). */
export interface ExecGroup {
  readonly artifact: string;
  readonly aggregate: string;
  readonly state: State | null;
  readonly steps: readonly ExecStep[];
}

/** What one step did: its outcome (or its ill-typed arguments) and the state before and after. */
export type StepResult =
  | { readonly kind: "decided"; readonly outcome: Outcome; readonly before: State; readonly after: State }
  | { readonly kind: "bad-arguments"; readonly problems: readonly { field: string; message: string }[] };

/**
 * Runs every group. A step whose program throws (anything but ill-typed arguments) is refused as
 * `program_failed` and the group goes on from the state before it: the outcome depends on the
 * command alone, so every voter records the same refusal rather than failing on the entry forever.
 */
export function runGroups(load: (artifact: string) => LoadedArtifact, groups: readonly ExecGroup[]): StepResult[][] {
  return groups.map((group) => {
    const program = load(group.artifact);
    let state = group.state ?? program.defaultState(group.aggregate);
    return group.steps.map((step): StepResult => {
      const before = state;
      if (step.refusal !== undefined) return { kind: "decided", outcome: { outcome: "refused", reason: step.refusal }, before, after: before };
      try {
        const outcome = program.execute(step.action, { state: before, args: step.args, context: step.context });
        if (outcome.outcome === "accepted") state = outcome.state;
        return { kind: "decided", outcome, before, after: state };
      } catch (error) {
        if (error instanceof ArgumentError) return { kind: "bad-arguments", problems: error.problems };
        const kind = error instanceof Error ? error.name : typeof error;
        return { kind: "decided", outcome: { outcome: "refused", reason: refusals.programFailed(kind) }, before, after: before };
      }
    });
  });
}
