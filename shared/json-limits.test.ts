import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { checkJsonTextDepth, checkJsonValue, JSON_LIMITS } from "./json-limits.ts";

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

test("issue 16 #1: values nested past the limit are found without recursion, however deep", () => {
  assert.equal(checkJsonValue(JSON.parse(nested(32))), null);
  const over = checkJsonValue(JSON.parse(nested(33)));
  assert.equal(over?.limit, "depth");
  assert.match(over?.detail ?? "", /nested more than 32 levels/);
  assert.equal(checkJsonValue(JSON.parse(nested(1_000_000)))?.limit, "depth", "a million levels: no stack overflow");
  assert.equal(checkJsonTextDepth(nested(32)), null);
  assert.equal(checkJsonTextDepth(nested(33))?.limit, "depth");
  assert.equal(checkJsonTextDepth(`["${"[".repeat(100)}"]`), null, "brackets inside strings do not count");
  assert.equal(checkJsonTextDepth(`["\\"${"[".repeat(100)}"]`), null, "nor after an escaped quote");
});

test("issue 16 #1: wide values and long keys are bounded too", () => {
  assert.equal(checkJsonValue(new Array(9_999).fill(0)), null);
  assert.equal(checkJsonValue(new Array(10_000).fill(0))?.limit, "values");
  assert.equal(checkJsonValue({ ["k".repeat(257)]: 1 })?.limit, "key-length");
  assert.equal(checkJsonValue({ a: { b: [1, { c: "x".repeat(100_000) }] } }), null, "long strings are the body limit's business");
});

test("the check agrees with a recursive measure of depth and size on any value", () => {
  const measure = (v: unknown, depth = 1): { depth: number; values: number } => {
    if (v === null || typeof v !== "object") return { depth: 0, values: 1 };
    const children = Array.isArray(v) ? v : Object.values(v);
    let d = depth;
    let n = 1;
    for (const c of children) {
      const m = measure(c, depth + 1);
      d = Math.max(d, m.depth);
      n += m.values;
    }
    return { depth: d, values: n };
  };
  const limits = { ...JSON_LIMITS, maxDepth: 4, maxValues: 40 };
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 7 }), (v) => {
      const m = measure(v);
      const over = checkJsonValue(v, limits);
      assert.equal(over === null, m.depth <= limits.maxDepth && m.values <= limits.maxValues, JSON.stringify({ m, over }));
    }),
    { numRuns: 500 },
  );
});
