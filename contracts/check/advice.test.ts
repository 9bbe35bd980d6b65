/**
 * @module Tests for the checker's advice: quoted values, text against an enum, value lists and the
 * nearest known name.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Expr, Type } from "../ast.ts";
import { didYouMean, enumTextAdvice, quotedValueAdvice, valueList } from "./advice.ts";

const text = (value: string): Expr => ({ kind: "TextLit", value, span: [0, value.length + 2] });
const status: Extract<Type, { kind: "Enum" }> = { kind: "Enum", values: ["New", "Shipped"], name: "Status" };
const inline: Extract<Type, { kind: "Enum" }> = { kind: "Enum", values: ["Up", "Down"] };

describe("quotedValueAdvice", () => {
  it("tells to drop the quotes of a number, a Bool or an enum value", () => {
    assert.equal(quotedValueAdvice({ kind: "Int" }, text("-12"), "n"), 'write -12, not "-12": numbers take no quotes');
    assert.equal(quotedValueAdvice({ kind: "Bool" }, text("true"), "b"), 'write true, not "true": true and false take no quotes');
    assert.equal(quotedValueAdvice(status, text("New"), "state.s"), 'Status is an enum; write New, not "New"');
    assert.equal(quotedValueAdvice(inline, text("Up"), "state.dir"), 'state.dir is an enum; write Up, not "Up"');
  });

  it("says nothing when quotes are not the mistake", () => {
    assert.equal(quotedValueAdvice({ kind: "Int" }, text("twelve"), "n"), "");
    assert.equal(quotedValueAdvice({ kind: "Bool" }, text("yes"), "b"), "");
    assert.equal(quotedValueAdvice({ kind: "Int" }, { kind: "BoolLit", value: true, span: [0, 4] }, "n"), "");
    assert.equal(quotedValueAdvice({ kind: "Text", len: 3 }, text("5"), "t"), "");
  });
});

describe("enumTextAdvice", () => {
  it("lists the values for a text that is none of them, and advises a value for non-literal text", () => {
    assert.equal(enumTextAdvice(status, "state.s", text("Old")), "Status is an enum; write one of its values without quotes: New or Shipped");
    assert.equal(enumTextAdvice(inline, "state.dir", { kind: "Name", name: "t", span: [0, 1] }), "state.dir is an enum and never equals text; compare it with one of its values: Up or Down");
  });
});

describe("valueList", () => {
  it("joins with commas and a last word, and cuts a long list short", () => {
    assert.equal(valueList(["A"]), "A");
    assert.equal(valueList(["A", "B", "C"], "and"), "A, B and C");
    assert.equal(valueList("ABCDEFGHIJ".split("")), "A, B, C, D, E, F, G or …");
  });
});

describe("didYouMean", () => {
  it("suggests the nearest known name within two edits (one for a short name), swaps counting once", () => {
    assert.equal(didYouMean("stauts", ["owner", "status"], "state."), "did you mean state.status?");
    assert.equal(didYouMean("Shiped", ["New", "Shipped"]), "did you mean Shipped?");
    assert.equal(didYouMean("Nwe", ["New"]), "did you mean New?");
    assert.equal(didYouMean("ab", ["xy"]), "");
    assert.equal(didYouMean("anything", ["units", "New"]), "");
    assert.equal(didYouMean("status", ["status"]), "");
  });
});
