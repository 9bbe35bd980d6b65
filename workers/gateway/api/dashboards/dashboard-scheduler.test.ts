import assert from "node:assert/strict";
import { test } from "node:test";
import { ManualClock } from "../../../../shared/clock.ts";
import { silentLogger } from "../../../../shared/log.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { DashboardScheduler, type Timers } from "./dashboard-scheduler.ts";
import type { DashboardAnswer, Dashboards } from "./dashboards.ts";
import type { DashboardView } from "./dashboard-view.ts";

const MINUTE = 60_000;
const RECHECK = 5 * MINUTE;

type Behaviour = "refresh" | "query-fails" | "not-written";

/** Dashboards in memory: `next_at` and the schedule as std.dashboards keeps them. */
class FakeDashboards implements Pick<Dashboards, "due" | "nextDueAt" | "refresh" | "onChange"> {
  readonly boards = new Map<string, { nextAt: number; every: number; behaviour: Behaviour }>();
  readonly refreshed: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  unreadable: HttpProblem | null = null;
  listener: () => void = () => {};
  readonly clock: ManualClock;

  constructor(clock: ManualClock) {
    this.clock = clock;
  }
  onChange(listener: () => void): void {
    this.listener = listener;
  }
  due(now: number) {
    if (this.unreadable !== null) throw this.unreadable;
    return [...this.boards]
      .filter(([, b]) => b.every > 0 && b.nextAt <= now)
      .sort(([, a], [, b]) => a.nextAt - b.nextAt)
      .map(([id, b]) => ({ id, nextAt: b.nextAt }));
  }
  nextDueAt(): number | null {
    const times = [...this.boards.values()].filter((b) => b.every > 0).map((b) => b.nextAt);
    return times.length === 0 ? null : Math.min(...times);
  }
  async refresh(id: string): Promise<DashboardAnswer> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    this.inFlight--;
    const board = this.boards.get(id);
    if (board === undefined) throw new HttpProblem(problem(404, "not-found", "gone"));
    this.refreshed.push(id);
    if (board.behaviour === "not-written") return { kind: "problem", problem: problem(503, "engine-unavailable", "restarting") };
    board.nextAt = this.clock.now() + board.every * MINUTE;
    if (board.behaviour === "query-fails") return { kind: "failed", problem: problem(422, "query-failed", "panel 0: overflow"), jws: "x" };
    return { kind: "done", dashboard: { refreshedAt: null, schedule: { everyMinutes: board.every, nextAt: null } } as unknown as DashboardView, jws: "x" };
  }
}

/** Timers that fire only when the test says. */
class FakeTimers implements Timers {
  pending: { fn: () => void; ms: number } | null = null;
  cleared = 0;
  set(fn: () => void, ms: number): unknown {
    assert.equal(this.pending, null, "one timer at a time");
    this.pending = { fn, ms };
    return this.pending;
  }
  clear(handle: unknown): void {
    if (handle === this.pending) this.pending = null;
    this.cleared++;
  }
  /** Fires the timer, after moving the clock by its delay. */
  fire(clock: ManualClock): void {
    const t = this.pending;
    assert.ok(t !== null, "a timer is set");
    this.pending = null;
    clock.advance(t.ms);
    t.fn();
  }
}

/** Lets a pass finish (each fake refresh takes one turn of the event loop). */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
}

function setUp(start = 1_000_000) {
  const clock = new ManualClock(start);
  const dashboards = new FakeDashboards(clock);
  const timers = new FakeTimers();
  const scheduler = new DashboardScheduler({ dashboards, now: () => clock.now(), log: silentLogger, recheckMs: RECHECK, timers });
  return { clock, dashboards, timers, scheduler };
}

