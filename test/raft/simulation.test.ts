// The Raft simulation (issue #7, acceptance item 1 and, in simulation, item 3): a few hundred
// seeds with crashes, restarts, lost disks, partitions, loss, duplication and reordering, every
// step checked; runs are replayable; injected bugs are caught. `npm run sim -- --seeds 5000` runs more.
import assert from "node:assert/strict";
import { test } from "node:test";
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

test("a seed replays exactly, and step never mutates the state it is given", () => {
  const a = simulate({ seed: 4242 });
  const b = simulate({ seed: 4242, freeze: true });
  assert.equal(a.fingerprint, b.fingerprint);
  assert.equal(a.steps, b.steps);
  assert.notEqual(simulate({ seed: 4243 }).fingerprint, a.fingerprint);
});

/** Runs seeds until one fails; returns the failure. */
function firstFailure(bugs: Parameters<typeof simulate>[0]["bugs"], seeds: number): SimulationFailure | null {
  for (let seed = 1; seed <= seeds; seed++) {
    try {
      simulate({ seed, voters: 3, bugs, faultMs: 2500, healMs: 3000, linearizability: false });
    } catch (e) {
      if (e instanceof SimulationFailure) return e;
      throw e;
    }
  }
  return null;
}

test("the checker catches replies sent before the vote or entries they promise are durable", () => {
  const failure = firstFailure({ replyBeforePersist: true }, 200);
  assert.ok(failure, "no seed caught the injected bug");
  assert.notEqual(failure.invariant, "liveness", failure.message);
});
