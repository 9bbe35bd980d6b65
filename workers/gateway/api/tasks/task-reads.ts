/**
 * @module Reading the person's tasks: a task by id (a record read), a page of a status list, the
 * rows of the agenda and the count of tasks due (`std.tasks`'s declared queries, each indexed by
 * the engine from its `where` and `sort`). The agenda's three queries run in one snapshot.
 */
import type { Schema } from "../../../../contracts/schema.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { type QueryOutcome, queryRunner } from "../../reads/run-query.ts";
import type { AgendaRow, AgendaRows } from "./agenda.ts";
import { formatDate } from "./calendar.ts";
import { dueDay, isTask, type TaskRow } from "./task-view.ts";

/** The contract and aggregate of tasks. */
export const TASKS = "std.tasks";
export const TASK = "Task";

/** Which tasks a list holds, and the query that pages through them (by id). */
export const STATUS_QUERIES = { open: "Open", done: "Done", all: "All" } as const;
export type StatusFilter = keyof typeof STATUS_QUERIES;

/** The most rows each agenda query reads; beyond them the agenda says it is truncated. */
export const AGENDA_LIMITS = { due: 2000, overdue: 200, repeating: 500 } as const;

/** What a subject may be (the engine's own rule): anything else names no task. */
const SUBJECT = /^[A-Za-z0-9._:-]{1,128}$/;

/** Task `id` in `tenant` (the personal tenant when undefined), or null when there is none. */
export function loadTask(reader: PersonReader, tenant: string | undefined, id: string): TaskRow | null {
  if (!SUBJECT.test(id)) {
    // Still checks that the person may read the tenant, so an unknown tenant is not a plain 404 here and a 403 there.
    reader.read(tenant, (r) => r.contract(TASKS));
    return null;
  }
  const found = reader.record(tenant, TASKS, TASK, id);
  return found !== null && isTask(found.state) ? { ...found.state, id } : null;
}

/** Up to `limit` tasks of a status list after id `after`, and whether more follow. */
export function taskPage(reader: PersonReader, tenant: string | undefined, status: StatusFilter, after: string, limit: number): { rows: TaskRow[]; more: boolean } {
  const rows = reader.query(tenant, TASKS, STATUS_QUERIES[status], { after, limit: limit + 1 }).rows as unknown as TaskRow[];
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

/**
 * The rows of the agenda of days `from`…`to` for a person whose today is `today`, read in one
 * snapshot: due in the range (a day either side: the zone decides a date-time's day), due up to
 * tomorrow's date (the overdue ones), repeating.
 */
export function agendaRows(reader: PersonReader, tenant: string | undefined, from: number, to: number, today: number): AgendaRows {
  return reader.read(tenant, (r) => {
    const { artifact, schema } = r.contract(TASKS);
    const run = (name: string, params: Record<string, unknown>, limit: number) => {
      const rows = rowsOf(schema, name, queryRunner(r.db).run(schema, name, r.tenant, { ...params, limit: limit + 1 }, artifact));
      return { rows: rows.slice(0, limit), more: rows.length > limit };
    };
    const due = run("Due", { from: formatDate(from - 1), to: formatDate(to + 1) }, AGENDA_LIMITS.due);
    const overdue = run("Overdue", { before: formatDate(today + 1) }, AGENDA_LIMITS.overdue);
    const repeating = run("Repeating", { to: formatDate(to + 1) }, AGENDA_LIMITS.repeating);
    return { due: due.rows, overdue: overdue.rows, repeating: repeating.rows, truncated: due.more || overdue.more || repeating.more };
  });
}

/**
 * How many open tasks of the personal tenant are due today or before in `zone` (today is `today`),
 * or null when it has no `std.tasks`: those due two days ago or earlier by their date are counted in
 * the index; those of the days around today are read, since a date-time's day is the zone's.
 */
export function tasksDue(reader: PersonReader, zone: string, today: number): number | null {
  try {
    return reader.read(undefined, (r) => {
      const { artifact, schema } = r.contract(TASKS);
      const runner = queryRunner(r.db);
      const [counted] = rowsOf(schema, "DueCount", runner.run(schema, "DueCount", r.tenant, { before: formatDate(today - 1) }, artifact));
      const around = rowsOf(schema, "Due", runner.run(schema, "Due", r.tenant, { from: formatDate(today - 1), to: formatDate(today + 1), limit: AGENDA_LIMITS.due }, artifact));
      return Number(counted?.tasks ?? 0) + around.filter((row) => dueDay(row, zone) <= today).length;
    });
  } catch (error) {
    // Before set-up, or without the contract, the count is not known.
    if (error instanceof HttpProblem && (error.problem.status === 404 || error.problem.status === 409)) return null;
    throw error;
  }
}

/** The rows of a query's outcome; a query the installed `std.tasks` lacks or refuses is a problem. */
function rowsOf(schema: Schema, name: string, outcome: QueryOutcome): (AgendaRow & Record<string, unknown>)[] {
  if (outcome.ok) return outcome.rows as (AgendaRow & Record<string, unknown>)[];
  if (outcome.code === "not-found") throw new HttpProblem(problem(404, "not-found", `${schema.namespace} ${schema.version} has no query '${name}'`));
  throw new HttpProblem(problem(422, "query-failed", `${schema.namespace} ${name}: ${outcome.message}`));
}
