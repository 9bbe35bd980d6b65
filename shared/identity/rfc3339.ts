/**
 * @module RFC 3339 timestamps (`2026-11-21T10:00:00Z`, `…T10:00:00.012+01:00`) parsed strictly:
 * `Date.parse` accepts many other shapes and normalises impossible dates, which a signed
 * `issuedAt` must not get away with.
 */

const PATTERN = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Epoch milliseconds of an RFC 3339 date-time, or `null` if `text` is not one. */
export function parseRfc3339(text: string): number | null {
  const m = PATTERN.exec(text);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  // Second 60 is a leap second (RFC 3339 §5.6); it is counted as the next minute's first.
  if (hour > 23 || minute > 59 || second > 60) return null;
  let offset = 0;
  if (m[8] === undefined) {
    const offsetHours = Number(m[10]);
    const offsetMinutes = Number(m[11]);
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    offset = (m[9] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  }
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  const leap = second === 60 ? 1000 : 0;
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), fraction) + leap - offset;
  // Date.UTC maps years 0–99 to 1900–1999, so the year is set afterwards, before any leap-second carry.
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, Math.min(second, 59), fraction));
  date.setUTCFullYear(year);
  return date.getTime() + leap - offset;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS[month - 1] as number);
}
