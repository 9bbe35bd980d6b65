/**
 * Differential property test: random well-typed contracts and random states and arguments run
 * through the WebAssembly runtime and the reference interpreter must give the same outcome, the
 * same refusal reason and the same new state — including Int overflow near ±2^63, division by
 * zero, multi-byte texts over their length, full lists and unset identities.
 */
import { deepStrictEqual } from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compileChecked } from "../compile.ts";
import { createInterpreter } from "../interpreter/interpreter.ts";
import { DIDS, INT64_MAX, INT64_MIN, record } from "../testing/arbitraries.ts";
import { FIELDS, PARAMS, randomContract } from "../testing/random-contract.ts";
import { loadArtifact } from "./load-artifact.ts";
import type { ExecuteInput, Outcome, State } from "./load-artifact.ts";

const input: fc.Arbitrary<ExecuteInput & { action: number }> = fc.record({
  action: fc.nat(3),
  state: record(FIELDS, 0),
  args: record(PARAMS, 2),
  context: fc.record({ signer: fc.constantFrom(null, ...DIDS), time: fc.oneof(fc.nat(), fc.constantFrom(INT64_MAX.toString(), INT64_MIN.toString())) }),
});

function safely(run: () => Outcome): Outcome | { threw: string } {
  try {
    return run();
  } catch (e) {
    return { threw: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

describe("WebAssembly runtime ≡ reference interpreter", () => {
  it("agrees on thousands of random actions and states", () => {
    const outcomes = new Map<string, number>();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.array(input, { minLength: 60, maxLength: 60 }), (seed, inputs) => {
        const { contract, source } = randomContract(seed);
        const runtime = loadArtifact(compileChecked(contract, source).artifact);
        const oracle = createInterpreter(contract, source);
        for (const { action, ...rest } of inputs) {
          const name = `A${action}`;
          const got = safely(() => runtime.execute(name, rest));
          deepStrictEqual(got, safely(() => oracle.execute(name, rest)), `seed ${seed}, ${name}, ${source}`);
          // The same call on the encoded state decodes to the same outcome.
          const encoded = safely(() => {
            const out = runtime.executeEncoded(name, { ...rest, state: runtime.encodeState("Thing", rest.state as State) });
            return out.outcome === "refused" ? out : { outcome: out.outcome, state: runtime.decodeState("Thing", out.state) };
          });
          const expected = "threw" in got || got.outcome === "refused" ? got : { outcome: got.outcome, state: runtime.decodeState("Thing", runtime.encodeState("Thing", got.state)) };
          deepStrictEqual(encoded, expected, `encoded: seed ${seed}, ${name}`);
          const key = "threw" in got ? "threw" : got.outcome === "accepted" ? "accepted" : got.reason.code;
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        }
      }),
      // A failure names its seed, which reproduces the contract; shrinking 60 inputs is not worth the wait.
      { numRuns: 60, endOnFailure: true },
    );
    if (process.env.SHOW_OUTCOMES !== undefined) console.log(outcomes);
    // Every kind of outcome must actually have been exercised.
    for (const code of ["accepted", "condition_failed", "overflow", "division_by_zero", "text_too_long", "list_full", "unauthorized"]) {
      if ((outcomes.get(code) ?? 0) === 0) throw new Error(`no ${code} outcome generated: ${JSON.stringify([...outcomes])}`);
    }
  });
});
