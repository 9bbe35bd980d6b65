/**
 * Every example contract, through the real front end: compiled, loaded, and each action run on
 * random states and arguments by the WebAssembly runtime and the reference interpreter, which
 * must agree (outcome, reason, new state).
 */
import { deepStrictEqual } from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compileContract } from "../compile.ts";
import { analyze } from "../front.ts";
import { createInterpreter } from "../interpreter/interpreter.ts";
import { DIDS, record } from "../testing/arbitraries.ts";
import { loadArtifact } from "./load-artifact.ts";
import type { Outcome } from "./load-artifact.ts";

const dir = new URL("../examples/", import.meta.url);

function outcomeOf(run: () => Outcome): Outcome | { threw: string } {
  try {
    return run();
  } catch (e) {
    return { threw: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

describe("example contracts run the same in WebAssembly and the interpreter", () => {
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".charter.md")).sort()) {
    it(file, () => {
      const source = readFileSync(new URL(file, dir), "utf8");
      const artifact = compileContract(source).artifact;
      const contract = analyze(source).contract;
      if (artifact === undefined || contract === null) throw new Error(`${file} does not compile`);
      const runtime = loadArtifact(artifact);
      const oracle = createInterpreter(contract, source);
      for (const [name, action] of Object.entries(artifact.schema.actions)) {
        const fields = artifact.schema.aggregates[action.aggregate]?.fields ?? [];
        const input = fc.record({
          state: record(fields.map((f) => [f.name, f.type] as const), 0),
          args: record(action.params.map((p) => [p.name, p.type] as const), 2),
          context: fc.record({ signer: fc.constantFrom(null, ...DIDS), time: fc.nat() }),
        });
        fc.assert(fc.property(input, (i) => {
          deepStrictEqual(outcomeOf(() => runtime.execute(name, i)), outcomeOf(() => oracle.execute(name, i)), `${file} ${name}`);
        }), { numRuns: 150 });
      }
    });
  }
});
