/**
 * @module The person's open tasks due today or earlier, as the assistant's own work sees them (an
 * autonomy run's brief, the suggestions of what to say next): `std.tasks`'s `Overdue` query up to
 * the day after tomorrow, kept where the person's time zone puts the due day on or before today.
 * Read in the personal tenant; none before set-up or without `std.tasks`.
 */
import { HttpProblem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { formatDate } from "../tasks/calendar.ts";
import { TASKS } from "../tasks/task-reads.ts";
import { dueDay, dueText } from "../tasks/task-view.ts";
import { localDay } from "../time-zone.ts";

/** One task due, as short as the assistant needs it. */
export interface DueTask {
  readonly id: string;
  readonly title: string;
  /** Its date, or date-time in the person's zone. */
  readonly due: string;
}

/** The most rows read: overdue ones first (by due date), then those of today. */
const READ_LIMIT = 200;

/** Up to `limit` open tasks due on or before today in `zone` (at `now`), the longest overdue first. */
export function dueTasks(reader: PersonReader, zone: string, now: number, limit: number): DueTask[] {
  const today = localDay(now, zone);
  let rows: Record<string, unknown>[];
  try {
    // A date-time's day is the zone's: read a day past tomorrow's date, keep what falls on or before today.
    rows = reader.query(undefined, TASKS, "Overdue", { before: formatDate(today + 2), limit: READ_LIMIT }).rows;
  } catch (error) {
    if (error instanceof HttpProblem && (error.problem.status === 404 || error.problem.status === 409)) return [];
    throw error;
  }
  const due: DueTask[] = [];
  for (const row of rows) {
    const fields = { has_due: row.has_due === true, due_on: String(row.due_on), due_at: Number(row.due_at ?? 0) };
    if (dueDay(fields, zone) > today) continue;
    due.push({ id: String(row.id), title: String(row.title ?? ""), due: dueText(fields, zone) ?? fields.due_on });
    if (due.length >= limit) break;
  }
  return due;
}
