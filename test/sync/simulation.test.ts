/**
 * @module The sync simulation's short run in `npm test` (`npm run sim -- sync --seeds N` runs the
 * long one): devices partitioned and reconnecting at random converge to the same history and states.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { simulate } from "./simulation.ts";

const SEEDS = Number(process.env.CHARTER_SYNC_SEEDS ?? 150);

it(`converges over ${SEEDS} seeds of 2–4 devices partitioned at random`, async () => {
  let commands = 0;
  let redecided = 0;
  let conflicts = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    try {
      const r = await simulate({ seed });
      commands += r.commands;
      redecided += r.redecided;
      conflicts += r.conflicts;
    } catch (error) {
      assert.fail(`seed ${seed} failed (replay: npm run sim -- sync --seed ${seed} --trace): ${(error as Error).message}`);
    }
  }
  // The runs must have exercised what they claim to: merges that changed outcomes, and conflicts.
  assert.ok(redecided > 0, "some merges decided commands again");
  assert.ok(conflicts > 0, "some merge-reject commands became conflicts");
  assert.ok(commands > SEEDS * 20);
});
