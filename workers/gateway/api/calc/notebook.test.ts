import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parseDate } from "../../../../contracts/dates.ts";
import { calcMath } from "./calc-math.ts";
import type { Moment } from "./line-rewrite.ts";
import type { LineResult } from "./line-result.ts";
import { BUDGET_MS, evaluateLines, type Rate } from "./notebook.ts";

/** 2026-11-21 10:30 wall-clock. */
const NOW: Moment = { day: parseDate("2026-11-21") as number, second: 10 * 3600 + 30 * 60 };
const RATES: Rate[] = [
  { code: "EUR", perBase: "1", date: "2026-11-20" },
  { code: "USD", perBase: "1.085", date: "2026-11-19" },
  { code: "GBP", perBase: "0.85", date: "2026-11-20" },
];

function run(lines: readonly string[], rates: readonly Rate[] = RATES): LineResult[] {
  return evaluateLines(lines, { now: NOW, rates });
}

/** The text of each line, or its error marked `!`. */
function texts(lines: readonly string[], rates?: readonly Rate[]): string[] {
  return run(lines, rates).map((r) => ("error" in r ? `! ${r.error}` : r.text));
}

test("decimals are exact and percentages read as a person means them", () => {
  assert.deepEqual(run(["0.1 + 0.2"]), [{ kind: "number", value: "0.3", text: "0.3" }]);
  assert.deepEqual(texts(["20% of 85", "85 + 15%", "85 - 15%", "15%", "50 as % of 200", "10 % 3", "1/3", "2^64", "1e30 / 3"]), ["17", "97.75", "72.25", "0.15", "25%", "1", "0.33333333333333", "18446744073709551616", "3.3333333333333e+29"]);
  assert.equal((run(["1/3"])[0] as { value: string }).value, "0.3333333333333333333333333333333333");
});

test("units and conversions: length, mass, volume, time, data, temperature", () => {
  assert.deepEqual(run(["5 km + 300 m"]), [{ kind: "quantity", value: "5.3", unit: "km", text: "5.3 km" }]);
  assert.deepEqual(texts(["3 ft in cm", "3 ft to cm", "5 kg to g", "2 liter + 500 ml", "2 hours + 30 min", "90 minutes to hours", "1 GiB to MB", "1500 MB to GB", "8 bit to byte", "20 degC to degF", "68 degF to degC", "100 km/h to m/s"]), [
    "91.44 cm",
    "91.44 cm",
    "5000 g",
    "2.5 liter",
    "2.5 hours",
    "1.5 hours",
    "1073.741824 MB",
    "1.5 GB",
    "1 byte",
    "68 °F",
    "20 °C",
    "27.777777777778 m / s",
  ]);
});

test("dates: today, a date plus a duration, days until, a date minus a date, now, calendar months", () => {
  assert.deepEqual(run(["today", "today + 3 weeks", "now"]), [
    { kind: "date", value: "2026-11-21", text: "2026-11-21" },
    { kind: "date", value: "2026-12-12", text: "2026-12-12" },
    { kind: "date", value: "2026-11-21T10:30", text: "2026-11-21 10:30" },
  ]);
  assert.deepEqual(run(["days until 2027-01-01"]), [{ kind: "number", value: "41", text: "41" }]);
  assert.deepEqual(run(["2026-12-25 - 2026-11-25"]), [{ kind: "quantity", value: "30", unit: "days", text: "30 days" }]);
  assert.deepEqual(texts(["now + 90 minutes", "2026-01-31 + 1 month", "start = 2026-03-31", "start - 1 month", "start + 1 week", "start < 2026-04-01", "days since 2026-11-01", "yesterday"]), [
    "2026-11-21 12:00",
    "2026-02-28",
    "2026-03-31",
    "2026-02-28",
    "2026-04-07",
    "true",
    "20",
    "2026-11-20",
  ]);
  assert.deepEqual(texts(["today * 2", "today + today", "3 days - today", "today + 3", "sqrt(today)", "9999-12-31 + 2 days", "2026-02-30"]), [
    "! a date can only have a duration added or subtracted, or be compared with a date",
    "! two dates cannot be added",
    "! a date cannot be subtracted from a duration",
    "! a date takes a duration: write today + 3 days",
    "! sqrt() does not take a date",
    "! the date is outside the years 0000–9999",
    "! 2026-02-30 is not a date",
  ]);
});