test("at start every overdue dashboard is refreshed once, one at a time; then one timer for the earliest next_at", async () => {
  const { clock, dashboards, timers, scheduler } = setUp();
  dashboards.boards.set("a", { nextAt: clock.now() - 10 * MINUTE, every: 5, behaviour: "refresh" });
  dashboards.boards.set("b", { nextAt: clock.now() - MINUTE, every: 60, behaviour: "refresh" });
  dashboards.boards.set("c", { nextAt: clock.now() + 2 * MINUTE, every: 5, behaviour: "refresh" });
  dashboards.boards.set("off", { nextAt: 0, every: 0, behaviour: "refresh" });
  scheduler.start();
  await settle();
  assert.deepEqual(dashboards.refreshed, ["a", "b"], "the overdue ones, earliest first, each once");
  assert.equal(dashboards.maxInFlight, 1, "one refresh at a time");
  assert.equal(timers.pending?.ms, 2 * MINUTE, "woken when c is due");

  timers.fire(clock);
  await settle();
  assert.deepEqual(dashboards.refreshed, ["a", "b", "c"]);
  assert.equal(timers.pending?.ms, 3 * MINUTE, "then when a is due again (5 minutes after its refresh)");
  scheduler.close();
  assert.equal(timers.pending, null, "close leaves no timer");
});

test("nothing scheduled: the scheduler sleeps for the re-check period; a change wakes it at once", async () => {
  const { clock, dashboards, timers, scheduler } = setUp();
  scheduler.start();
  await settle();
  assert.equal(timers.pending?.ms, RECHECK);
  dashboards.boards.set("a", { nextAt: clock.now() + 7 * MINUTE, every: 7, behaviour: "refresh" });
  dashboards.listener();
  await settle();
  assert.equal(timers.pending?.ms, RECHECK, "never later than the re-check period");
  dashboards.boards.set("b", { nextAt: clock.now() + 30_000, every: 5, behaviour: "refresh" });
  dashboards.listener();
  await settle();
  assert.equal(timers.pending?.ms, 30_000, "re-armed for the earlier one");
  assert.deepEqual(dashboards.refreshed, []);
  scheduler.close();
  dashboards.listener();
  await settle();
  assert.equal(timers.pending, null, "a closed scheduler does not wake");
});

test("a refresh whose query fails is not retried: its next_at moved on", async () => {
  const { clock, dashboards, timers, scheduler } = setUp();
  dashboards.boards.set("bad", { nextAt: clock.now() - 1, every: 5, behaviour: "query-fails" });
  scheduler.start();
  await settle();
  assert.deepEqual(dashboards.refreshed, ["bad"]);
  assert.equal(timers.pending?.ms, 5 * MINUTE, "its next turn");
  scheduler.close();
});

test("a refresh that cannot be written is tried again after a delay that doubles, never in a tight loop", async () => {
  const { clock, dashboards, timers, scheduler } = setUp();
  dashboards.boards.set("a", { nextAt: clock.now() - 1, every: 5, behaviour: "not-written" });
  dashboards.boards.set("b", { nextAt: clock.now(), every: 5, behaviour: "refresh" });
  scheduler.start();
  await settle();
  assert.deepEqual(dashboards.refreshed, ["a", "b"], "tried once per pass, and the others still run");
  const waits: number[] = [];
  for (let i = 0; i < 11; i++) {
    waits.push(timers.pending?.ms ?? -1);
    timers.fire(clock);
    await settle();
  }
  assert.deepEqual(waits, [1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, RECHECK, RECHECK]);
  assert.equal(dashboards.refreshed.filter((id) => id === "a").length, 12, "one try per pass");
  const board = dashboards.boards.get("a");
  if (board !== undefined) board.behaviour = "refresh";
  timers.fire(clock);
  await settle();
  assert.equal(timers.pending?.ms, 5 * MINUTE, "back on schedule once written");
  scheduler.close();
});

test("before set-up (or before std.dashboards is installed) the scheduler waits quietly; other read failures back off", async () => {
  const { dashboards, timers, scheduler } = setUp();
  dashboards.unreadable = new HttpProblem(problem(409, "not-set-up", "no account"));
  scheduler.start();
  await settle();
  assert.equal(timers.pending?.ms, RECHECK);
  scheduler.close();

  const other = setUp();
  other.dashboards.unreadable = new HttpProblem(problem(503, "store-unavailable", "not yet"));
  other.scheduler.start();
  await settle();
  assert.equal(other.timers.pending?.ms, 1000);
  other.scheduler.close();
});
