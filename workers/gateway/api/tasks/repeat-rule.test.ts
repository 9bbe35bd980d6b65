import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatDate, parseDate } from "./calendar.ts";
import { nextOccurrence, occurrencesBetween, parseRepeat, type RepeatRule, ruleText } from "./repeat-rule.ts";

const day = (text: string) => parseDate(text) ?? assert.fail(`not a date: ${text}`);
const rule = (text: string): RepeatRule => {
  const parsed = parseRepeat(text);
  assert.ok(parsed.ok, `${text}: ${parsed.ok ? "" : parsed.error}`);
  return parsed.value;
};
/** The first `n` occurrences after `after`, counted from `anchor`. */
const series = (text: string, anchor: string, after: string, n: number) => {
  const r = rule(text);
  const out: string[] = [];
  let at: number | null = day(after);
  while (out.length < n && (at = nextOccurrence(r, day(anchor), at)) !== null) out.push(formatDate(at));
  return out;
};

describe("parseRepeat", () => {
  it("reads the keywords and RRULE text in any case and order, and writes one canonical spelling", () => {
    const cases: [string, string][] = [
      ["daily", "FREQ=DAILY;INTERVAL=1"],
      [" Weekly ", "FREQ=WEEKLY;INTERVAL=1"],
      ["monthly", "FREQ=MONTHLY;INTERVAL=1"],
      ["YEARLY", "FREQ=YEARLY;INTERVAL=1"],
      ["FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE"],
      ["rrule:byday=we,mo,we;interval=2;freq=weekly", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE"],
      ["FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;WKST=MO", "FREQ=DAILY;INTERVAL=1;BYDAY=MO,TU,WE,TH,FR"],
      ["FREQ=MONTHLY;BYMONTHDAY=-1", "FREQ=MONTHLY;INTERVAL=1;BYMONTHDAY=-1"],
      ["FREQ=MONTHLY;INTERVAL=3;BYDAY=-1FR", "FREQ=MONTHLY;INTERVAL=3;BYDAY=-1FR"],
      ["FREQ=YEARLY;BYMONTHDAY=29;BYMONTH=2", "FREQ=YEARLY;INTERVAL=1;BYMONTH=2;BYMONTHDAY=29"],
    ];
    for (const [input, canonical] of cases) {
      assert.equal(ruleText(rule(input)), canonical, input);
      assert.equal(ruleText(rule(canonical)), canonical, `${canonical} reads back as itself`);
    }
  });

  it("refuses what it does not support, saying why", () => {
    const cases: [string, RegExp][] = [
      ["hourly", /NAME=VALUE/],
      ["FREQ=HOURLY", /FREQ is required/],
      ["INTERVAL=2", /FREQ is required/],
      ["FREQ=DAILY;COUNT=3", /COUNT is not supported/],
      ["FREQ=DAILY;UNTIL=20270101", /UNTIL is not supported/],
      ["FREQ=MONTHLY;BYSETPOS=-1;BYDAY=MO", /BYSETPOS is not supported/],
      ["FREQ=DAILY;FREQ=WEEKLY", /FREQ is given twice/],
      ["FREQ=DAILY;INTERVAL=0", /INTERVAL/],
      ["FREQ=DAILY;INTERVAL=1000", /INTERVAL/],
      ["FREQ=DAILY;INTERVAL=-2", /INTERVAL/],
      ["FREQ=WEEKLY;BYDAY=MO,XX", /weekdays/],
      ["FREQ=WEEKLY;BYDAY=1MO", /weekdays/],
      ["FREQ=MONTHLY;BYDAY=MO", /one weekday of the month/],
      ["FREQ=MONTHLY;BYDAY=5MO", /one weekday of the month/],
      ["FREQ=MONTHLY;BYDAY=1MO,3MO", /one weekday of the month/],
      ["FREQ=YEARLY;BYDAY=MO", /not supported with YEARLY/],
      ["FREQ=MONTHLY;BYMONTHDAY=32", /BYMONTHDAY/],
      ["FREQ=MONTHLY;BYMONTHDAY=1,15", /BYMONTHDAY/],
      ["FREQ=DAILY;BYMONTHDAY=1", /BYMONTHDAY goes with/],
      ["FREQ=MONTHLY;BYMONTH=2", /BYMONTH goes with YEARLY/],
      ["FREQ=YEARLY;BYMONTH=13", /BYMONTH is one month/],
      ["FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=3", /cannot be combined/],
      ["FREQ=WEEKLY;WKST=SU", /WKST/],
      ["FREQ=DAILY;X-NAME=1", /not a rule part/],
      [`FREQ=DAILY${";WKST=MO".repeat(9)}`, /at most 8 parts/],
      ["", /NAME=VALUE/],
    ];
    for (const [input, why] of cases) {
      const parsed = parseRepeat(input);
      assert.ok(!parsed.ok, `${input} should be refused`);
      assert.match(parsed.error, why, input);
    }
  });
});

describe("nextOccurrence", () => {
  it("daily: every interval-th day from the anchor, on the listed weekdays only", () => {
    assert.deepEqual(series("daily", "2026-12-30", "2026-12-30", 3), ["2026-12-31", "2027-01-01", "2027-01-02"]);
    assert.deepEqual(series("FREQ=DAILY;INTERVAL=3", "2026-01-01", "2026-01-05", 2), ["2026-01-07", "2026-01-10"], "counted from the anchor, not from `after`");
    // 2026-01-02 is a Friday: weekdays only skip the weekend.
    assert.deepEqual(series("FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "2026-01-01", "2026-01-01", 3), ["2026-01-02", "2026-01-05", "2026-01-06"]);
    assert.equal(nextOccurrence(rule("FREQ=DAILY;INTERVAL=7;BYDAY=MO"), day("2026-01-01"), day("2026-01-01")), null, "every 7th day from a Thursday is never a Monday");
  });

  it("weekly: the anchor's weekday, or BYDAY, in every interval-th week (Monday to Sunday)", () => {
    assert.deepEqual(series("weekly", "2026-01-06", "2026-01-06", 3), ["2026-01-13", "2026-01-20", "2026-01-27"]);
    // Anchor Monday 2026-01-05: Mondays and Wednesdays of every other week.
    assert.deepEqual(series("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE", "2026-01-05", "2026-01-05", 5), ["2026-01-07", "2026-01-19", "2026-01-21", "2026-02-02", "2026-02-04"]);
    // An anchor on a Tuesday, not a listed day: the series goes on from its week.
    assert.deepEqual(series("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE", "2026-01-06", "2026-01-06", 2), ["2026-01-07", "2026-01-19"]);
    assert.deepEqual(series("FREQ=WEEKLY;INTERVAL=2;BYDAY=SU", "2026-01-05", "2026-01-05", 2), ["2026-01-11", "2026-01-25"], "Sunday ends the week");
  });

  it("monthly: a 31st takes the last day of shorter months, and comes back to the 31st", () => {
    assert.deepEqual(series("monthly", "2031-01-31", "2031-01-31", 4), ["2031-02-28", "2031-03-31", "2031-04-30", "2031-05-31"]);
    assert.deepEqual(series("monthly", "2032-01-31", "2032-01-31", 1), ["2032-02-29"], "a leap year's February");
    assert.deepEqual(series("FREQ=MONTHLY;INTERVAL=2", "2026-01-15", "2026-02-20", 2), ["2026-03-15", "2026-05-15"]);
    assert.deepEqual(series("FREQ=MONTHLY;BYMONTHDAY=-1", "2026-01-10", "2026-01-10", 3), ["2026-01-31", "2026-02-28", "2026-03-31"]);
    assert.deepEqual(series("FREQ=MONTHLY;BYMONTHDAY=5", "2026-01-20", "2026-01-20", 2), ["2026-02-05", "2026-03-05"], "never before the anchor");
    // Last Fridays of 2026: Jan 30, Feb 27, Mar 27; second Tuesdays: Jan 13, Feb 10.
    assert.deepEqual(series("FREQ=MONTHLY;BYDAY=-1FR", "2026-01-01", "2026-01-01", 3), ["2026-01-30", "2026-02-27", "2026-03-27"]);
    assert.deepEqual(series("FREQ=MONTHLY;BYDAY=2TU", "2026-01-13", "2026-01-13", 2), ["2026-02-10", "2026-03-10"]);
  });

  it("yearly: the anchor's month and day, Feb 29 on Feb 28 in other years", () => {
    assert.deepEqual(series("yearly", "2028-02-29", "2028-02-29", 4), ["2029-02-28", "2030-02-28", "2031-02-28", "2032-02-29"]);
    assert.deepEqual(series("FREQ=YEARLY;INTERVAL=2;BYMONTH=7;BYMONTHDAY=4", "2026-01-01", "2026-01-01", 2), ["2026-07-04", "2028-07-04"]);
    assert.equal(nextOccurrence(rule("yearly"), day("9999-06-01"), day("9999-06-01")), null, "nothing after the year 9999");
  });

  it("occurrencesBetween: inside the range, after `after`, at most `limit`", () => {
    const r = rule("daily");
    const days = (xs: number[]) => xs.map(formatDate);
    assert.deepEqual(days(occurrencesBetween(r, day("2026-01-01"), day("2026-01-03"), day("2026-01-02"), day("2026-01-06"), 10)), ["2026-01-04", "2026-01-05", "2026-01-06"]);
    assert.deepEqual(days(occurrencesBetween(r, day("2026-01-01"), day("2026-01-01"), day("2026-01-10"), day("2026-01-12"), 10)), ["2026-01-10", "2026-01-11", "2026-01-12"]);
    assert.equal(occurrencesBetween(r, day("2026-01-01"), day("2026-01-01"), day("2026-01-01"), day("2026-12-31"), 50).length, 50);
    assert.deepEqual(occurrencesBetween(rule("yearly"), day("2026-03-01"), day("2026-03-01"), day("2026-04-01"), day("2027-02-28"), 10), []);
  });
});
