/** Dates as day numbers: known days, invalid dates, and the round trip over the whole range. */
import { strictEqual } from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { formatDate, parseDate } from "./dates.ts";

describe("dates", () => {
  it("counts days from 1970-01-01", () => {
    strictEqual(parseDate("1970-01-01"), 0);
    strictEqual(parseDate("1969-12-31"), -1);
    strictEqual(parseDate("2000-03-01"), 11017);
    strictEqual(parseDate("2026-11-21"), 20778);
    strictEqual(formatDate(2932896), "9999-12-31");
    strictEqual(formatDate(-719528), "0000-01-01");
  });

  it("rejects what is not a calendar date", () => {
    for (const s of ["2026-02-29", "1900-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "26-01-01", "2026-01-32", " 2026-01-01"]) strictEqual(parseDate(s), null, s);
    strictEqual(parseDate("2000-02-29"), 11016);
  });

  it("round-trips every day of years 0000–9999", () => {
    fc.assert(fc.property(fc.integer({ min: -719528, max: 2932896 }), (d) => parseDate(formatDate(d)) === d));
  });
});
