import assert from "node:assert/strict";
import { test } from "node:test";
import { fitResult, parseResult, RESULT_LEN } from "./dashboard-result.ts";

test("rows that fit are kept whole, and the text is the JSON of the panels", () => {
  const fitted = fitResult([[{ a: 1 }, { a: 2 }], [], [{ b: "x" }]]);
  assert.deepEqual(fitted.panels, [
    { rows: [{ a: 1 }, { a: 2 }], truncated: false },
    { rows: [], truncated: false },
    { rows: [{ b: "x" }], truncated: false },
  ]);
  assert.deepEqual(JSON.parse(fitted.text), fitted.panels);
  assert.deepEqual(parseResult(fitted.text), fitted.panels);
});

test("a result over the budget keeps each panel's first rows that fit, shares the room, and says so", () => {
  const row = (i: number) => ({ id: `row-${i}`, text: "é".repeat(90) });
  const long = Array.from({ length: 2_000 }, (_, i) => row(i));
  const short = [row(0), row(1)];
  const fitted = fitResult([long, short]);
  assert.ok(fitted.text.length <= RESULT_LEN, `${fitted.text.length}`);
  assert.ok(RESULT_LEN - fitted.text.length < JSON.stringify(row(0)).length + 1, "no room left for another row");
  const [first, second] = fitted.panels;
  assert.equal(first?.truncated, true);
  assert.deepEqual(first?.rows, long.slice(0, first?.rows.length), "the first rows, in order");
  assert.deepEqual(second, { rows: short, truncated: false }, "the long panel does not crowd out the short one");
  assert.deepEqual(JSON.parse(fitted.text), fitted.panels);
});

test("a row larger than the whole budget leaves its panel empty and truncated", () => {
  const fitted = fitResult([[{ big: "x".repeat(200) }, { small: 1 }], [{ n: 1 }]], 120);
  assert.deepEqual(fitted.panels, [
    { rows: [], truncated: true },
    { rows: [{ n: 1 }], truncated: false },
  ]);
  assert.ok(fitted.text.length <= 120);
});

test("Ints beyond ±2^53 are written as their digits; a stored text that is not a result reads as none", () => {
  assert.equal(fitResult([[{ n: 2n ** 60n }]]).text, `[{"rows":[{"n":"${2n ** 60n}"}],"truncated":false}]`);
  for (const bad of ["", "{", "{}", "12"]) assert.equal(parseResult(bad), null, bad);
  assert.deepEqual(parseResult('[{"rows":1},null]'), [
    { rows: [], truncated: false },
    { rows: [], truncated: false },
  ]);
});
