/**
 * @module The notebook's own forms, rewritten into mathjs before a line is parsed. mathjs has no
 * dates and no "of"; these forms are understood (and nothing else is touched):
 *
 * - a date `2026-12-25`, a date and time `2026-12-25T09:30` (or `…T09:30:15`), and the words
 *   `today`, `tomorrow`, `yesterday` (dates) and `now` (a date and time): each becomes a
 *   placeholder bound to a number of days since 1970-01-01, in the person's wall-clock time;
 *   line-check.ts then allows only date ± duration, date − date (a duration) and comparisons;
 * - `DATE + N months` / `DATE - N years` (N a whole number): calendar arithmetic, done here (the
 *   31st plus a month is the last day of the next month); elsewhere a month is mathjs's average
 *   month;
 * - `days until X`, `days since X` (also `weeks`, `hours`, `minutes`): the number of them from
 *   today (for hours and minutes: from now) to X, or from X;
 * - `N% of X` (`N% * X`); `X as % of Y` (`X / Y`, shown as a percentage);
 * - `N min` (mathjs's `min` is the function): `N minute`.
 *
 * Each step is one linear pass of a regular expression over at most 1,000 characters, and the
 * calendar step runs at most once per placeholder. `$` is the placeholders' own character: a
 * line that holds one is refused.
 */
import { formatDate, parseDate } from "../../../../contracts/dates.ts";
import type { LocalTime } from "../time-zone.ts";

/** A point in wall-clock time: the day (since 1970-01-01) and the second of that day. */
export type Moment = LocalTime;

/** A line in mathjs's terms, or why it cannot be. */
export type Rewritten =
  | { readonly ok: true; readonly expression: string; readonly dates: ReadonlyMap<string, Moment>; readonly asPercent: boolean }
  | { readonly ok: false; readonly error: string };

