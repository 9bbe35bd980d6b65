/**
 * @module A task as `/api` answers it, from the public state `std.tasks` keeps (a query's row, a
 * record read or a receipt's state): camelCase names, `status` `open`/`done`, `due` in the
 * person's time zone, times as RFC 3339.
 */
import { parseDate } from "./calendar.ts";
import { localDay, localTime, zonedText } from "../time-zone.ts";

/** The public state of a `std.tasks` Task, as rows and receipts carry it. */
export interface TaskState {
  readonly title: string;
  readonly notes: string;
  readonly status: "Open" | "Done";
  readonly has_due: boolean;
  readonly due_on: string;
  readonly due_at: number;
  readonly repeats: boolean;
  readonly repeat_rule: string;
  readonly repeat_from: string;
  readonly priority: number;
  readonly tags: readonly string[];
  readonly links: readonly string[];
  readonly created_by: string | null;
  readonly created_at: number;
  readonly completions: number;
  readonly last_completed_on: string;
  readonly completed_at: number;
}

/** A row of the status lists (`Open`, `Done`, `All`), or a task read by id. */
export type TaskRow = TaskState & { readonly id: string };

/** A task in an answer. */
export interface TaskView {
  readonly id: string;
  readonly title: string;
  readonly notes: string;
  readonly status: "open" | "done";
  /** `2026-12-01`, or `2026-12-01T09:30:00+01:00` (in the person's zone) when a time was given; null: none. */
  readonly due: string | null;
  /** The canonical RRULE (`FREQ=WEEKLY;INTERVAL=1`), or null. */
  readonly repeat: string | null;
  readonly priority: number;
  readonly tags: readonly string[];
  readonly links: readonly string[];
  readonly completions: number;
  readonly lastCompletedOn: string | null;
  readonly completedAt: string | null;
  readonly createdBy: string | null;
  readonly createdAt: string | null;
}

/** Whether `state` is a task that was created (a subject never written reads as the defaults). */
export function isTask(state: Record<string, unknown> | null | undefined): state is Record<string, unknown> & TaskState {
  return state !== null && state !== undefined && typeof state.created_at === "number" && state.created_at > 0;
}

/** What a task's due date is read from. */
type DueFields = Pick<TaskState, "has_due" | "due_on" | "due_at">;

/** The day (days since 1970-01-01) a task is due on in `zone`: a date-time's local day, else its date. */
export function dueDay(task: Pick<DueFields, "due_on" | "due_at">, zone: string): number {
  return task.due_at > 0 ? localDay(task.due_at, zone) : (parseDate(task.due_on) as number);
}

/** The second of the local day a timed task is due at in `zone`; null for a task without a time. */
export function dueSecond(task: Pick<DueFields, "due_at">, zone: string): number | null {
  return task.due_at > 0 ? localTime(task.due_at, zone).second : null;
}

/** A task's `due` as answered: its date, or its date-time in `zone`; null when it has none. */
export function dueText(task: DueFields, zone: string): string | null {
  return !task.has_due ? null : task.due_at > 0 ? zonedText(task.due_at, zone) : task.due_on;
}

/** The answer's view of task `id`. */
export function taskView(id: string, task: TaskState, zone: string): TaskView {
  return {
    id,
    title: task.title,
    notes: task.notes,
    status: task.status === "Done" ? "done" : "open",
    due: dueText(task, zone),
    repeat: task.repeats ? task.repeat_rule : null,
    priority: task.priority,
    tags: task.tags,
    links: task.links,
    completions: task.completions,
    lastCompletedOn: task.completions > 0 ? task.last_completed_on : null,
    completedAt: task.completed_at > 0 ? new Date(task.completed_at).toISOString() : null,
    createdBy: task.created_by,
    createdAt: task.created_at > 0 ? new Date(task.created_at).toISOString() : null,
  };
}
