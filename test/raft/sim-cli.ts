/**
 * @module `npm run sim -- [--seeds N] [--from S] [--seed S] [--trace] [--voters N]`: runs the Raft
 * simulation over many seeds (or replays one, optionally printing every event) and prints any
 * failing seed as `SEED=…`.
 */
import { parseArgs } from "node:util";
import { simulate, SimulationFailure } from "./simulation.ts";

const { values } = parseArgs({
  options: { seeds: { type: "string", default: "500" }, from: { type: "string", default: "1" }, seed: { type: "string" }, trace: { type: "boolean", default: false }, voters: { type: "string" } },
});
const voters = values.voters === undefined ? {} : { voters: Number(values.voters) };
const first = Number(values.seed ?? values.from);
const count = values.seed === undefined ? Number(values.seeds) : 1;
const started = performance.now();
let failures = 0;
let steps = 0;
for (let seed = first; seed < first + count; seed++) {
  const t0 = performance.now();
  try {
    const r = simulate({ seed, ...voters, ...(values.trace ? { trace: (line: string) => console.log(line) } : {}) });
    steps += r.steps;
    if (count === 1) console.log(JSON.stringify(r));
    else if (performance.now() - t0 > 2000) console.log(`seed ${seed} took ${Math.round(performance.now() - t0)} ms`);
  } catch (e) {
    if (!(e instanceof SimulationFailure)) throw e;
    failures += 1;
    console.log(e.message);
  }
}
const seconds = (performance.now() - started) / 1000;
console.log(`${count} seeds from ${first}, ${failures} failed, ${steps} steps, ${seconds.toFixed(1)} s`);
process.exitCode = failures > 0 ? 1 : 0;
