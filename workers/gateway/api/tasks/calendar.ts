/**
 * @module Calendar days as numbers (days since 1970-01-01, as contracts/dates.ts counts them) and
 * what repeat rules ask of them: year, month and day; weekdays (Monday first, as ISO 8601 and
 * RFC 5545's default week start); weeks and months counted from the epoch, so an interval is a
 * difference of two counts.
 */
import { formatDate, parseDate } from "../../../../contracts/dates.ts";

export { formatDate, parseDate };

/** Weekdays as RFC 5545 spells them, Monday first: a weekday is its index here. */
export const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;
export type WeekdayCode = (typeof WEEKDAYS)[number];

/** A day's year, month (1–12) and day of the month. */
export interface Civil {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const DAY_MS = 86_400_000;

/** The day number of a calendar date (the day of the month may be any value `Date.UTC` takes). */
export function dayOf(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // setUTCFullYear, unlike Date.UTC, keeps years 0–99 as they are
  return Math.floor(d.getTime() / DAY_MS);
}

/** The calendar date of a day number. */
export function civilOf(day: number): Civil {
  const d = new Date(day * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** How many days month `month` of `year` has. */
export function daysInMonth(year: number, month: number): number {
  return dayOf(year, month + 1, 1) - dayOf(year, month, 1);
}

/** The weekday of a day: 0 Monday … 6 Sunday (1970-01-01 was a Thursday). */
export function weekdayOf(day: number): number {
  return (((day + 3) % 7) + 7) % 7;
}

/** Weeks since the week (Monday to Sunday) of 1970-01-01. */
export function weekOf(day: number): number {
  return Math.floor((day + 3) / 7);
}

/** Months since January 1970 of a day. */
export function monthOf(day: number): number {
  const c = civilOf(day);
  return (c.year - 1970) * 12 + c.month - 1;
}

/** The year and month (1–12) of a month count. */
export function yearMonthOf(months: number): { year: number; month: number } {
  return { year: 1970 + Math.floor(months / 12), month: (((months % 12) + 12) % 12) + 1 };
}
