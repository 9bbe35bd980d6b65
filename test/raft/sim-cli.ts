/**
 * @module `npm run sim -- [--seeds N] [--from S] [--seed S] [--trace] [--voters N]
 * [--profile NAME] [--bug NAME] [--fault-ms MS] [--heal-ms MS] [--no-linearizability]
 * [--let-pass PROPERTY]`: runs the Raft simulation over many seeds (or replays one, optionally
 * printing every event) and prints any failing seed as `SEED=…` with the command that replays
 * it. `--profile` picks a fault profile (default, figure-8, stale-votes); `--bug` switches on an
 * injected bug (replyBeforePersist, countStaleVotes, commitPreviousTerm) to watch the checker
 * catch it; `--let-pass` records a property's violations instead of stopping, to see what they
 * lead to.
 */
import { parseArgs } from "node:util";
import type { InvariantName } from "./invariants.ts";
import type { FaultProfileName } from "./simulation.ts";
import { FAULT_PROFILES, simulate, SimulationFailure } from "./simulation.ts";

const BUGS = ["replyBeforePersist", "countStaleVotes", "commitPreviousTerm"] as const;

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "500" },
    from: { type: "string", default: "1" },
    seed: { type: "string" },
    trace: { type: "boolean", default: false },
    voters: { type: "string" },
    profile: { type: "string", default: "default" },
    bug: { type: "string", multiple: true, default: [] },
    "fault-ms": { type: "string" },
    "heal-ms": { type: "string" },
    "no-linearizability": { type: "boolean", default: false },
    "let-pass": { type: "string", multiple: true, default: [] },
  },
});
if (!Object.hasOwn(FAULT_PROFILES, values.profile)) throw new Error(`unknown profile ${values.profile}; one of ${Object.keys(FAULT_PROFILES).join(", ")}`);
const faults = values.profile as FaultProfileName;
for (const b of values.bug) if (!(BUGS as readonly string[]).includes(b)) throw new Error(`unknown bug ${b}; one of ${BUGS.join(", ")}`);
const bugs = values.bug.length === 0 ? {} : { bugs: Object.fromEntries(values.bug.map((b) => [b, true])) };
const voters = values.voters === undefined ? {} : { voters: Number(values.voters) };
const timing = { ...(values["fault-ms"] === undefined ? {} : { faultMs: Number(values["fault-ms"]) }), ...(values["heal-ms"] === undefined ? {} : { healMs: Number(values["heal-ms"]) }) };
const linearizability = values["no-linearizability"] ? { linearizability: false } : {};
const letPass = values["let-pass"].length === 0 ? {} : { letPass: values["let-pass"] as InvariantName[] };
const first = Number(values.seed ?? values.from);
const count = values.seed === undefined ? Number(values.seeds) : 1;
const started = performance.now();
let failures = 0;
let steps = 0;
for (let seed = first; seed < first + count; seed++) {
  const t0 = performance.now();
  try {
    const r = simulate({ seed, faults, ...voters, ...timing, ...linearizability, ...letPass, ...bugs, ...(values.trace ? { trace: (line: string) => console.log(line) } : {}) });
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
console.log(`${count} seeds from ${first} (profile ${faults}${values.bug.length ? `, bugs ${values.bug.join(",")}` : ""}), ${failures} failed, ${steps} steps, ${seconds.toFixed(1)} s`);
process.exitCode = failures > 0 ? 1 : 0;