test("names assigned on one line are read on later lines; comments and blank lines are empty", () => {
  assert.deepEqual(run(["rent = 1200", "# yearly", "", "rent * 12   # a comment after", "  "]), [
    { kind: "number", value: "1200", text: "1200" },
    { value: null, text: "" },
    { value: null, text: "" },
    { kind: "number", value: "14400", text: "14400" },
    { value: null, text: "" },
  ]);
  assert.deepEqual(texts(["x * 2", "x = 4", "x * 2", "km = 3", "pi = 3", "sqrt = 2", "USD = 1", "x(2)"]), [
    "! unknown name: x",
    "4",
    "8",
    "! km is a unit",
    "! pi is a built-in name",
    "! sqrt is a built-in name",
    "! USD is a currency",
    "! x is not a function",
  ]);
});

test("an error is that line's only: the lines around it still evaluate", () => {
  assert.deepEqual(texts(["1 + 1", "1 +", "2 * 3", "5 km + 3 kg", "4 / 2"]), ["2", "! Unexpected end of expression (char 4)", "6", "! these values do not go together (a number and a unit, or units of different kinds)", "2"]);
});

test("currencies convert at the node's rates, into the first currency, naming the oldest rate's date", () => {
  assert.deepEqual(run(["100 EUR in USD"]), [{ kind: "currency", value: "108.5", unit: "USD", text: "108.50 USD", rate: { date: "2026-11-19" } }]);
  assert.deepEqual(run(["25 USD + 10 EUR"]), [{ kind: "currency", value: "35.85", unit: "USD", text: "35.85 USD", rate: { date: "2026-11-19" } }]);
  assert.deepEqual(run(["price = 100 GBP", "price to EUR"]), [
    { kind: "currency", value: "100", unit: "GBP", text: "100.00 GBP", rate: { date: "2026-11-20" } },
    { kind: "currency", value: "117.6470588235294117647058823529412", unit: "EUR", text: "117.65 EUR", rate: { date: "2026-11-20" } },
  ]);
  assert.deepEqual(texts(["100 CHF", "100 XXX", "100 EUR / 4 h"]), ["! no rate for the currency CHF", "! no rate for the currency XXX", "25 EUR / h"]);
  // The next request's rates replace these.
  assert.deepEqual(texts(["100 EUR in USD"], [{ code: "EUR", perBase: "1", date: "2026-11-21" }, { code: "USD", perBase: "1.1", date: "2026-11-21" }]), ["110.00 USD"]);
  assert.deepEqual(texts(["100 EUR in USD"], []), ["! no rate for the currency EUR"]);
});

test("what a line may not reach: evaluation, units made up, matrices and ranges, text, functions defined", () => {
  assert.deepEqual(texts(["evaluate(\"1+1\")", "import(1)", "createUnit(\"foo\")", "parse(\"1\")", "simplify(1)", "derivative(1, 1)", "compile(\"1\")", "zeros(1e9)", "ones(9, 9)", "identity(1e5)", "range(1, 1e9)", "random()", "matrix()", "1:1e9", "[1, 2]", "{a: 1}", "\"text\"", "f(x) = x", "a = 1; b = 2", "sqrt", "cos(1)[1]", "x.y"]), [
    "! evaluate() is not available",
    "! import() is not available",
    "! createUnit() is not available",
    "! parse() is not available",
    "! simplify() is not available",
    "! derivative() is not available",
    "! compile() is not available",
    "! zeros() is not available",
    "! ones() is not available",
    "! identity() is not available",
    "! range() is not available",
    "! random() is not available",
    "! matrix() is not available",
    "! ranges are not available",
    "! lists and matrices are not available",
    "! objects are not available",
    "! text is not available",
    "! defining functions is not available",
    "! one expression per line",
    "! sqrt is a function: write sqrt(…)",
    "! indexing is not available",
    "! indexing is not available",
  ]);
});

test("costly lines answer quickly: huge powers and factorials, deep nesting, and decimal.js left clean after an error", () => {
  const lines = ["9^9^9", "factorial(100000)", "(9^9^9)!", "factorial(5000) > 0", "exp(1e20)", "sin(1e3000)", "2^(1/3)", "(".repeat(1000) + "1" + ")".repeat(1000), "-".repeat(999) + "1", "2^".repeat(333) + "2", "1e9000000000000000 * 10"];
  const t0 = performance.now();
  const results = texts(lines);
  const took = performance.now() - t0;
  assert.deepEqual(results, [
    "4.2812477317575e+369693099",
    "! factorial's argument is over 5,000",
    "! factorial's argument is over 5,000",
    "true",
    "! exp's argument is over 1,000,000,000,000,000",
    "! the angle is over 1,000,000,000,000,000,000,000",
    "1.2599210498949",
    "! brackets are nested more than 32 deep",
    "-1",
    "Infinity",
    "Infinity",
  ]);
  // Each answers in milliseconds, and a line that escaped its limits would take minutes: ten seconds
  // is room for a loaded machine, not for a hang.
  assert.ok(took < 10_000, `took ${took} ms`);
});

