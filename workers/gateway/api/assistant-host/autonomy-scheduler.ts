/**
 * @module The schedule of the assistant's autonomy runs. It keeps no state of its own: when the
 * next run is due is the last run's start (`std.autonomy`) plus the setting's interval, so a
 * restart resumes the schedule, and a node that was down when a run came due starts it when back.
 * A pass first finishes the runs whose turn has ended (a stop may have left one), then, when
 * autonomy is on, a model is configured and no run is under way, starts the run that is due — a
 * reflection, or after a reflection an initiative for the goal worked on least recently when there
 * is an active goal — and sets one timer for the next. Turned off (the default), it starts nothing
 * and sets no timer. A change of the setting, and a run begun or ended, wake it at once.
 *
 * A pass that cannot read or write (the engine restarting) tries again after a delay that doubles
 * from `retryMs` up to `recheckMs`. Lifecycle: `start()` → running → `close()`.
 */
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem } from "../../../../shared/problem.ts";
import { PassScheduler, type Timers } from "../pass-scheduler.ts";
import type { RunKind } from "./autonomy-records.ts";

/** What the schedule reads and does (assistant-host/autonomy.ts `Autonomy`). */
export interface AutonomyRuns {
  setting(): { readonly enabled: boolean; readonly intervalMinutes: number };
  modelConfigured(): boolean;
  /** Finishes the runs whose turn ended; answers the run under way, or null. */
  settle(): Promise<{ readonly id: string } | null>;
  lastRun(): { readonly kind: RunKind; readonly startedAt: number } | null;
  hasActiveGoal(): boolean;
  start(request: { kind: RunKind }): Promise<{ readonly id: string }>;
  onChange(listener: () => void): void;
}

export interface AutonomySchedulerDeps {
  readonly runs: AutonomyRuns;
  readonly now: () => number;
  readonly log: Logger;
  /** The longest wait between passes while autonomy is on (a run's end is seen within it at worst). */
  readonly recheckMs: number;
  /** A minute (tests shorten it). */
  readonly minuteMs?: number;
  /** The first wait after a pass that failed (default 1 s). */
  readonly retryMs?: number;
  readonly timers?: Timers;
}

/** Keeps the autonomy schedule: one timer, one pass at a time. */
export class AutonomyScheduler extends PassScheduler {
  readonly #deps: AutonomySchedulerDeps;

  constructor(deps: AutonomySchedulerDeps) {
    super({ log: deps.log, recheckMs: deps.recheckMs, ...(deps.retryMs === undefined ? {} : { retryMs: deps.retryMs }), ...(deps.timers === undefined ? {} : { timers: deps.timers }), what: "the autonomy schedule" });
    this.#deps = deps;
    deps.runs.onChange(() => this.wake());
  }

  /** One pass; answers how long to wait before the next, or null for no timer (autonomy off, nothing under way). */
  protected async pass(): Promise<number | null> {
    const delay = await this.#due();
    this.succeeded();
    return delay;
  }

  async #due(): Promise<number | null> {
    const { runs, now, recheckMs } = this.#deps;
    const current = await runs.settle();
    const setting = runs.setting();
    if (!setting.enabled) return current === null ? null : recheckMs;
    if (current !== null || !runs.modelConfigured()) return recheckMs;
    const last = runs.lastRun();
    const due = last === null ? now() : last.startedAt + setting.intervalMinutes * (this.#deps.minuteMs ?? 60_000);
    const wait = due - now();
    if (wait > 0) return Math.min(wait, recheckMs);
    const kind: RunKind = last?.kind === "reflection" && runs.hasActiveGoal() ? "initiative" : "reflection";
    try {
      const run = await runs.start({ kind });
      this.#deps.log.info("started an autonomy run on the schedule", { run: run.id, kind });
    } catch (error) {
      // Started by the person just now, or the model removed meanwhile: the next look decides again.
      if (!(error instanceof HttpProblem && error.problem.status === 409)) throw error;
    }
    return recheckMs;
  }
}
