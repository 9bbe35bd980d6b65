import assert from "node:assert/strict";
import { test } from "node:test";
import { ManualClock } from "../../../../shared/clock.ts";
import { silentLogger } from "../../../../shared/log.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { Timers } from "../dashboards/dashboard-scheduler.ts";
import type { RunKind } from "./autonomy-records.ts";
import { AutonomyScheduler, type AutonomyRuns } from "./autonomy-scheduler.ts";

const MINUTE = 60_000;
const RECHECK = 5 * MINUTE;

interface FakeRun {
  id: string;
  kind: RunKind;
  startedAt: number;
  ended: boolean;
}

/** Runs in memory, as std.autonomy and the turns keep them. */
class FakeRuns implements AutonomyRuns {
  enabled = false;
  intervalMinutes = 60;
  model = true;
  goals = 0;
  readonly runs: FakeRun[] = [];
  starts = 0;
  settles = 0;
  inFlight = 0;
  maxInFlight = 0;
  unreadable: HttpProblem | null = null;
  listener: () => void = () => {};
  readonly clock: ManualClock;

  constructor(clock: ManualClock) {
    this.clock = clock;
  }
  setting() {
    return { enabled: this.enabled, intervalMinutes: this.intervalMinutes };
  }
  modelConfigured(): boolean {
    return this.model;
  }
  async settle() {
    this.settles++;
    if (this.unreadable !== null) throw this.unreadable;
    await new Promise((resolve) => setImmediate(resolve));
    return this.runs.find((r) => !r.ended) ?? null;
  }
  lastRun() {
    return this.runs.at(-1) ?? null;
  }
  hasActiveGoal(): boolean {
    return this.goals > 0;
  }
  async start(request: { kind: RunKind }) {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    this.inFlight--;
    if (this.runs.some((r) => !r.ended)) throw new HttpProblem(problem(409, "run-in-progress", "one at a time"));
    this.starts++;
    const run = { id: `run-${this.runs.length}`, kind: request.kind, startedAt: this.clock.now(), ended: false };
    this.runs.push(run);
    return run;
  }
  onChange(listener: () => void): void {
    this.listener = listener;
  }
  /** The run under way ends (its turn done), and the schedule hears of it. */
  endCurrent(): void {
    const run = this.runs.find((r) => !r.ended);
    assert.ok(run !== undefined, "a run is under way");
    run.ended = true;
    this.listener();
  }
}

