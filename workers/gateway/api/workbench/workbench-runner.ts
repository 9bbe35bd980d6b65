/**
 * @module The Workbench for `/api`: each check runs in a child process
 * (cli/workbench/workbench-child.ts), which compiles the contract and drives a throwaway node in a
 * temporary directory, so the gateway never loads the compiler nor holds a check's memory. A check
 * has a deadline (past it the child is stopped, and it removes its throwaway node and directory),
 * its output is bounded, and only `maxRunning` checks run at once: one more is `503 workbench-busy`
 * with `Retry-After` rather than a queue of throwaway nodes on a small machine.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LocatedError } from "../../../../contracts/artifact-wire.ts";
import { runNodeChild } from "../../../../shared/node-child.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { StepReport } from "../../../../shared/protocol/workbench.ts";

// A path, not an import: the Workbench is the command line's (cli/workbench/); the gateway only starts it.
const CHILD = fileURLToPath(new URL("../../../../cli/workbench/workbench-child.ts", import.meta.url));

/** One step as the Workbench takes it; `signer` names a throwaway identity (`owner`, or any member). */
export interface CheckStep {
  readonly action: string;
  readonly subject: string;
  readonly args: Record<string, unknown>;
  readonly signer?: string;
}

/** One step's report: the new state or the refusal, and the step's process id. */
export type StepOutcome = StepReport;

/** A check's result: every step's report, or the contract's compile errors. */
export type CheckResult =
  | { readonly ok: true; readonly artifact: string; readonly namespace: string; readonly steps: readonly StepOutcome[] }
  | { readonly ok: false; readonly errors: readonly LocatedError[] };

/** How much a check may take. */
export interface WorkbenchLimits {
  /** Checks running at once; one more is refused with `503 workbench-busy`. */
  readonly maxRunning: number;
  /** A whole check (compile, throwaway node, every step) is stopped after this long. */
  readonly timeoutMs: number;
  /** One step is stopped after this long and reported as `timeout`. */
  readonly stepTimeoutMs: number;
  /** The most characters of the child's answer; more stops it. */
  readonly maxOutputChars: number;
  /** Seconds a busy answer asks the caller to wait. */
  readonly retryAfterSeconds: number;
}

export const DEFAULT_WORKBENCH_LIMITS: WorkbenchLimits = { maxRunning: 1, timeoutMs: 120_000, stepTimeoutMs: 10_000, maxOutputChars: 8 * 1024 * 1024, retryAfterSeconds: 10 };

/**
 * A stopped check is killed if it has not removed its throwaway node this much later: well past the
 * time it gives that node to stop (run-workbench.ts's INTERRUPTED_NODE_STOP_MS, 3 s).
 */
const KILL_AFTER_MS = 8_000;

/** Runs checks in child processes, at most `maxRunning` at once. */
export class WorkbenchRunner {
  readonly #limits: WorkbenchLimits;
  #running = 0;

  constructor(limits: WorkbenchLimits = DEFAULT_WORKBENCH_LIMITS) {
    this.#limits = limits;
  }

  /** Checks `source` with `steps`; `signal` (the request's) stops it when the caller goes away. Throws the problem when it cannot. */
  async check(source: string, steps: readonly CheckStep[], signal?: AbortSignal): Promise<CheckResult> {
    const limits = this.#limits;
    if (this.#running >= limits.maxRunning) {
      throw new HttpProblem({ ...problem(503, "workbench-busy", `the Workbench runs ${limits.maxRunning} check${limits.maxRunning === 1 ? "" : "s"} at a time; try again shortly`), retryAfter: limits.retryAfterSeconds });
    }
    this.#running++;
    // The gateway makes the check's directory and removes it, whatever becomes of the child.
    let dir: string | null = null;
    try {
      dir = await mkdtemp(join(tmpdir(), "charter-workbench-"));
      const outcome = await runNodeChild(CHILD, {
        input: JSON.stringify({ source, steps, stepTimeoutMs: limits.stepTimeoutMs, dir }),
        timeoutMs: limits.timeoutMs,
        killAfterMs: KILL_AFTER_MS,
        maxOutputChars: limits.maxOutputChars,
        ...(signal === undefined ? {} : { cancelSignal: signal }),
      });
      if (!outcome.ok) throw new HttpProblem(problem(503, "workbench-failed", `the Workbench's process ${outcome.error}; nothing real was touched`));
      return parseResult(outcome.stdout);
    } finally {
      if (dir !== null) await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }).catch(() => undefined);
      this.#running--;
    }
  }
}

/** The child's answer, or the problem of one that is not a result (a bug on the child's side). */
function parseResult(stdout: string): CheckResult {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    value = null;
  }
  const result = value as Partial<{ ok: boolean; artifact: string; namespace: string; steps: StepOutcome[]; errors: LocatedError[] }> | null;
  if (result?.ok === true && Array.isArray(result.steps)) return { ok: true, artifact: String(result.artifact), namespace: String(result.namespace), steps: result.steps };
  if (result?.ok === false && Array.isArray(result.errors)) return { ok: false, errors: result.errors };
  throw new HttpProblem(problem(503, "workbench-failed", "the Workbench's process gave no result"));
}