test("decimal.js is put back after an error thrown inside it (left as it was, a cube root took seconds)", () => {
  assert.throws(() => calcMath().decimal("1e3000").sin(), /Precision limit exceeded/);
  const t0 = performance.now();
  assert.deepEqual(texts(["2^(1/3)", "atan(1e300)", "1/3"]), ["1.2599210498949", "1.5707963267949", "0.33333333333333"]);
  assert.ok(performance.now() - t0 < 1000, `after the error: ${performance.now() - t0} ms`);
});

test("the request's time budget: a line of many costly calls stops at it, and later lines answer that it is spent", () => {
  // Sixty calls of a few milliseconds each: far more than a 10 ms budget, which is checked at every call.
  const costly = Array.from({ length: 60 }, (_, i) => `factorial(${4940 + i})`).join("+");
  assert.ok(costly.length <= 1000);
  const t0 = performance.now();
  assert.deepEqual(evaluateLines([costly], { now: NOW, rates: [], budgetMs: 10_000 }).map((r) => "error" in r), [false], "the line within a budget that covers it");
  const whole = performance.now() - t0;
  const t1 = performance.now();
  const results = evaluateLines([costly, "1 + 1", "2 + 2"], { now: NOW, rates: [], budgetMs: 10 });
  const cut = performance.now() - t1;
  assert.deepEqual(results, [{ error: "time budget spent" }, { error: "time budget spent" }, { error: "time budget spent" }]);
  assert.ok(cut < whole / 3, `cut at the budget after ${cut} ms; the whole line takes ${whole} ms`);

  // A clock that moves 100 ms per look: the deadline is 350; lines look at 200 and 300, then 400 is past it.
  let t = 0;
  const ticked = evaluateLines(["1", "2", "3", "4"], { now: NOW, rates: [], clock: () => (t += 100) });
  assert.deepEqual(ticked.map((r) => ("error" in r ? r.error : r.text)), ["1", "2", "time budget spent", "time budget spent"]);
});

const TOKENS = [
  ..."0123456789",
  "1.5",
  "1e400",
  "9",
  " ",
  " ",
  "+",
  "-",
  "*",
  "/",
  "^",
  "!",
  "%",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ".",
  ":",
  "?",
  "=",
  "==",
  "<",
  "#",
  "'",
  '"',
  ";",
  "\n",
  "km",
  "m",
  "ft",
  "degC",
  "GiB",
  "days",
  "month",
  "USD",
  "EUR",
  "XYZ",
  " in ",
  " to ",
  " of ",
  " as % of ",
  "today",
  "now",
  "2026-11-21",
  "days until ",
  "x",
  "x = ",
  "factorial(",
  "sin(",
  "exp(",
  "pow(",
  "nthRoot(",
  "zeros(",
  "evaluate(",
  "min",
  "$",
  "é",
  "\u0000",
];

test("fuzz: random lines of operators, digits, units and brackets never throw out and stay within the budget", () => {
  const runs = Number(process.env.CHARTER_FUZZ_RUNS ?? 150);
  const line = fc.array(fc.constantFrom(...TOKENS), { maxLength: 80 }).map((t) => t.join("").slice(0, 1000));
  fc.assert(
    fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), (lines) => {
      const t0 = performance.now();
      const results = run(lines);
      const took = performance.now() - t0;
      assert.equal(results.length, lines.length);
      for (const r of results) assert.ok(typeof ("error" in r ? r.error : r.text) === "string");
      // The budget bounds when a line may start or call; past it by at most one call (room left for a loaded machine).
      assert.ok(took < BUDGET_MS + 250, `${JSON.stringify(lines)} took ${took} ms`);
    }),
    { numRuns: runs, seed: Number(process.env.CHARTER_FUZZ_SEED ?? 20261121) },
  );
});

test("rates that are no rates (text a record written elsewhere may hold) are left out, not thrown", () => {
  const odd: Rate[] = [
    { code: "EUR", perBase: "1", date: "2026-11-20" },
    { code: "USD", perBase: "abc", date: "2026-11-20" },
    { code: "GBP", perBase: "-2", date: "2026-11-20" },
    { code: "chf", perBase: "1", date: "2026-11-20" },
    { code: "m", perBase: "1", date: "2026-11-20" },
    { code: "JPY", perBase: "", date: "2026-11-20" },
  ];
  assert.deepEqual(texts(["2 EUR", "1 USD", "1 GBP", "1 JPY", "1 m"], odd), ["2.00 EUR", "! no rate for the currency USD", "! no rate for the currency GBP", "! no rate for the currency JPY", "1 m"]);
});
