/**
 * @module The person's dashboards (`std.dashboards` in the personal tenant), for the routes and the
 * scheduler alike: reading one, creating one, setting its schedule, refreshing it. A refresh runs
 * each panel's declared query now and records the rows with `RecordRefresh`, signed as the person;
 * a panel whose query fails records `RecordFailure` instead (the error, and the schedule moved on).
 * The node's writes to dashboards run one at a time, so a refresh never interleaves with another
 * refresh or a schedule change of the node's own (what `next_at` is computed from stays true).
 *
 * Times are the node's clock (`now`); a schedule's minute is `minuteMs` long: 60 000, except in
 * tests, which shorten it with `CHARTER_DASHBOARD_MINUTE_MS` to see a schedule come due.
 */
import { randomBytes } from "node:crypto";
import { receiptOf } from "../../../../shared/identity/index.ts";
import { HttpProblem, type Problem, problem, problemOf } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";
import { checkPanels, type PanelSpec } from "./dashboard-panels.ts";
import { fitResult } from "./dashboard-result.ts";
import { type DashboardView, dashboardView, liveState } from "./dashboard-view.ts";

/** The contract the dashboards are records of. */
export const DASHBOARDS = "std.dashboards";
/** The actions that change when a dashboard is due (the refreshes the scheduler records do not). */
export const SCHEDULE_ACTIONS: ReadonlySet<string> = new Set(["Create", "SetSchedule", "Delete"]);
const AGGREGATE = "Dashboard";
/** `last_error`'s length in the contract. */
const ERROR_LEN = 1000;
/** A minute, unless a test says otherwise. */
export const MINUTE_MS = 60_000;

/** The length of a schedule's minute from `CHARTER_DASHBOARD_MINUTE_MS` (tests only), else 60 000 ms. */
export function dashboardMinuteMs(env: Record<string, string | undefined> = process.env): number {
  const ms = Number(env.CHARTER_DASHBOARD_MINUTE_MS);
  return env.CHARTER_DASHBOARD_MINUTE_MS !== undefined && Number.isInteger(ms) && ms > 0 ? ms : MINUTE_MS;
}

/** What the dashboards need. */
export interface DashboardsDeps {
  readonly reader: PersonReader;
  readonly writer: Pick<PersonWriter, "act">;
  readonly now: () => number;
  readonly minuteMs?: number;
  /** A new dashboard's id (default `d-` and 20 random characters). */
  readonly newId?: () => string;
}

/** What a write to a dashboard came to. */
export type DashboardAnswer =
  /** Accepted: the dashboard now, and the receipt's JWS. */
  | { readonly kind: "done"; readonly dashboard: DashboardView; readonly jws: string }
  /** The contract refused the command: its receipt says why; nothing changed. */
  | { readonly kind: "refused"; readonly jws: string }
  /** A panel's query failed: the failure is recorded (`jws`), the last good result kept. */
  | { readonly kind: "failed"; readonly problem: Problem; readonly jws: string }
  /** Nothing was written (the engine did not take the command, the store could not be read). */
  | { readonly kind: "problem"; readonly problem: Problem };

/** A scheduled dashboard, as `Due` and `NextDue` list them. */
export interface DueDashboard {
  readonly id: string;
  readonly nextAt: number;
}

/** The person's dashboards: reads, and the node's writes to them, one at a time. */
export class Dashboards {
  readonly #deps: DashboardsDeps;
  readonly #minuteMs: number;
  readonly #listeners: (() => void)[] = [];
  #queue: Promise<unknown> = Promise.resolve();

  constructor(deps: DashboardsDeps) {
    this.#deps = deps;
    this.#minuteMs = deps.minuteMs ?? MINUTE_MS;
  }

  /** Calls `listener` after each change the person made (a new dashboard, a schedule, a refresh). */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  /** Dashboard `id`; `404` when there is none (or it was deleted). */
  read(id: string): DashboardView {
    return dashboardView(id, this.#live(id));
  }

  /** Creates a dashboard of `panels` (each checked against the personal tenant first: `400 bad-panel`). */
  async create(input: { readonly title: string; readonly panels: readonly PanelSpec[]; readonly everyMinutes: number }): Promise<DashboardAnswer> {
    checkPanels(this.#deps.reader, input.panels);
    const id = this.#deps.newId?.() ?? `d-${randomBytes(15).toString("base64url")}`;
    return this.#serial(async () => {
      const args = {
        title: input.title,
        panel_namespaces: input.panels.map((p) => p.namespace),
        panel_queries: input.panels.map((p) => p.query),
        panel_params: input.panels.map((p) => JSON.stringify(p.params)),
        every_minutes: input.everyMinutes,
        next_at: this.#nextAt(input.everyMinutes, this.#deps.now()),
      };
      return this.#changed(await this.#write(id, "Create", args));
    });
  }

