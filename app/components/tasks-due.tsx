/**
 * @module Due dates of the tasks page, as `/api/tasks` speaks them (RFC 3339): a date
 * (`2026-12-01`) or a date-time with its offset (`2026-12-01T09:30:00+01:00`), read in the person's
 * time zone (the account setting the agenda names). `DueFields` is a date and an optional time of
 * day; `dueText` turns them into what the route takes, `DueLabel` shows an answer's `due`.
 */
import { Field } from "./ui.tsx";

/** The `due` the route takes for a date and an optional time (`HH:MM`) in `zone`: null when no date is given. */
export function dueText(date: string, time: string, zone: string | null): string | null {
  if (date === "") return null;
  if (time === "") return date;
  return `${date}T${time.length === 5 ? `${time}:00` : time}${offsetOf(date, time, zone)}`;
}

/** The offset (`+01:00`) of `zone` at the wall time `date time`; the browser's own when the zone is unknown. */
function offsetOf(date: string, time: string, zone: string | null): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const [h, min] = time.split(":").map(Number) as [number, number];
  const wall = Date.UTC(y, m - 1, d, h, min);
  let minutes: number;
  try {
    if (zone === null) throw new Error("no zone");
    // The offset at the instant that wall time names: guessed from the wall time read as UTC, then checked once (a change of offset between the two).
    const first = zoneOffset(wall, zone);
    const second = zoneOffset(wall - first * 60_000, zone);
    minutes = second;
  } catch {
    minutes = -new Date(y, m - 1, d, h, min).getTimezoneOffset();
  }
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** Minutes `zone` is ahead of UTC at the instant `ms`. */
function zoneOffset(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" }).formatToParts(new Date(ms));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const local = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour") % 24, part("minute"));
  return Math.round((local - Math.floor(ms / 60_000) * 60_000) / 60_000);
}

/** An answer's `due` split into its date and its time of day (`HH:MM`, or "" without one). */
export function dueParts(due: string | null): { date: string; time: string } {
  if (due === null) return { date: "", time: "" };
  return { date: due.slice(0, 10), time: due.length > 10 ? due.slice(11, 16) : "" };
}

const DAY = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const LONG_DAY = new Intl.DateTimeFormat(undefined, { weekday: "long", day: "numeric", month: "long", timeZone: "UTC" });
const CLOCK = new Intl.DateTimeFormat(undefined, { hour: "numeric", minute: "2-digit", timeZone: "UTC" });

function utcOf(date: string, time = "00:00"): Date {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const [h, min] = time.split(":").map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1, d, h, min));
}

/** `2026-12-01` as "Tuesday 1 December" (the agenda's day headings). */
export function longDay(date: string): string {
  return LONG_DAY.format(utcOf(date));
}

/** A time of day (`09:30`) in the reader's way of writing it. */
export function clock(time: string): string {
  return CLOCK.format(utcOf("2000-01-01", time));
}

/** A task's `due` as the person reads it (the wall time is the person's zone's, as answered). */
export function DueLabel(props: { due: string | null }) {
  if (props.due === null) return <span class="muted">no due date</span>;
  const { date, time } = dueParts(props.due);
  return (
    <time dateTime={props.due}>
      {DAY.format(utcOf(date))}
      {time === "" ? "" : `, ${clock(time)}`}
    </time>
  );
}

/** `date` plus `days` days (`YYYY-MM-DD`). */
export function addDays(date: string, days: number): string {
  const at = utcOf(date);
  at.setUTCDate(at.getUTCDate() + days);
  return at.toISOString().slice(0, 10);
}

/** A date and a time of day input, side by side (one under the other on a phone). */
export function DueFields(props: { date: string; time: string; zone: string | null; onDate: (value: string) => void; onTime: (value: string) => void; dateLabel?: string; dateHint?: string }) {
  return (
    <div class="tasks-due">
      <Field label={props.dateLabel ?? "Due date"} hint={props.dateHint}>
        {(id, describedBy) => <input id={id} type="date" aria-describedby={describedBy} value={props.date} onInput={(e) => props.onDate(e.currentTarget.value)} />}
      </Field>
      <Field label="Time (optional)" hint={props.zone === null ? undefined : `in ${props.zone}`}>
        {(id, describedBy) => <input id={id} type="time" aria-describedby={describedBy} value={props.time} onInput={(e) => props.onTime(e.currentTarget.value)} />}
      </Field>
    </div>
  );
}
