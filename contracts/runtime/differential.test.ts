/**
 * Differential property test: random well-typed contracts and random states and arguments run
 * through the WebAssembly runtime and the reference interpreter must give the same outcome, the
 * same refusal reason and the same new state — including Int overflow near ±2^63, division by
 * zero, multi-byte texts over their length, full lists and unset identities.
 */
import { deepStrictEqual } from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Type } from "../ast.ts";
import { compileChecked } from "../compile.ts";
import { formatDate } from "../dates.ts";
import { createInterpreter } from "../interpreter/interpreter.ts";
import { FIELDS, PARAMS, randomContract } from "../testing/random-contract.ts";
import { loadArtifact } from "./load-artifact.ts";
import type { ExecuteInput, Outcome, State } from "./load-artifact.ts";

const DIDS = ["did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG", "did:key:z6Mkf5rGMoatrSj1f4CyvuHBeXJELe9RPdzo2PKGNCKVtZxP"];
const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

/** Ints as a caller may send them: small, near the float-safe edge, near ±2^63, as number, bigint or string. */
const intValue = fc.oneof(
  fc.integer({ min: -12, max: 12 }),
  fc.constantFrom(2 ** 53 - 1, -(2 ** 53 - 1), 3037000499, 3037000500, 4294967296),
  fc.constantFrom(MAX, MIN, MAX - 1n, MIN + 1n, 2n ** 62n, -(2n ** 62n), 2n ** 53n).map((n) => (n % 2n === 0n ? n : n.toString())),
  fc.bigInt({ min: MIN, max: MAX }).map(String),
);

const CHARS = ["a", "b", "z", "é", "ß", "€", "ｚ", "😀", "𝄞"];
const textValue = (max: number) => fc.array(fc.constantFrom(...CHARS), { maxLength: max }).map((cs) => cs.join(""));

/** A value of type `t`; `slack` lets texts and lists run past their bounds (arguments only). */
function valueOf(t: Type, slack: number): fc.Arbitrary<unknown> {
  switch (t.kind) {
    case "Int":
      return intValue;
    case "Bool":
      return fc.boolean();
    case "Date":
      return fc.integer({ min: -1000, max: 30000 }).map(formatDate);
    case "Enum":
      return fc.constantFrom(...t.values);
    case "Text":
      return textValue(t.len + slack);
    case "Identity":
      return fc.constantFrom(null, ...DIDS);
    case "Ref":
      return fc.constantFrom(null, "thing-1", "thing-2");
    case "List":
      return fc.array(valueOf(t.element, slack), { maxLength: t.cap + slack });
    case "Vector":
      return fc.constantFrom(null, [0.5, -2], [0.1, 1e10]);
    case "Float":
      throw new Error("no Float values in actions");
  }
}

/** Field values within bounds, or (for arguments, now and then) past them. */
const record = (items: readonly (readonly [string, Type])[], slack: number) =>
  fc.record(Object.fromEntries(items.map(([n, t]) => [n, slack === 0 ? valueOf(t, 0) : fc.oneof({ arbitrary: valueOf(t, 0), weight: 12 }, { arbitrary: valueOf(t, slack), weight: 1 })])));

const input: fc.Arbitrary<ExecuteInput & { action: number }> = fc.record({
  action: fc.nat(3),
  state: record(FIELDS, 0),
  args: record(PARAMS, 2),
  context: fc.record({ signer: fc.constantFrom(null, ...DIDS), time: fc.oneof(fc.nat(), fc.constantFrom(MAX.toString(), MIN.toString())) }),
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