  /** Sets dashboard `id`'s schedule: every `everyMinutes` from now (0: none). */
  schedule(id: string, everyMinutes: number): Promise<DashboardAnswer> {
    return this.#serial(async () => {
      this.#live(id);
      return this.#changed(await this.#write(id, "SetSchedule", { every_minutes: everyMinutes, next_at: this.#nextAt(everyMinutes, this.#deps.now()) }));
    });
  }

  /** Deletes dashboard `id` (its schedule ends with it). */
  remove(id: string): Promise<DashboardAnswer> {
    return this.#serial(async () => {
      this.#live(id);
      return this.#changed(await this.#write(id, "Delete", {}));
    });
  }

  /** Refreshes dashboard `id` now: asked by the person (listeners hear it), or by the schedule. */
  refresh(id: string, by: "person" | "schedule" = "person"): Promise<DashboardAnswer> {
    return this.#serial(async () => {
      const answer = await this.#refresh(id);
      return by === "person" ? this.#changed(answer) : answer;
    });
  }

  /** The scheduled dashboards due at `now`, earliest first (at most a page of them). */
  due(now: number): DueDashboard[] {
    return this.#deps.reader.query(undefined, DASHBOARDS, "Due", { now }).rows.map(dueOf);
  }

  /** When the earliest scheduled dashboard is due, or null when none is scheduled. */
  nextDueAt(): number | null {
    const [first] = this.#deps.reader.query(undefined, DASHBOARDS, "NextDue", {}).rows;
    return first === undefined ? null : dueOf(first).nextAt;
  }

  async #refresh(id: string): Promise<DashboardAnswer> {
    const state = this.#live(id);
    const { panels, schedule } = dashboardView(id, state);
    const rows: (readonly unknown[])[] = [];
    for (const [i, panel] of panels.entries()) {
      try {
        rows.push(this.#deps.reader.query(undefined, panel.namespace, panel.query, panel.params).rows);
      } catch (error) {
        if (!(error instanceof HttpProblem) || !PANEL_FAILURES.has(error.problem.status)) throw error;
        return this.#recordFailure(id, i, panel.namespace, panel.query, error.problem, schedule.everyMinutes);
      }
    }
    const now = this.#deps.now();
    return this.#write(id, "RecordRefresh", { result: fitResult(rows).text, refreshed_at: now, next_at: this.#nextAt(schedule.everyMinutes, now) });
  }

  async #recordFailure(id: string, i: number, namespace: string, query: string, cause: Problem, everyMinutes: number): Promise<DashboardAnswer> {
    const detail = `panel ${i} (${namespace}.${query}): ${cause.detail}`;
    const now = this.#deps.now();
    const written = await this.#write(id, "RecordFailure", { error: [...detail].slice(0, ERROR_LEN).join(""), failed_at: now, next_at: this.#nextAt(everyMinutes, now) });
    if (written.kind !== "done") return written;
    return { kind: "failed", problem: problemOf("query-failed", detail, [{ pointer: `#/panels/${i}`, detail: cause.detail }]), jws: written.jws };
  }

  /** The next refresh of a schedule of `everyMinutes` counted from `from`; 0 without one. */
  #nextAt(everyMinutes: number, from: number): number {
    return everyMinutes > 0 ? Math.min(from + everyMinutes * this.#minuteMs, Number.MAX_SAFE_INTEGER) : 0;
  }

  async #write(id: string, action: string, args: PersonWrite["args"]): Promise<DashboardAnswer> {
    const answer = await this.#deps.writer.act({ namespace: DASHBOARDS, action, subject: id, args });
    if (answer.kind === "problem") return answer;
    if (answer.outcome !== "accepted") return { kind: "refused", jws: answer.jws };
    // The receipt carries the state the command left (a deleted dashboard's included).
    return { kind: "done", dashboard: dashboardView(id, receiptOf(answer.jws).state ?? {}), jws: answer.jws };
  }

  #live(id: string): Record<string, unknown> {
    const state = liveState(this.#deps.reader.record(undefined, DASHBOARDS, AGGREGATE, id)?.state);
    if (state === null) throw new HttpProblem(problem(404, "not-found", `no dashboard '${id.slice(0, 128)}'`));
    return state;
  }

  #changed(answer: DashboardAnswer): DashboardAnswer {
    if (answer.kind === "done" || answer.kind === "failed") for (const listener of this.#listeners) listener();
    return answer;
  }

  /** Runs `job` after every job queued before it. */
  #serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(job, job);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/** The statuses of a panel's query that are the panel's failure, not the node's: no such contract or query, parameters it no longer takes, a query that cannot be answered. */
const PANEL_FAILURES: ReadonlySet<number> = new Set([400, 404, 422, 501]);

function dueOf(row: Record<string, unknown>): DueDashboard {
  return { id: String(row.id), nextAt: Number(row.next_at) };
}
