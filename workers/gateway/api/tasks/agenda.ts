/**
 * @module The agenda, from the rows of `std.tasks`'s declared queries: the days of a range, each
 * with the open tasks due that day in the person's time zone and the coming occurrences of
 * repeating tasks, and the overdue open tasks. A pure function: the route reads the rows (in one
 * snapshot) and the clock.
 *
 * * A task is on the local day it is due: a date-time's day in the zone, else its date.
 * * `overdue`: the open tasks due before today that are not on a day of the range (each task is
 *   listed once).
 * * An open repeating task also shows its next occurrences in the range, marked `occurrence: true`,
 *   with the due date (and the same wall time) each would have: those after both its due date and
 *   today — the due dates completing it would move it to (completing moves a repeating task to its
 *   first occurrence after the later of the two).
 * * Within a day: tasks without a time first, then by time; then by priority (highest first), then id.
 * * An entry is `{id, title, due, repeat, priority, tags, occurrence}`: what an agenda shows (the
 *   whole task is `GET /api/tasks/{id}`).
 */
import { instantOf, zonedText } from "../time-zone.ts";
import { formatDate, parseDate } from "./calendar.ts";
import { occurrencesBetween, parseRepeat } from "./repeat-rule.ts";
import { dueDay, dueSecond, dueText, type TaskState } from "./task-view.ts";

/** A row of the agenda's queries (`Due`, `Overdue`, `Repeating`): the columns an agenda shows and orders by. */
export type AgendaRow = Pick<TaskState, "title" | "has_due" | "due_on" | "due_at" | "repeats" | "repeat_rule" | "repeat_from" | "priority" | "tags"> & { readonly id: string };

/** An agenda entry: an open task, or a coming occurrence of a repeating one. */
export interface AgendaItem {
  readonly id: string;
  readonly title: string;
  /** As a task's `due`: a date, or a date-time in the person's zone. */
  readonly due: string | null;
  readonly repeat: string | null;
  readonly priority: number;
  readonly tags: readonly string[];
  readonly occurrence: boolean;
}

/** The rows the agenda is made from. */
export interface AgendaRows {
  /** Open tasks with a due date in the range, and a day either side (a zone moves a date-time's day by at most one). */
  readonly due: readonly AgendaRow[];
  /** Open tasks due up to tomorrow's date, oldest first (the overdue ones are among them). */
  readonly overdue: readonly AgendaRow[];
  /** Open repeating tasks due up to the day after the range. */
  readonly repeating: readonly AgendaRow[];
  /** Whether a query had more rows than it was asked for. */
  readonly truncated: boolean;
}

/** The range and the day it is for the person (days since 1970-01-01). */
export interface AgendaRange {
  readonly from: number;
  readonly to: number;
  readonly today: number;
}

export interface Agenda {
  readonly timeZone: string;
  readonly from: string;
  readonly to: string;
  readonly today: string;
  readonly days: { readonly date: string; readonly items: AgendaItem[] }[];
  readonly overdue: AgendaItem[];
  /** Whether entries were left out: more than `maxItems` (or a query's limit) in the range. */
  readonly truncated: boolean;
}

interface Placed {
  readonly item: AgendaItem;
  /** Second of the day, -1 without a time: the order within a day. */
  readonly second: number;
}

/** Builds the agenda of `range` in `zone` from `rows`, with at most `maxItems` entries over all days. */
export function buildAgenda(rows: AgendaRows, range: AgendaRange, zone: string, maxItems: number): Agenda {
  const { from, to, today } = range;
  const days: Placed[][] = Array.from({ length: to - from + 1 }, () => []);
  const overdue: { item: AgendaItem; day: number }[] = [];
  const seen = new Set<string>();
  let count = 0;
  let truncated = rows.truncated;
  const place = (day: number, placed: Placed) => {
    if (count >= maxItems) {
      truncated = true;
      return false;
    }
    count++;
    days[day - from]?.push(placed);
    return true;
  };

  // A date's day number, parsed once per date (the rows share a few hundred dates).
  const dates = new Map<string, number>();
  const dayOf = (row: AgendaRow): number => {
    if (row.due_at > 0) return dueDay(row, zone);
    let day = dates.get(row.due_on);
    if (day === undefined) dates.set(row.due_on, (day = dueDay(row, zone)));
    return day;
  };
  for (const row of rows.due.concat(rows.overdue, rows.repeating)) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    const day = dayOf(row);
    const item = itemOf(row, dueText(row, zone), false);
    if (day >= from && day <= to) place(day, { item, second: dueSecond(row, zone) ?? -1 });
    else if (day < today) overdue.push({ item, day });
  }

  for (const row of rows.repeating) {
    const rule = parseRepeat(row.repeat_rule);
    const anchor = parseDate(row.repeat_from);
    if (!rule.ok || anchor === null) continue;
    const second = dueSecond(row, zone);
    for (const day of occurrencesBetween(rule.value, anchor, Math.max(dayOf(row), today), from, to, maxItems - count + 1)) {
      const due = second === null ? formatDate(day) : zonedText(instantOf({ day, second }, zone), zone);
      if (!place(day, { item: itemOf(row, due, true), second: second ?? -1 })) break;
    }
  }

  const byDay = (a: Placed, b: Placed) => a.second - b.second || b.item.priority - a.item.priority || (a.item.id < b.item.id ? -1 : a.item.id > b.item.id ? 1 : 0);
  return {
    timeZone: zone,
    from: formatDate(from),
    to: formatDate(to),
    today: formatDate(today),
    days: days.map((placed, i) => ({ date: formatDate(from + i), items: placed.sort(byDay).map((p) => p.item) })),
    overdue: overdue.sort((a, b) => a.day - b.day || (a.item.id < b.item.id ? -1 : 1)).map((o) => o.item),
    truncated,
  };
}

function itemOf(row: AgendaRow, due: string | null, occurrence: boolean): AgendaItem {
  return { id: row.id, title: row.title, due, repeat: row.repeats ? row.repeat_rule : null, priority: row.priority, tags: row.tags, occurrence };
}
