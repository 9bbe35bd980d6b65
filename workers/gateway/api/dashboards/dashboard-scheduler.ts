/**
 * @module The node's refresh schedule for the person's dashboards. It keeps no state of its own:
 * when each dashboard is due is `next_at` in `std.dashboards`, so a schedule missed while the node
 * was down runs as soon as it is back. A pass refreshes every dashboard the declared query `Due(now)`
 * lists, one at a time, then sets one timer for the earliest `next_at` (`NextDue`), never later than
 * `recheckMs` (default the shortest schedule, 5 minutes: a schedule written some other way, by the
 * assistant or a synced device, is seen within it). A change made through the routes wakes it at
 * once.
 *
 * A refresh whose query fails is recorded by the dashboard (its `next_at` moves on), so it waits for
 * its next turn. A write that does not happen (the engine restarting, a refusal) leaves `next_at`
 * where it was: the pass stops trying it, and the next pass comes after a delay that doubles from
 * `retryMs` up to `recheckMs`, never in a tight loop. Lifecycle: `start()` → running → `close()`.
 */
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem } from "../../../../shared/problem.ts";
import type { Dashboards } from "./dashboards.ts";
import { PassScheduler, type Timers } from "../pass-scheduler.ts";

export type { Timers } from "../pass-scheduler.ts";

/** What the scheduler needs. */
export interface SchedulerDeps {
  readonly dashboards: Pick<Dashboards, "due" | "nextDueAt" | "refresh" | "onChange">;
  readonly now: () => number;
  readonly log: Logger;
  /** The longest wait between passes. */
  readonly recheckMs: number;
  /** The first wait after a pass that could not write (default 1 s). */
  readonly retryMs?: number;
  /** When the earliest dashboard is due again at once after a pass, the wait before the next (default 1 s). */
  readonly floorMs?: number;
  readonly timers?: Timers;
}

/** Keeps the dashboards' schedule: one timer, one pass at a time. */
export class DashboardScheduler extends PassScheduler {
  readonly #deps: SchedulerDeps;

  constructor(deps: SchedulerDeps) {
    super({ log: deps.log, recheckMs: deps.recheckMs, ...(deps.retryMs === undefined ? {} : { retryMs: deps.retryMs }), ...(deps.timers === undefined ? {} : { timers: deps.timers }), what: "the dashboards' schedule" });
    this.#deps = deps;
    deps.dashboards.onChange(() => this.wake());
  }

  /** Refreshes everything due; answers how long to wait before the next pass. */
  protected async pass(): Promise<number> {
    const { dashboards, now, recheckMs } = this.#deps;
    const tried = new Set<string>();
    let stuck = false;
    for (;;) {
      const due = dashboards.due(now()).filter((d) => !tried.has(d.id));
      if (due.length === 0) break;
      for (const d of due) {
        if (this.closed) return recheckMs;
        tried.add(d.id);
        if (!(await this.#refresh(d.id))) stuck = true;
      }
    }
    if (stuck) return this.backoff();
    this.succeeded();
    const next = dashboards.nextDueAt();
    if (next === null) return recheckMs;
    const wait = next - now();
    return wait <= 0 ? (this.#deps.floorMs ?? 1000) : Math.min(wait, recheckMs);
  }

  /** Refreshes one due dashboard; false when nothing could be written (it is still due). */
  async #refresh(id: string): Promise<boolean> {
    const { log } = this.#deps;
    try {
      const answer = await this.#deps.dashboards.refresh(id, "schedule");
      switch (answer.kind) {
        case "done":
          log.info("refreshed a dashboard on its schedule", { dashboard: id, refreshedAt: answer.dashboard.refreshedAt, nextAt: answer.dashboard.schedule.nextAt });
          return true;
        case "failed":
          log.warn("a scheduled dashboard refresh failed; its next refresh is at its next turn", { dashboard: id, error: answer.problem.detail });
          return true;
        case "refused":
          log.warn("the scheduled refresh of a dashboard was refused", { dashboard: id });
          return false;
        case "problem":
          log.warn("the scheduled refresh of a dashboard was not written", { dashboard: id, code: answer.problem.code, error: answer.problem.detail });
          return false;
      }
    } catch (error) {
      // Deleted since `Due` listed it: nothing to do.
      if (error instanceof HttpProblem && error.problem.status === 404) return true;
      log.warn("the scheduled refresh of a dashboard failed", { dashboard: id, error: messageOf(error) });
      return false;
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
