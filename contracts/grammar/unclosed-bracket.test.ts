/**
 * @module Tests for finding the bracket left open: pairing outside comments and text, the `}` whose
 * indentation shows an inner block was left open, closers without openers, and what a bracket
 * opens, in words.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bracketOwner, findUnclosed } from "./unclosed-bracket.ts";

/** The offset of the `nth` occurrence of `needle` in `text`. */
const at = (text: string, needle: string, nth = 0): number => {
  let offset = -1;
  for (let i = 0; i <= nth; i++) offset = text.indexOf(needle, offset + 1);
  return offset;
};

describe("findUnclosed", () => {
  it("finds nothing when every bracket is closed, ignoring brackets in comments and text", () => {
    assert.equal(findUnclosed('aggregate A {\n  # (not code {\n  x == ")}{("\n  (a and (b))\n}\n'), null);
  });

  it("points at a `(` that a `}` meets before its `)`", () => {
    const text = "aggregate A {\n  action Go(n: Int {\n  }\n}\n";
    assert.deepEqual(findUnclosed(text), { offset: at(text, "("), open: "(", close: ")" });
  });

  it("points at the innermost block when the file ends inside it", () => {
    const text = "aggregate A {\n  action Go() {\n    authorize anyone\n";
    assert.deepEqual(findUnclosed(text), { offset: at(text, "{", 1), open: "{", close: "}" });
  });

  it("points at an inner block when a `}` is level with an outer block's line", () => {
    const text = "aggregate A {\n  action Go() {\n    validate {\n      true\n  }\n}\n";
    assert.deepEqual(findUnclosed(text), { offset: at(text, "{", 2), open: "{", close: "}" });
  });

  it("trusts the brackets when the indentation matches no outer line", () => {
    const text = "aggregate A {\n      action Go() {\n    }\n";
    assert.deepEqual(findUnclosed(text), { offset: at(text, "{"), open: "{", close: "}" });
  });

  it("leaves a closer without an opener to the parser", () => {
    assert.equal(findUnclosed("a {\n  len(x)) > 0\n}\n"), null);
    assert.equal(findUnclosed("}\n{"), null);
  });

  it("scans a large hostile input in linear time", () => {
    const text = "  {\n".repeat(200_000) + "}\n".repeat(200_000) + "(";
    const started = process.hrtime.bigint();
    assert.deepEqual(findUnclosed(text), { offset: text.length - 1, open: "(", close: ")" });
    // Linear is milliseconds; quadratic on 400,000 lines would be hours: 20 s tells them apart on any machine.
    assert.ok(process.hrtime.bigint() - started < 20_000_000_000n);
  });
});

describe("bracketOwner", () => {
  it("names what the bracket opens", () => {
    const text = [
      "enum Status(New",
      "record Row {",
      "aggregate Order {",
      "  action Request(customer: Text(len=10)) api authenticated {",
      "    validate {",
      "      len(x) > 0 and(y)",
      "query Q(n: Int) returns List<Row> pipe",
      "migrate Order {",
    ].join("\n");
    const owner = (needle: string, nth = 0) => bracketOwner(text, at(text, needle, nth));
    assert.equal(owner("(New"), "enum Status");
    assert.equal(owner("{"), "record Row");
    assert.equal(owner("{", 1), "aggregate Order");
    assert.equal(owner("(customer"), "the parameter list of action Request");
    assert.equal(owner("(len=10"), "`Text(`");
    assert.equal(owner("{", 2), "action Request");
    assert.equal(owner("{", 3), "the validate block");
    assert.equal(owner("(y"), "a parenthesis");
    assert.equal(owner("(n: Int"), "the parameter list of query Q");
    assert.equal(owner("{", 4), "migrate Order");
  });
});
