/**
 * @module Repeat rules of tasks: a subset of RFC 5545's RRULE, parsed, written back in one canonical
 * spelling (what `std.tasks` stores as `repeat_rule`), and the occurrences a rule gives.
 *
 * A `repeat` is a keyword (`daily`, `weekly`, `monthly`, `yearly`: every one) or an RRULE
 * (`FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE`, an `RRULE:` prefix allowed, parts in any order):
 *
 * | part | with | values |
 * |---|---|---|
 * | `FREQ` | required | `DAILY`, `WEEKLY`, `MONTHLY`, `YEARLY` |
 * | `INTERVAL` | any | 1–999 (default 1) |
 * | `BYDAY` | `DAILY`, `WEEKLY` | weekdays `MO`…`SU`, comma-separated |
 * | `BYDAY` | `MONTHLY` | one weekday of the month: `1MO`…`4MO`, or `-1MO` (the last) |
 * | `BYMONTHDAY` | `MONTHLY`, `YEARLY` | one day, 1–31, or -1 (the last day) |
 * | `BYMONTH` | `YEARLY` | one month, 1–12 |
 * | `WKST` | any | `MO` only |
 *
 * Anything else (`COUNT`, `UNTIL`, `BYSETPOS`, several month days, …) is refused.
 *
 * A series counts from its anchor (the task's `repeat_from`, its first due date): every INTERVAL-th
 * day, week (Monday to Sunday) or month or year from the anchor's. A weekly rule without BYDAY
 * falls on the anchor's weekday; a monthly one without BYDAY or BYMONTHDAY on the anchor's day of
 * the month; a yearly one on the anchor's month and day. A month without that day takes its last
 * day instead (the 31st monthly gives Feb 28 or 29, then Mar 31; Feb 29 yearly gives Feb 28 in
 * other years) — where RFC 5545 would skip the month. Occurrences are never before the anchor.
 */
import { fail, ok, type Result } from "../../../../shared/result.ts";
import { civilOf, daysInMonth, dayOf, monthOf, parseDate, WEEKDAYS, type WeekdayCode, weekdayOf, weekOf, yearMonthOf } from "./calendar.ts";

export type Frequency = "daily" | "weekly" | "monthly" | "yearly";

/** A parsed rule. Weekdays are indexes into WEEKDAYS (0 Monday). */
export interface RepeatRule {
  readonly freq: Frequency;
  readonly interval: number;
  /** Daily, weekly: the weekdays it falls on (empty: any for daily, the anchor's for weekly). */
  readonly byDay: readonly number[];
  /** Monthly: the ordinal-th weekday of the month (ordinal 1–4, or -1 for the last). */
  readonly nthDay: { readonly ordinal: number; readonly weekday: number } | null;
  /** Monthly, yearly: the day of the month, 1–31 or -1 (the last). */
  readonly byMonthDay: number | null;
  /** Yearly: the month, 1–12. */
  readonly byMonth: number | null;
}

/** The contract's `Repeat` value of each frequency. */
export const CONTRACT_REPEAT = { daily: "Daily", weekly: "Weekly", monthly: "Monthly", yearly: "Yearly" } as const satisfies Record<Frequency, string>;

/** The last day a rule may reach (the contract's `Date` ends with year 9999). */
const LAST_DAY = parseDate("9999-12-31") as number;

const KEYWORDS: Readonly<Record<string, Frequency>> = { daily: "daily", weekly: "weekly", monthly: "monthly", yearly: "yearly" };
const FREQS: Readonly<Record<string, Frequency>> = { DAILY: "daily", WEEKLY: "weekly", MONTHLY: "monthly", YEARLY: "yearly" };
const UNSUPPORTED = new Set(["COUNT", "UNTIL", "BYSETPOS", "BYYEARDAY", "BYWEEKNO", "BYHOUR", "BYMINUTE", "BYSECOND", "RSCALE", "SKIP"]);
const MAX_PARTS = 8;

