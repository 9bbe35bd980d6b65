/**
 * @module Literal rules the checker applies: the signed 64-bit range of `Int` literals, calendar
 * dates written as `"YYYY-MM-DD"` text, and text length in code points.
 */

const MIN_INT = -(2n ** 63n);
const MAX_INT = 2n ** 63n - 1n;

/** Whether the decimal text of an Int literal fits a signed 64-bit integer. */
export function intInRange(value: string): boolean {
  if (!/^-?[0-9]{1,25}$/.test(value)) return false;
  const n = BigInt(value);
  return n >= MIN_INT && n <= MAX_INT;
}

/** Whether `text` is a real calendar date `YYYY-MM-DD` (proleptic Gregorian, years 0001–9999). */
export function isDate(text: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text);
  if (m === null) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The length of `text` in code points, as `Text(len=N)` counts it. */
export function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
