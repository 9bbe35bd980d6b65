// The Raft simulation (issue #7, acceptance item 1 and, in simulation, item 3): a few hundred
// seeds with crashes, restarts, lost disks, partitions, loss, duplication and reordering, every
// step checked, also under the fault profiles aimed at Figure 8 and at stale votes; runs are
// replayable; each injected bug is caught, on a seed that passes without it, and is shown to go
// on to break state-machine safety. `npm run sim -- --seeds 5000 [--profile NAME]` runs more.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { InvariantName } from "./invariants.ts";
import type { SimOptions } from "./simulation.ts";
import { simulate, SimulationFailure } from "./simulation.ts";

const SEEDS = Number(process.env.RAFT_SIM_SEEDS ?? 200);

test(`${SEEDS} seeded runs keep every safety property, recover after healing and stay linearizable`, () => {
  const totals = { steps: 0, crashes: 0, diskLosses: 0, installs: 0, voters: new Set<number>() };
  for (let seed = 1; seed <= SEEDS; seed++) {
    const r = simulate({ seed, faultMs: 2500, healMs: 3000 });
    totals.steps += r.steps;
    totals.crashes += r.crashes;
    totals.diskLosses += r.diskLosses;
    totals.installs += r.snapshotsInstalled;
    totals.voters.add(r.voters);
  }
  // The faults the runs are meant to exercise did happen.
  assert.ok(totals.crashes > SEEDS, `crashes: ${totals.crashes}`);
  assert.ok(totals.diskLosses > 0 && totals.installs > 0, `disk losses ${totals.diskLosses}, snapshots installed ${totals.installs}`);
  assert.deepEqual([...totals.voters].sort(), [1, 3, 5]);
});

const PROFILE_SEEDS = Number(process.env.RAFT_SIM_PROFILE_SEEDS ?? 100);

for (const faults of ["figure-8", "stale-votes"] as const) {
  test(`${PROFILE_SEEDS} runs under the ${faults} fault profile keep every safety property, recover after healing and stay linearizable`, () => {
    for (let seed = 1; seed <= PROFILE_SEEDS; seed++) simulate({ seed, faults, faultMs: 2500, healMs: 3000 });
  });
}

test("a seed replays exactly, and step never mutates the state it is given", () => {
  const a = simulate({ seed: 4242 });
  const b = simulate({ seed: 4242, freeze: true });
  assert.equal(a.fingerprint, b.fingerprint);
  assert.equal(a.steps, b.steps);
  assert.notEqual(simulate({ seed: 4243 }).fingerprint, a.fingerprint);
});

type RunOptions = Omit<SimOptions, "seed">;

/** The properties a run checks after every step: a bug caught by one of these broke safety, not liveness. */
const SAFETY: readonly string[] = ["election safety", "leader completeness", "log matching", "state machine safety", "commit", "commit monotonic"] satisfies InvariantName[];

/** Runs seeds `from`… until one fails; returns the failure. */
function firstFailure(options: RunOptions, seeds: number, from = 1): SimulationFailure | null {
  for (let seed = from; seed < from + seeds; seed++) {
    try {
      simulate({ ...options, seed });
    } catch (e) {
      if (e instanceof SimulationFailure) return e;
      throw e;
    }
  }
  return null;
}

/**
 * Replays a failing seed with the properties that catch a bug early let pass, and returns what the
 * run breaks next ("none" when nothing): a bug is real when it goes on to break state-machine
 * safety — voters applying different entries at one index.
 */
function consequence(options: RunOptions, seed: number): string {
  try {
    simulate({ ...options, seed, letPass: ["election safety", "leader completeness", "log matching"] });
    return "none";
  } catch (e) {
    if (e instanceof SimulationFailure) return e.invariant;
    throw e;
  }
}

/** Finds the first seed the checker catches `options.bugs` on; checks it is a safety failure, that the seed passes without the bug, and that some caught seed goes on to break state-machine safety. */
function assertCaught(options: RunOptions, seeds: number): void {
  const failure = firstFailure(options, seeds);
  assert.ok(failure, `no seed among the first ${seeds} caught the injected bug`);
  assert.ok(SAFETY.includes(failure.invariant), failure.message);
  simulate({ ...options, seed: failure.seed, bugs: {} });
  const broken: string[] = [];
  for (let next: SimulationFailure | null = failure; next && broken.length < 20; next = firstFailure(options, seeds, next.seed + 1)) {
    const then = consequence(options, next.seed);
    if (then === "state machine safety") return;
    broken.push(`${next.seed}: ${then}`);
  }
  assert.fail(`no caught seed went on to break state-machine safety with the early checks let pass (${broken.join(", ")})`);
}

test("the checker catches replies sent before the vote or entries they promise are durable", () => {
  const failure = firstFailure({ voters: 3, bugs: { replyBeforePersist: true }, faultMs: 2500, healMs: 3000, linearizability: false }, 200);
  assert.ok(failure, "no seed caught the injected bug");
  assert.notEqual(failure.invariant, "liveness", failure.message);
});

test("the checker catches a candidate that counts votes granted in an older term (stale-votes profile)", () => {
  assertCaught({ faults: "stale-votes", bugs: { countStaleVotes: true }, faultMs: 2500, healMs: 3000, linearizability: false }, 200);
});

test("the checker catches a leader that commits an entry of an earlier term by counting replicas (Figure 8, figure-8 profile)", () => {
  assertCaught({ faults: "figure-8", bugs: { commitPreviousTerm: true }, faultMs: 2500, healMs: 3000, linearizability: false }, 200);
});