/** A `repeat` value (keyword or RRULE text) as a rule, or what is wrong with it (for a `400`). */
export function parseRepeat(input: string): Result<RepeatRule, string> {
  const keyword = KEYWORDS[input.trim().toLowerCase()];
  if (keyword !== undefined) return ok({ freq: keyword, interval: 1, byDay: [], nthDay: null, byMonthDay: null, byMonth: null });
  const text = input.trim().replace(/^RRULE:/i, "");
  const parts = text.split(";");
  if (parts.length > MAX_PARTS) return fail(`a rule has at most ${MAX_PARTS} parts`);
  const seen = new Map<string, string>();
  for (const part of parts) {
    const eq = part.indexOf("=");
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toUpperCase();
    if (eq < 0 || name === "") return fail(`"${part.slice(0, 40)}" is not NAME=VALUE`);
    if (seen.has(name)) return fail(`${name.slice(0, 20)} is given twice`);
    if (UNSUPPORTED.has(name)) return fail(`${name} is not supported`);
    if (!["FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "BYMONTH", "WKST"].includes(name)) return fail(`${name.slice(0, 20)} is not a rule part this node knows`);
    seen.set(name, part.slice(eq + 1).trim().toUpperCase());
  }
  const freq = FREQS[seen.get("FREQ") ?? ""];
  if (freq === undefined) return fail("FREQ is required: DAILY, WEEKLY, MONTHLY or YEARLY");
  const rawInterval = seen.get("INTERVAL") ?? "1";
  if (!/^[1-9]\d{0,2}$/.test(rawInterval)) return fail("INTERVAL is a whole number from 1 to 999");
  const wkst = seen.get("WKST");
  if (wkst !== undefined && wkst !== "MO") return fail("WKST=MO is the only week start supported");
  const rule = { freq, interval: Number(rawInterval), byDay: [] as number[], nthDay: null as RepeatRule["nthDay"], byMonthDay: null as number | null, byMonth: null as number | null };

  const byDay = seen.get("BYDAY");
  if (byDay !== undefined) {
    if (freq === "daily" || freq === "weekly") {
      const days = byDay.split(",").map((d) => WEEKDAYS.indexOf(d.trim() as WeekdayCode));
      if (days.length > 7 || days.some((d) => d < 0)) return fail(`BYDAY with ${freq.toUpperCase()} lists weekdays: MO, TU, WE, TH, FR, SA, SU`);
      rule.byDay = [...new Set(days)].sort((a, b) => a - b);
    } else if (freq === "monthly") {
      const m = /^(-1|[1-4])(MO|TU|WE|TH|FR|SA|SU)$/.exec(byDay.trim());
      if (m === null) return fail("BYDAY with MONTHLY is one weekday of the month: 1MO to 4MO, or -1MO for the last");
      rule.nthDay = { ordinal: Number(m[1]), weekday: WEEKDAYS.indexOf(m[2] as WeekdayCode) };
    } else return fail("BYDAY is not supported with YEARLY");
  }
  const byMonthDay = seen.get("BYMONTHDAY");
  if (byMonthDay !== undefined) {
    if (freq !== "monthly" && freq !== "yearly") return fail("BYMONTHDAY goes with MONTHLY or YEARLY");
    if (!/^(?:-1|[1-9]|[12]\d|3[01])$/.test(byMonthDay)) return fail("BYMONTHDAY is one day of the month, 1 to 31, or -1 for the last");
    if (rule.nthDay !== null) return fail("BYDAY and BYMONTHDAY cannot be combined");
    rule.byMonthDay = Number(byMonthDay);
  }
  const byMonth = seen.get("BYMONTH");
  if (byMonth !== undefined) {
    if (freq !== "yearly") return fail("BYMONTH goes with YEARLY");
    if (!/^(?:[1-9]|1[0-2])$/.test(byMonth)) return fail("BYMONTH is one month, 1 to 12");
    rule.byMonth = Number(byMonth);
  }
  return ok(rule);
}

/** The rule in its canonical spelling: FREQ, INTERVAL, BYMONTH, BYMONTHDAY, BYDAY, in that order. */
export function ruleText(rule: RepeatRule): string {
  const parts = [`FREQ=${rule.freq.toUpperCase()}`, `INTERVAL=${rule.interval}`];
  if (rule.byMonth !== null) parts.push(`BYMONTH=${rule.byMonth}`);
  if (rule.byMonthDay !== null) parts.push(`BYMONTHDAY=${rule.byMonthDay}`);
  if (rule.byDay.length > 0) parts.push(`BYDAY=${rule.byDay.map((d) => WEEKDAYS[d]).join(",")}`);
  if (rule.nthDay !== null) parts.push(`BYDAY=${rule.nthDay.ordinal}${WEEKDAYS[rule.nthDay.weekday]}`);
  return parts.join(";");
}

/**
 * The first occurrence of `rule`, counted from day `anchor`, strictly after day `after` (and not
 * before the anchor); null when there is none (a daily rule whose interval never meets its
 * weekdays, or past the year 9999).
 */
export function nextOccurrence(rule: RepeatRule, anchor: number, after: number): number | null {
  const start = Math.max(after + 1, anchor);
  const next = firstFrom(rule, anchor, start);
  return next === null || next > LAST_DAY ? null : next;
}

/** The occurrences of `rule` from `anchor` strictly after `after` that fall in `from`…`to` (days, inclusive), at most `limit`. */
export function occurrencesBetween(rule: RepeatRule, anchor: number, after: number, from: number, to: number, limit: number): number[] {
  const out: number[] = [];
  let day = nextOccurrence(rule, anchor, Math.max(after, from - 1));
  while (day !== null && day <= to && out.length < limit) {
    out.push(day);
    day = nextOccurrence(rule, anchor, day);
  }
  return out;
}

/** The first occurrence on or after `start` (≥ anchor). Each case looks at no more than two periods, or seven steps. */
function firstFrom(rule: RepeatRule, anchor: number, start: number): number | null {
  const i = rule.interval;
  const aligned = (count: number, anchorCount: number) => anchorCount + Math.ceil((count - anchorCount) / i) * i;
  switch (rule.freq) {
    case "daily": {
      let day = aligned(start, anchor);
      if (rule.byDay.length === 0) return day;
      // Stepping by the interval, the weekdays repeat within seven steps.
      for (let k = 0; k < 7; k++, day += i) if (rule.byDay.includes(weekdayOf(day))) return day;
      return null;
    }
    case "weekly": {
      const days = rule.byDay.length > 0 ? rule.byDay : [weekdayOf(anchor)];
      for (let week = aligned(weekOf(start), weekOf(anchor)), k = 0; k < 2; k++, week += i) {
        const monday = week * 7 - 3;
        const found = days.map((d) => monday + d).find((day) => day >= start);
        if (found !== undefined) return found;
      }
      return null;
    }
    case "monthly": {
      const day = civilOf(anchor).day;
      for (let month = aligned(monthOf(start), monthOf(anchor)), k = 0; k < 2; k++, month += i) {
        const { year, month: m } = yearMonthOf(month);
        const found = rule.nthDay === null ? dayOfMonth(year, m, rule.byMonthDay ?? day) : nthWeekday(year, m, rule.nthDay.ordinal, rule.nthDay.weekday);
        if (found >= start) return found;
      }
      return null;
    }
    case "yearly": {
      const a = civilOf(anchor);
      for (let year = aligned(civilOf(start).year, a.year), k = 0; k < 2; k++, year += i) {
        const found = dayOfMonth(year, rule.byMonth ?? a.month, rule.byMonthDay ?? a.day);
        if (found >= start) return found;
      }
      return null;
    }
  }
}

/** Day `wanted` (1–31, or -1 for the last) of a month; a month too short for it gives its last day. */
function dayOfMonth(year: number, month: number, wanted: number): number {
  const length = daysInMonth(year, month);
  return dayOf(year, month, wanted === -1 ? length : Math.min(wanted, length));
}

/** The `ordinal`-th (1–4, or -1 for the last) `weekday` of a month. */
function nthWeekday(year: number, month: number, ordinal: number, weekday: number): number {
  if (ordinal > 0) {
    const first = dayOf(year, month, 1);
    return first + ((weekday - weekdayOf(first) + 7) % 7) + (ordinal - 1) * 7;
  }
  const last = dayOf(year, month, daysInMonth(year, month));
  return last - ((weekdayOf(last) - weekday + 7) % 7);
}
