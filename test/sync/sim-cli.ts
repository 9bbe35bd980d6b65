/**
 * @module `npm run sim -- sync [--seeds N] [--from S] [--seed S] [--devices N] [--steps N] [--trace]`:
 * runs the sync simulation (simulation.ts) over many seeds, or replays one printing every event,
 * and prints any failing seed with the command that replays it.
 */
import { parseArgs } from "node:util";
import { simulate } from "./simulation.ts";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "3000" },
    from: { type: "string", default: "1" },
    seed: { type: "string" },
    devices: { type: "string" },
    steps: { type: "string" },
    trace: { type: "boolean", default: false },
  },
});
const first = Number(values.seed ?? values.from);
const count = values.seed === undefined ? Number(values.seeds) : 1;
const started = performance.now();
let failures = 0;
let commands = 0;
let redecided = 0;
let conflicts = 0;
for (let seed = first; seed < first + count; seed++) {
  try {
    const r = await simulate({
      seed,
      ...(values.devices === undefined ? {} : { devices: Number(values.devices) }),
      ...(values.steps === undefined ? {} : { steps: Number(values.steps) }),
      ...(values.trace ? { trace: (line: string) => console.log(line) } : {}),
    });
    commands += r.commands;
    redecided += r.redecided;
    conflicts += r.conflicts;
  } catch (error) {
    failures += 1;
    console.log(`SEED=${seed} failed: ${(error as Error).message.split("\n")[0]}\n  replay: npm run sim -- sync --seed ${seed} --trace`);
  }
}
const seconds = (performance.now() - started) / 1000;
console.log(`sync simulation: ${count} seeds, ${commands} commands, ${redecided} decided again by a merge, ${conflicts} conflicts, ${failures} failed, ${seconds.toFixed(1)} s`);
process.exitCode = failures === 0 ? 0 : 1;
