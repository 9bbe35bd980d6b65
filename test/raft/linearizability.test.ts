// Unit tests of the Wing & Gong checker on histories whose verdict is known (issue #7).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { KvInput, Operation } from "./linearizability.ts";
import { checkLinearizable, kvModel } from "./linearizability.ts";

const w = (value: string, call: number, ret: number, key = "x"): Operation<KvInput, string> => ({ input: { kind: "write", key, value }, output: "", call, ret });
const r = (value: string, call: number, ret: number, key = "x"): Operation<KvInput, string> => ({ input: { kind: "read", key }, output: value, call, ret });
const ok = (h: Operation<KvInput, string>[]) => checkLinearizable(kvModel, h).ok;

test("a sequential history that follows the model is linearizable", () => {
  assert.equal(ok([w("1", 0, 1), r("1", 2, 3), w("2", 4, 5), r("2", 6, 7)]), true);
});

test("a read of a value overwritten before it began is not", () => {
  assert.equal(ok([w("1", 0, 1), w("2", 2, 3), r("1", 4, 5)]), false);
});

test("concurrent writes may take effect in either order", () => {
  assert.equal(ok([w("1", 0, 10), w("2", 0, 10), r("2", 11, 12)]), true);
  assert.equal(ok([w("1", 0, 10), w("2", 0, 10), r("1", 11, 12)]), true);
});

test("two reads after both writes cannot disagree on their order", () => {
  assert.equal(ok([w("1", 0, 10), w("2", 0, 10), r("1", 11, 12), r("2", 13, 14), r("1", 15, 16)]), false);
});

test("a read concurrent with a write sees the old or the new value, but the new one sticks", () => {
  assert.equal(ok([w("1", 0, 1), w("2", 2, 10), r("2", 3, 4), r("1", 5, 6)]), false);
  assert.equal(ok([w("1", 0, 1), w("2", 2, 10), r("1", 3, 4), r("2", 5, 6)]), true);
});

test("a write that never answered may take effect late or never", () => {
  assert.equal(ok([w("1", 0, 1), w("2", 2, Infinity), r("1", 3, 4), r("2", 5, 6)]), true);
  assert.equal(ok([w("1", 0, 1), w("2", 2, Infinity), r("1", 3, 4), r("1", 7, 8)]), true);
  assert.equal(ok([w("1", 0, 1), w("2", 2, Infinity), r("2", 3, 4), r("1", 7, 8)]), false);
});

test("a read of a value never written is not linearizable", () => {
  assert.equal(ok([w("1", 0, 1), r("3", 2, 3)]), false);
});

test("keys are checked independently", () => {
  assert.equal(ok([w("1", 0, 1, "x"), w("1", 0, 1, "y"), r("1", 2, 3, "x"), r("", 2, 3, "z")]), true);
  assert.equal(ok([w("1", 0, 1, "x"), r("", 2, 3, "x"), r("1", 2, 3, "y")]), false);
});

test("a history with many overlapping writes is decided quickly (memoization)", () => {
  const h: Operation<KvInput, string>[] = [];
  for (let i = 0; i < 14; i++) h.push(w(String(i), 0, 100));
  h.push(r("7", 101, 102));
  assert.equal(ok(h), true);
  h.push(r("3", 103, 104));
  assert.equal(ok(h), false);
});
