/** Checking query parameters against their declared types (issue 4, item 5 "Reads"). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateKeyPair } from "../../shared/identity/index.ts";
import { checkParams, type ParamDecl } from "./query-params.ts";

const declared: ParamDecl[] = [
  { name: "name", type: { kind: "Text", len: 3 } },
  { name: "n", type: { kind: "Int" } },
  { name: "flag", type: { kind: "Bool" } },
  { name: "status", type: { kind: "Enum", values: ["New", "Done"] } },
  { name: "day", type: { kind: "Date" } },
  { name: "who", type: { kind: "Identity" } },
  { name: "tags", type: { kind: "List", element: { kind: "Int" }, cap: 2 } },
];
const did = generateKeyPair().did;

describe("checkParams", () => {
  it("answers each value as its column holds it", () => {
    const r = checkParams(declared, { name: "ab€", n: "9007199254740993", flag: true, status: "Done", day: "2024-02-29", who: did, tags: [1, "2"] }, new Set(["n"]));
    assert.ok(r.ok);
    assert.deepEqual(Object.fromEntries(r.values), { name: "ab€", n: 9007199254740993n, flag: 1, status: "Done", day: "2024-02-29", who: did, tags: "[1,2]" });
  });

  it("lists every bad parameter, a missing one and an unknown one", () => {
    const r = checkParams(declared, { name: "abcd", n: 1.5, flag: "yes", status: "Old", day: "2023-02-29", who: "did:key:nope", tags: [1, 2, 3], extra: 1 }, new Set());
    assert.ok(!r.ok);
    assert.deepEqual(r.errors.map((e) => e.pointer), ["#/params/name", "#/params/n", "#/params/flag", "#/params/status", "#/params/day", "#/params/who", "#/params/tags", "#/params/extra"]);
    assert.equal(r.errors[0]?.detail, "must be at most 3 characters");
    assert.equal(r.errors[3]?.detail, "must be one of New, Done");
    const missing = checkParams(declared.slice(0, 1), {}, new Set());
    assert.deepEqual(!missing.ok && missing.errors, [{ pointer: "#/params/name", detail: "is required" }]);
  });

  it("refuses a negative take/drop count and a params value that is not an object", () => {
    const r = checkParams([{ name: "n", type: { kind: "Int" } }], { n: -1 }, new Set(["n"]));
    assert.deepEqual(!r.ok && r.errors, [{ pointer: "#/params/n", detail: "is a take/drop count and must not be negative" }]);
    assert.equal(checkParams([], [], new Set()).ok, false);
    assert.equal(checkParams([], undefined, new Set()).ok, true);
  });
});
