/**
 * @module The person's time zone (an IANA name, the account setting `timeZone`) and the calendar
 * arithmetic that needs it: which local day an instant falls on, the instant of a local wall time
 * (daylight-saving gaps and overlaps resolved as RFC 5545 and Temporal's `compatible` do: a wall
 * time in a gap moves forward by the gap, one in an overlap takes the earlier instant), and RFC 3339
 * text with the zone's offset. Only `Intl` knows the zones; nothing here reads the clock.
 *
 * Asking `Intl` costs microseconds, and an agenda asks for hundreds of instants: a zone's offset is
 * kept per UTC day, for the days whose first and last seconds have the same offset (every day but
 * those with a transition — no zone has two within a day — which are asked second by second).
 */
import { formatDate } from "../../../contracts/dates.ts";

/** Days since 1970-01-01 (as contracts/dates.ts counts them) and the second of that local day. */
export interface LocalTime {
  readonly day: number;
  readonly second: number;
}

const DAY_MS = 86_400_000;

/** `n` (0–99) in two digits. */
function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** A zone name: letters first (so not an offset such as `+01:00`), then the characters IANA names use. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,3}$/;

/** A zone's formatter and its offsets by UTC day (null: a day with a transition). */
interface ZoneCache {
  readonly format: Intl.DateTimeFormat;
  readonly days: Map<number, number | null>;
}

/** By zone: the settings hold one zone, tests and a zone change a few more. */
const zones = new Map<string, ZoneCache>();
const MAX_ZONES = 64;
const MAX_DAYS = 4096;

function cacheOf(zone: string): ZoneCache {
  let z = zones.get(zone);
  if (z === undefined) {
    const format = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    if (zones.size >= MAX_ZONES) zones.clear();
    zones.set(zone, (z = { format, days: new Map() }));
  }
  return z;
}

/** The zone's canonical name when `name` is an IANA time zone `Intl` knows, else null. */
export function canonicalTimeZone(name: unknown): string | null {
  if (typeof name !== "string" || name.length > 64 || !ZONE_NAME.test(name)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The machine's own zone (`TZ`, else the system's): the setting's default. */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** The local day and second of the day of instant `ms` in `zone`. */
export function localTime(ms: number, zone: string): LocalTime {
  const local = Math.floor(ms / 1000) * 1000 + offsetAt(ms, zone);
  const day = Math.floor(local / DAY_MS);
  return { day, second: (local - day * DAY_MS) / 1000 };
}

/** `localTime` as `Intl` computes it, for whole second `ms`. */
function intlLocalTime(ms: number, format: Intl.DateTimeFormat): LocalTime {
  let year = 0;
  let month = 0;
  let day = 0;
  let second = 0;
  for (const part of format.formatToParts(ms)) {
    const n = Number(part.value);
    switch (part.type) {
      case "year":
        year = n;
        break;
      case "month":
        month = n;
        break;
      case "day":
        day = n;
        break;
      case "hour":
        second += n * 3600;
        break;
      case "minute":
        second += n * 60;
        break;
      case "second":
        second += n;
        break;
      default:
        break;
    }
  }
  return { day: Math.floor(Date.UTC(year, month - 1, day) / DAY_MS), second };
}

/** The zone's offset from UTC at instant `ms`, in ms (whole seconds; what is east of Greenwich is positive). */
export function offsetAt(ms: number, zone: string): number {
  const z = cacheOf(zone);
  const day = Math.floor(ms / DAY_MS);
  let kept = z.days.get(day);
  if (kept === undefined) {
    const first = intlOffset(day * DAY_MS, z.format);
    kept = first === intlOffset(day * DAY_MS + DAY_MS - 1000, z.format) ? first : null;
    if (z.days.size >= MAX_DAYS) z.days.clear();
    z.days.set(day, kept);
  }
  return kept ?? intlOffset(Math.floor(ms / 1000) * 1000, z.format);
}

function intlOffset(whole: number, format: Intl.DateTimeFormat): number {
  const local = intlLocalTime(whole, format);
  return local.day * DAY_MS + local.second * 1000 - whole;
}

/** The instant of wall time `local` in `zone` (see the module comment for gaps and overlaps). */
export function instantOf(local: LocalTime, zone: string): number {
  const wall = local.day * DAY_MS + local.second * 1000;
  // The offsets on either side of a transition near the wall time: a day apart is farther than any zone moves at once.
  const before = offsetAt(wall - DAY_MS, zone);
  const after = offsetAt(wall + DAY_MS, zone);
  const fits = [wall - before, wall - after].filter((t) => t + offsetAt(t, zone) === wall);
  if (fits.length > 0) return Math.min(...fits);
  // In a gap: the wall time read with the offset in force before it, which lands after the gap.
  return wall - Math.min(before, after);
}

/** The local day of instant `ms` in `zone`. */
export function localDay(ms: number, zone: string): number {
  return localTime(ms, zone).day;
}

/** Instant `ms` as RFC 3339 text in `zone`, with its offset there (`2026-12-01T09:30:00+01:00`); milliseconds when it has some. */
export function zonedText(ms: number, zone: string): string {
  const offset = offsetAt(ms, zone);
  // The wall time, spelled from its day and its milliseconds into the day (an agenda spells hundreds).
  const wall = ms + offset;
  const day = Math.floor(wall / DAY_MS);
  const inDay = wall - day * DAY_MS;
  const fraction = ms % 1000 === 0 ? "" : `.${String(inDay % 1000).padStart(3, "0")}`;
  const sign = offset < 0 ? "-" : "+";
  const minutes = Math.abs(offset) / 60_000;
  return `${formatDate(day)}T${two(Math.floor(inDay / 3_600_000))}:${two(Math.floor(inDay / 60_000) % 60)}:${two(Math.floor(inDay / 1000) % 60)}${fraction}${sign}${two(Math.floor(minutes / 60))}:${two(Math.floor(minutes % 60))}`;
}
