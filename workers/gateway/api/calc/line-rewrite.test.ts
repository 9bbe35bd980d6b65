import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDate } from "../../../../contracts/dates.ts";
import { addMonths, type Moment, rewriteLine } from "./line-rewrite.ts";

/** 2026-11-21 10:30:00 wall-clock. */
const NOW: Moment = { day: parseDate("2026-11-21") as number, second: 10 * 3600 + 30 * 60 };

function rewritten(text: string, names: ReadonlyMap<string, Moment> = new Map()) {
  const r = rewriteLine(text, NOW, names);
  assert.ok(r.ok, `${text}: ${r.ok ? "" : r.error}`);
  return { expression: r.expression, dates: [...r.dates.values()], asPercent: r.asPercent };
}

const day = (iso: string) => parseDate(iso) as number;

test("a date, a date and time, and the words for today become placeholders of wall-clock moments", () => {
  assert.deepEqual(rewritten("2026-12-25 - 2026-11-25"), { expression: "$d0 - $d1", dates: [{ day: day("2026-12-25"), second: 0 }, { day: day("2026-11-25"), second: 0 }], asPercent: false });
  assert.deepEqual(rewritten("2026-12-25T09:30 + 2 hours").dates, [{ day: day("2026-12-25"), second: 9 * 3600 + 30 * 60 }]);
  assert.deepEqual(rewritten("2026-12-25T09:30:15").dates, [{ day: day("2026-12-25"), second: 9 * 3600 + 30 * 60 + 15 }]);
  assert.deepEqual(rewritten("today + 3 weeks"), { expression: "$d0 + 3 weeks", dates: [{ day: NOW.day, second: 0 }], asPercent: false });
  assert.deepEqual(rewritten("now").dates, [NOW]);
  assert.deepEqual(rewritten("tomorrow - yesterday").dates, [{ day: NOW.day + 1, second: 0 }, { day: NOW.day - 1, second: 0 }]);
  // Words inside other names, and digits that only look like a date inside a number, are left alone.
  assert.equal(rewritten("nowhere + todays").expression, "nowhere + todays");
  assert.equal(rewritten("12026-01-01").expression, "12026-01-01");
  assert.equal(rewritten("1.2026-01-01").expression, "1.2026-01-01");
});

test("a date that is not a real day is the line's error, not a subtraction", () => {
  assert.deepEqual(rewriteLine("2026-02-30 + 1 day", NOW), { ok: false, error: "2026-02-30 is not a date" });
  assert.deepEqual(rewriteLine("2026-11-21T24:00", NOW), { ok: false, error: "2026-11-21T24:00 is not a date" });
  assert.deepEqual(rewriteLine("2026-13-01", NOW), { ok: false, error: "2026-13-01 is not a date" });
});

test("days until and since count from today (hours and minutes from now)", () => {
  assert.deepEqual(rewritten("days until 2027-01-01"), { expression: "(($d0) - $d1) / (1 days)", dates: [{ day: day("2027-01-01"), second: 0 }, { day: NOW.day, second: 0 }], asPercent: false });
  assert.equal(rewritten("weeks since 2026-01-01").expression, "($d0 - ($d1)) / (1 weeks)");
  assert.deepEqual(rewritten("hours until tomorrow").dates, [{ day: NOW.day + 1, second: 0 }, NOW]);
});

test("percentages: N% of X is N% * X; X as % of Y is shown as a percentage", () => {
  assert.equal(rewritten("20% of 85").expression, "20% * 85");
  assert.equal(rewritten("15%of(80 + 5)").expression, "15% *(80 + 5)");
  assert.equal(rewritten("85 + 15%").expression, "85 + 15%");
  assert.deepEqual(rewritten("50 as % of 200"), { expression: "(50) / (200) * 100", dates: [], asPercent: true });
  assert.deepEqual(rewriteLine("as % of 200", NOW), { ok: false, error: "write it as: X as % of Y" });
});

test("N min is minutes; min(…) stays the function", () => {
  assert.equal(rewritten("2 hours + 30 min").expression, "2 hours + 30 minute");
  assert.equal(rewritten("(1 + 2)min").expression, "(1 + 2) minute");
  assert.equal(rewritten("min(3, 4)").expression, "min(3, 4)");
  assert.equal(rewritten("5 * min (3, 4)").expression, "5 * min (3, 4)");
});

test("calendar months and years on a date: the day of the month kept, or the month's last", () => {
  const [d] = rewritten("2026-01-31 + 1 month").dates.slice(-1);
  assert.equal(d?.day, day("2026-02-28"));
  assert.equal(rewritten("2024-02-29 + 1 year").dates.at(-1)?.day, day("2025-02-28"));
  assert.equal(rewritten("2026-03-31 - 1 month").dates.at(-1)?.day, day("2026-02-28"));
  assert.equal(rewritten("2026-11-21 + 14 months").dates.at(-1)?.day, day("2028-01-21"));
  const chain = rewritten("2026-01-31 + 1 month + 1 month");
  assert.equal(chain.expression, "$d2");
  assert.equal(chain.dates.at(-1)?.day, day("2026-03-28"));
  // A name an earlier line gave a date.
  const named = rewritten("start + 2 months", new Map([["start", { day: day("2026-12-31"), second: 60 }]]));
  assert.deepEqual(named.dates, [{ day: day("2027-02-28"), second: 60 }]);
  // Not when the month is part of something else: mathjs's average month applies there.
  assert.equal(rewritten("2026-01-31 + 1 month * 2").expression, "$d0 + 1 month * 2");
  assert.equal(rewritten("x - 2026-01-31 + 1 month").expression, "x - $d0 + 1 month");
  assert.equal(rewritten("other + 1 month").expression, "other + 1 month");
  assert.deepEqual(rewriteLine("9999-12-01 + 1 month", NOW), { ok: false, error: "the date is outside the years 0000–9999" });
});

test("addMonths clamps to the month's last day and refuses years past 9999", () => {
  assert.equal(addMonths(day("2026-08-31"), 1), day("2026-09-30"));
  assert.equal(addMonths(day("2026-01-15"), -13), day("2024-12-15"));
  assert.equal(addMonths(day("0000-01-01"), -1), null);
  assert.equal(addMonths(day("9999-12-31"), 0), day("9999-12-31"));
});

test("$ is the placeholders' own character: a line with one is refused", () => {
  assert.deepEqual(rewriteLine("$d0 + 1", NOW), { ok: false, error: "unexpected character $" });
});

test("each step stays linear on a 1,000-character line", () => {
  const lines = ["1 + ".repeat(249) + "1", "today + 1 month ".repeat(60), " ".repeat(995) + "- 1 month", "%of".repeat(333), "2026-01-01".repeat(90)];
  for (const line of lines) {
    const t0 = performance.now();
    rewriteLine(line, NOW);
    assert.ok(performance.now() - t0 < 50, `${line.slice(0, 30)}… took ${performance.now() - t0} ms`);
  }
});
