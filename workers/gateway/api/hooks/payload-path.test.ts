/** JSON Pointers into a webhook payload: parsed once, bounded, followed through own members only. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_PATH_TOKENS, parsePath, pointerOf, valueAt } from "./payload-path.ts";

const tokens = (text: string) => {
  const p = parsePath(text);
  assert.ok(p.ok, text);
  return p.tokens;
};

describe("payload paths", () => {
  it("parses JSON Pointers, with ~1 for / and ~0 for ~", () => {
    assert.deepEqual(tokens("/issue/title"), ["issue", "title"]);
    assert.deepEqual(tokens("/a~1b/c~0d/~01"), ["a/b", "c~d", "~1"]);
    assert.deepEqual(tokens("/labels/0/name"), ["labels", "0", "name"]);
    assert.deepEqual(tokens("/"), [""], "the member named with the empty string");
    assert.equal(pointerOf(["a/b", "c~d"]), "/a~1b/c~0d");
  });

  it("refuses what is not a bounded pointer to a member", () => {
    for (const bad of ["", "issue/title", "/a~2", "/a~", 7, null, `/${"x/".repeat(MAX_PATH_TOKENS)}`, `/${"x".repeat(300)}`]) {
      assert.equal(parsePath(bad).ok, false, String(bad));
    }
  });

  it("finds values through objects and arrays, and names the first part that is not there", () => {
    const doc = { issue: { title: "Bug", labels: [{ name: "x" }], n: null }, "a/b": 1 };
    assert.deepEqual(valueAt(doc, tokens("/issue/title")), { found: true, value: "Bug" });
    assert.deepEqual(valueAt(doc, tokens("/issue/labels/0/name")), { found: true, value: "x" });
    assert.deepEqual(valueAt(doc, tokens("/issue/n")), { found: true, value: null }, "null is a value");
    assert.deepEqual(valueAt(doc, tokens("/a~1b")), { found: true, value: 1 });
    assert.deepEqual(valueAt(doc, tokens("/issue/body")), { found: false, missing: "/issue/body" });
    assert.deepEqual(valueAt(doc, tokens("/issue/labels/1/name")), { found: false, missing: "/issue/labels/1" });
    assert.deepEqual(valueAt(doc, tokens("/issue/labels/01")), { found: false, missing: "/issue/labels/01" }, "no leading zeros");
    assert.deepEqual(valueAt(doc, tokens("/issue/title/length")), { found: false, missing: "/issue/title/length" }, "a string has no members");
  });

  it("follows own members only, never the prototype's", () => {
    const doc = JSON.parse('{"issue": {}}') as unknown;
    assert.equal(valueAt(doc, tokens("/issue/constructor")).found, false);
    assert.equal(valueAt(doc, tokens("/__proto__")).found, false);
    assert.equal(valueAt(doc, tokens("/issue/toString")).found, false);
  });
});