const DATE_WORDS = "today|tomorrow|yesterday|now";
const DATE_TOKEN = new RegExp(`(?<![\\w.$])(?:(\\d{4}-\\d{2}-\\d{2})(?:T(\\d{2}):(\\d{2})(?::(\\d{2}))?)?(?![\\w.])|(${DATE_WORDS})(?![\\w$]))`, "g");
const CALENDAR = /(?<![\w$])(?<![-*/^%]\s*)(\$d\d+|[A-Za-z_]\w*)\s*([+-])\s*(\d{1,5})\s*(months?|years?)\b(?!\s*[*/^(])/g;
const UNTIL = /^\s*(days|weeks|hours|minutes)\s+(until|since)\s+(\S.*)$/;
const AS_PERCENT = /\bas\s*%\s*of\b/;
const MAX_CALENDAR_STEPS = 100;
const UNIT_OF_UNTIL = { days: "days", weeks: "weeks", hours: "hours", minutes: "minutes" } as const;

/**
 * Rewrites one line (its comment already cut off) with `now` as the wall-clock time of today and
 * now; `dateNames` are the names earlier lines gave dates, for calendar arithmetic on them.
 */
export function rewriteLine(text: string, now: Moment, dateNames: ReadonlyMap<string, Moment> = new Map()): Rewritten {
  if (text.includes("$")) return { ok: false, error: "unexpected character $" };
  let line = text;
  let asPercent = false;
  const percent = AS_PERCENT.exec(line);
  if (percent !== null) {
    const part = line.slice(0, percent.index).trim();
    const whole = line.slice(percent.index + percent[0].length).trim();
    if (part === "" || whole === "") return { ok: false, error: "write it as: X as % of Y" };
    line = `(${part}) / (${whole}) * 100`;
    asPercent = true;
  }
  line = line.replace(/%\s*of\b/g, "% *");
  const until = UNTIL.exec(line);
  if (until !== null) {
    const [, unit, direction, rest] = until as unknown as [string, keyof typeof UNIT_OF_UNTIL, string, string];
    const from = unit === "days" || unit === "weeks" ? "today" : "now";
    const span = direction === "until" ? `(${rest}) - ${from}` : `${from} - (${rest})`;
    line = `(${span}) / (1 ${UNIT_OF_UNTIL[unit]})`;
  }
  line = line.replace(/(\d|\))\s*min\b(?!\s*\()/g, "$1 minute");

  const dates = new Map<string, Moment>();
  let bad: string | null = null;
  line = line.replace(DATE_TOKEN, (_match, date: string | undefined, hh: string | undefined, mm: string | undefined, ss: string | undefined, word: string | undefined) => {
    const moment = date === undefined ? wordMoment(word as string, now) : dateMoment(date, hh, mm, ss);
    if (moment === null) {
      bad ??= `${date}${hh === undefined ? "" : `T${hh}:${mm}${ss === undefined ? "" : `:${ss}`}`} is not a date`;
      return "0";
    }
    return placeholder(dates, moment);
  });
  if (bad !== null) return { ok: false, error: bad };

  // Calendar months and years, left to right; each step shortens the line by one "± N months".
  for (let step = 0; step < MAX_CALENDAR_STEPS; step++) {
    const found = firstCalendar(line, dates, dateNames);
    if (found === null) break;
    const { m, start } = found;
    const [whole, , sign, count, unit] = m as unknown as [string, string, string, string, string];
    const months = Number(count) * (unit.startsWith("year") ? 12 : 1) * (sign === "-" ? -1 : 1);
    const day = addMonths(start.day, months);
    if (day === null) return { ok: false, error: "the date is outside the years 0000–9999" };
    line = line.slice(0, m.index) + placeholder(dates, { day, second: start.second }) + line.slice(m.index + whole.length);
  }
  return { ok: true, expression: line, dates, asPercent };
}

/** The first `DATE ± N months` in `line` whose DATE is a date (a placeholder or a date's name), with that date. */
function firstCalendar(line: string, dates: ReadonlyMap<string, Moment>, dateNames: ReadonlyMap<string, Moment>): { m: RegExpExecArray; start: Moment } | null {
  for (const m of line.matchAll(CALENDAR)) {
    const start = dates.get(m[1] as string) ?? dateNames.get(m[1] as string);
    if (start !== undefined) return { m, start };
  }
  return null;
}

/** A new placeholder for `moment`. */
function placeholder(dates: Map<string, Moment>, moment: Moment): string {
  const name = `$d${dates.size}`;
  dates.set(name, moment);
  return name;
}

function wordMoment(word: string, now: Moment): Moment {
  switch (word) {
    case "now":
      return now;
    case "tomorrow":
      return { day: now.day + 1, second: 0 };
    case "yesterday":
      return { day: now.day - 1, second: 0 };
    default:
      return { day: now.day, second: 0 };
  }
}

function dateMoment(date: string, hh: string | undefined, mm: string | undefined, ss: string | undefined): Moment | null {
  const day = parseDate(date);
  if (day === null) return null;
  if (hh === undefined) return { day, second: 0 };
  const [h, m, s] = [Number(hh), Number(mm), Number(ss ?? "0")];
  if (h > 23 || m > 59 || s > 59) return null;
  return { day, second: h * 3600 + m * 60 + s };
}

/** `day` plus `months` calendar months (the day of the month kept, or the month's last); null outside 0000–9999. */
export function addMonths(day: number, months: number): number | null {
  const [y, m, d] = formatDate(day).split("-").map(Number) as [number, number, number];
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  if (year < 0 || year > 9999) return null;
  const month = String((index % 12) + 1).padStart(2, "0");
  for (let dd = d; dd >= 28; dd--) {
    const found = parseDate(`${String(year).padStart(4, "0")}-${month}-${String(dd).padStart(2, "0")}`);
    if (found !== null) return found;
  }
  return parseDate(`${String(year).padStart(4, "0")}-${month}-${String(d).padStart(2, "0")}`);
}