/** Timers that fire only when the test says. */
class FakeTimers implements Timers {
  pending: { fn: () => void; ms: number } | null = null;
  set(fn: () => void, ms: number): unknown {
    assert.equal(this.pending, null, "one timer at a time");
    this.pending = { fn, ms };
    return this.pending;
  }
  clear(handle: unknown): void {
    if (handle === this.pending) this.pending = null;
  }
  /** The wait of the timer set, or null for none. */
  wait(): number | null {
    return this.pending?.ms ?? null;
  }
  fire(clock: ManualClock): void {
    const t = this.pending;
    assert.ok(t !== null, "a timer is set");
    this.pending = null;
    clock.advance(t.ms);
    t.fn();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Fires the timer until a run starts (at most a day of re-checks). */
async function fireUntilStarted(runs: FakeRuns, timers: FakeTimers, clock: ManualClock): Promise<void> {
  const before = runs.starts;
  for (let i = 0; i < 300 && runs.starts === before; i++) {
    timers.fire(clock);
    await settle();
  }
  assert.equal(runs.starts, before + 1);
}

function setUp() {
  const clock = new ManualClock(1_000_000_000);
  const runs = new FakeRuns(clock);
  const timers = new FakeTimers();
  const scheduler = new AutonomyScheduler({ runs, now: () => clock.now(), log: silentLogger, recheckMs: RECHECK, timers });
  return { clock, runs, timers, scheduler };
}

test("turned off (the default) it starts nothing and sets no timer, however long it waits", async () => {
  const { clock, runs, timers, scheduler } = setUp();
  runs.runs.push({ id: "run-old", kind: "reflection", startedAt: clock.now() - 10 * 24 * 60 * MINUTE, ended: true });
  scheduler.start();
  await settle();
  assert.equal(runs.starts, 0);
  assert.equal(timers.pending, null, "no timer while off");
  assert.equal(runs.settles, 1, "what a stop left is still finished");
  scheduler.close();
});

test("on: the first run starts at once, the next when the interval from the last start has passed, alternating kinds when a goal is active", async () => {
  const { clock, runs, timers, scheduler } = setUp();
  runs.enabled = true;
  runs.intervalMinutes = 30;
  runs.goals = 1;
  scheduler.start();
  await settle();
  assert.deepEqual(runs.runs.map((r) => r.kind), ["reflection"], "due at once: no run before");
  assert.equal(timers.pending?.ms, RECHECK, "while it runs, a re-check");
  runs.endCurrent();
  await settle();
  assert.equal(timers.pending?.ms, RECHECK, "woken by its end; the next is 30 minutes after the last start, never waited for longer than the re-check");
  clock.advance(13 * MINUTE);
  runs.listener();
  await settle();
  assert.equal(timers.pending?.ms, RECHECK);
  for (let i = 0; i < 3; i++) {
    timers.fire(clock);
    await settle();
  }
  assert.equal(runs.starts, 1, "28 minutes after: not due yet");
  assert.equal(timers.pending?.ms, 2 * MINUTE, "due in 2 minutes");
  timers.fire(clock);
  await settle();
  assert.deepEqual(runs.runs.map((r) => r.kind), ["reflection", "initiative"], "after a reflection, an initiative for a goal");
  runs.endCurrent();
  await settle();
  await fireUntilStarted(runs, timers, clock);
  assert.deepEqual(runs.runs.map((r) => r.kind), ["reflection", "initiative", "reflection"], "then a reflection again");
  assert.equal(runs.runs[2]!.startedAt - runs.runs[1]!.startedAt, 30 * MINUTE);
  runs.endCurrent();
  runs.goals = 0;
  await settle();
  await fireUntilStarted(runs, timers, clock);
  assert.equal(runs.runs.at(-1)!.kind, "reflection", "no active goal: reflections only");
  scheduler.close();
  assert.equal(timers.pending, null, "close leaves no timer");
});

test("never two runs at once: a run under way holds back the next, however overdue", async () => {
  const { clock, runs, timers, scheduler } = setUp();
  runs.enabled = true;
  runs.intervalMinutes = 5;
  scheduler.start();
  await settle();
  assert.equal(runs.starts, 1);
  for (let i = 0; i < 6; i++) {
    timers.fire(clock);
    runs.listener();
    scheduler.wake();
    await settle();
  }
  assert.equal(runs.starts, 1, "30 minutes on, the first still runs: nothing else started");
  assert.equal(runs.maxInFlight, 1, "one start at a time");
  runs.endCurrent();
  await settle();
  assert.equal(runs.starts, 2, "overdue: started as soon as the last ended");
  scheduler.close();
});

test("a change of the setting wakes it at once: on starts a run, off stops the schedule", async () => {
  const { clock, runs, timers, scheduler } = setUp();
  runs.runs.push({ id: "run-old", kind: "initiative", startedAt: clock.now() - 2 * 60 * MINUTE, ended: true });
  scheduler.start();
  await settle();
  assert.equal(timers.pending, null);
  runs.enabled = true;
  runs.listener();
  await settle();
  assert.equal(runs.starts, 1, "turned on: the overdue run starts at once");
  runs.endCurrent();
  await settle();
  assert.equal(timers.wait(), RECHECK);
  runs.enabled = false;
  runs.listener();
  await settle();
  assert.equal(timers.pending, null, "turned off: no timer");
  clock.advance(24 * 60 * MINUTE);
  runs.listener();
  await settle();
  assert.equal(runs.starts, 1, "and nothing starts");
  scheduler.close();
  runs.enabled = true;
  runs.listener();
  await settle();
  assert.equal(runs.starts, 1, "a closed scheduler does not wake");
});

test("no model configured: nothing starts; a run started by the person meanwhile (409) is no failure", async () => {
  const { runs, timers, scheduler } = setUp();
  runs.enabled = true;
  runs.model = false;
  scheduler.start();
  await settle();
  assert.equal(runs.starts, 0);
  assert.equal(timers.pending?.ms, RECHECK);
  runs.model = true;
  const started = runs.start({ kind: "reflection" });
  runs.listener();
  await started;
  await settle();
  assert.equal(runs.starts, 1, "only the person's run");
  assert.equal(timers.pending?.ms, RECHECK);
  scheduler.close();
});

test("before set-up it waits quietly; a failing read backs off, doubling", async () => {
  const { clock, runs, timers, scheduler } = setUp();
  runs.enabled = true;
  runs.unreadable = new HttpProblem(problem(409, "not-set-up", "no account"));
  scheduler.start();
  await settle();
  assert.equal(timers.pending?.ms, RECHECK);
  runs.unreadable = new HttpProblem(problem(503, "engine-unavailable", "restarting"));
  const waits: number[] = [];
  for (let i = 0; i < 4; i++) {
    timers.fire(clock);
    await settle();
    waits.push(timers.pending?.ms ?? -1);
  }
  assert.deepEqual(waits, [1000, 2000, 4000, 8000]);
  runs.unreadable = null;
  timers.fire(clock);
  await settle();
  assert.equal(runs.starts, 1);
  scheduler.close();
});
