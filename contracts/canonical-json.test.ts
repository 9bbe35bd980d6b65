/** Canonical JSON: key order, nesting, escapes, and what it refuses. */
import { strictEqual, throws } from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalJson } from "./canonical-json.ts";

describe("canonical JSON", () => {
  it("sorts keys recursively, keeps array order and drops undefined members", () => {
    strictEqual(canonicalJson({ b: 1, a: [{ z: null, y: "é\n" }, 2], c: undefined, B: true }), '{"B":true,"a":[{"y":"é\\n","z":null},2],"b":1}');
  });

  it("gives equal text for equal values built in any order", () => {
    strictEqual(canonicalJson({ x: { p: 1, q: 2 }, w: [] }), canonicalJson({ w: [], x: { q: 2, p: 1 } }));
  });

  it("refuses non-integers and non-JSON values", () => {
    throws(() => canonicalJson({ a: 1.5 }));
    throws(() => canonicalJson(Number.NaN));
    throws(() => canonicalJson(10n));
  });
});
