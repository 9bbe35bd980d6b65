/**
 * @module The person's tasks and agenda (`std.tasks`), thin adapters: a request becomes a command
 * signed as the person or a declared query, the answer becomes JSON. Every route takes
 * `?tenant=HANDLE` (default: the personal tenant); a tenant the person is not an owner or member of
 * is `403`. Times of day are read in the person's time zone (the account setting `timeZone`).
 *
 * - `GET /api/tasks?status=open|done|all&after=&limit=` → `{items: [task], next}` (default `open`; in id order, which is creation order)
 * - `POST /api/tasks {title, notes?, due?, repeat?, priority?, tags?, links?}` → `201 {…task, receipt, jws}`
 * - `GET /api/tasks/{id}` → the task; `PATCH /api/tasks/{id} {title?, notes?, priority?, tags?, links?}` → `200 {…task, receipt, jws}`
 * - `POST /api/tasks/{id}/complete {stop?}` · `/reopen` · `/reschedule {due}` → `200 {…task, receipt, jws}`.
 *   Completing an open repeating task completes this occurrence: the task stays open, due at the
 *   rule's first occurrence after the later of its due date and today (`stop: true` completes it for good).
 * - `GET /api/agenda?from=DATE&to=DATE` (default: the 7 days from today; at most 366) → `{timeZone, from, to, today, days: [{date, items}], overdue, truncated}`,
 *   an entry `{id, title, due, repeat, priority, tags, occurrence}` (tasks/agenda.ts)
 *
 * A task: `{id, title, notes, status, due, repeat, priority, tags, links, completions,
 * lastCompletedOn, completedAt, createdBy, createdAt}` (task-view.ts); bodies: tasks/task-input.ts.
 * The contract refusing a change is `422 refused` with `reason` and the receipt; an unknown id `404`.
 */
import type { Context, Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { pageRequest } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { jsonBody } from "../request-body.ts";
import { instantOf, localDay, machineTimeZone } from "../time-zone.ts";
import { type AgendaRange, buildAgenda } from "../tasks/agenda.ts";
import { formatDate, parseDate } from "../tasks/calendar.ts";
import { nextOccurrence, parseRepeat } from "../tasks/repeat-rule.ts";
import { agendaRows, loadTask, STATUS_QUERIES, type StatusFilter, TASKS, taskPage } from "../tasks/task-reads.ts";
import { BodyCheck, createArgs, dueArgs, updateArgs } from "../tasks/task-input.ts";
import { dueDay, dueSecond, type TaskRow, type TaskState, taskView } from "../tasks/task-view.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { type Signed, signedWrite } from "../personal/signed-write.ts";

/** What the task routes need. */
export interface TaskRouteDeps {
  readonly writer: PersonWriter;
  readonly reader: PersonReader;
  readonly now: () => number;
  readonly account: Pick<AccountCeremonies, "settings">;
}

/** The longest agenda, in days. */
export const MAX_AGENDA_DAYS = 366;
/** The most entries an agenda answers over all its days. */
const MAX_AGENDA_ITEMS = 5000;
/** The agenda's length when `to` is not given. */
const DEFAULT_AGENDA_DAYS = 7;

/** Mounts the task and agenda routes. */
export function mountTaskRoutes(api: Hono<ApiEnv>, deps: TaskRouteDeps): void {
  const { reader, writer } = deps;
  const zone = () => deps.account.settings()?.timeZone ?? machineTimeZone();
  const today = (z: string) => localDay(deps.now(), z);

  api.get("/api/tasks", (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const status = c.req.query("status") ?? "open";
    if (!Object.hasOwn(STATUS_QUERIES, status)) throw badParameter("status", "status is open, done or all");
    const request = pageRequest(c);
    const { rows, more } = taskPage(reader, tenant, status as StatusFilter, request.after ?? "", request.limit);
    const z = zone();
    const last = rows.at(-1);
    return c.json({ items: rows.map((row) => taskView(row.id, row, z)), next: more && last !== undefined ? Buffer.from(last.id, "utf8").toString("base64url") : null });
  });

  api.post("/api/tasks", async (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const body = await jsonBody(c, ["title", "notes", "due", "repeat", "priority", "tags", "links"]);
    // Whether the person may write in a tenant named, before anything is checked or signed (the
    // personal tenant is theirs; without std.tasks the engine's 404 answers).
    if (tenant !== undefined) reader.read(tenant, (r) => r.contract(TASKS));
    const z = zone();
    const args = createArgs(body, z, today(z));
    const id = timeOrderedId("task", deps.now());
    const signed = await signedWrite(writer, { ...tenantPart(tenant), namespace: TASKS, action: "Create", subject: id, args });
    return c.json(answer(id, signed, z), 201);
  });

  api.get("/api/tasks/:id", (c) => {
    sessionOf(c);
    const id = c.req.param("id");
    return c.json(taskView(id, found(reader, tenantOf(c), id), zone()));
  });

  api.patch("/api/tasks/:id", async (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const id = c.req.param("id");
    const body = await jsonBody(c, ["title", "notes", "priority", "tags", "links"]);
    const args = updateArgs(body, found(reader, tenant, id) as unknown as Record<string, unknown>);
    return c.json(answer(id, await signedWrite(writer, { ...tenantPart(tenant), namespace: TASKS, action: "Update", subject: id, args }), zone()));
  });

  api.post("/api/tasks/:id/complete", async (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const id = c.req.param("id");
    const body = await jsonBody(c, ["stop"]);
    const check = new BodyCheck();
    const stop = check.boolean(body.stop, "stop") ?? false;
    check.done();
    const task = found(reader, tenant, id);
    const z = zone();
    const day = today(z);
    const next = stop || !task.repeats || task.status !== "Open" ? null : nextDue(task, z, day);
    const write =
      next === null
        ? { action: "Complete", args: { on: formatDate(day) } }
        : { action: "CompleteOccurrence", args: { on: formatDate(day), next_due_on: formatDate(next.day), next_due_at: next.at } };
    return c.json(answer(id, await signedWrite(writer, { ...tenantPart(tenant), namespace: TASKS, subject: id, ...write }), z));
  });

  api.post("/api/tasks/:id/reopen", async (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const id = c.req.param("id");
    await jsonBody(c, []);
    found(reader, tenant, id);
    return c.json(answer(id, await signedWrite(writer, { ...tenantPart(tenant), namespace: TASKS, action: "Reopen", subject: id, args: {} }), zone()));
  });

  api.post("/api/tasks/:id/reschedule", async (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const id = c.req.param("id");
    const body = await jsonBody(c, ["due"]);
    const z = zone();
    const check = new BodyCheck();
    if (body.due === undefined) check.fail("due", "due is required: a date, a date-time, or null for none");
    const due = check.due(body.due, "due", z);
    check.done();
    const task = found(reader, tenant, id);
    const rule = task.repeats ? parseRepeat(task.repeat_rule) : null;
    if (rule?.ok === true && due !== null && due !== undefined && nextOccurrence(rule.value, due.day, due.day) === null) {
      check.fail("due", "the task's repeat rule has no occurrence after this date");
      check.done();
    }
    const args = dueArgs(due ?? null);
    return c.json(answer(id, await signedWrite(writer, { ...tenantPart(tenant), namespace: TASKS, action: "Reschedule", subject: id, args }), z));
  });

  api.get("/api/agenda", (c) => {
    sessionOf(c);
    const tenant = tenantOf(c);
    const z = zone();
    const range = agendaRange(c, today(z));
    return c.json(buildAgenda(agendaRows(reader, tenant, range.from, range.to, range.today), range, z, MAX_AGENDA_ITEMS));
  });
}

/**
 * The next due date of open repeating `task` when it is completed on `day`: the rule's first
 * occurrence after the later of its due date and `day`, at the same wall time; null when the rule
 * has none (the task is then completed for good).
 */
function nextDue(task: TaskState, zone: string, day: number): { day: number; at: number } | null {
  const rule = parseRepeat(task.repeat_rule);
  const anchor = parseDate(task.repeat_from);
  if (!rule.ok || anchor === null) return null;
  const next = nextOccurrence(rule.value, anchor, Math.max(dueDay(task, zone), day));
  if (next === null) return null;
  const second = dueSecond(task, zone);
  return { day: next, at: second === null ? 0 : instantOf({ day: next, second }, zone) };
}

/** `?from=&to=`: the range (default: a week from today), at most MAX_AGENDA_DAYS days. */
function agendaRange(c: Context<ApiEnv>, today: number): AgendaRange {
  const day = (name: string, fallback: number) => {
    const raw = c.req.query(name);
    if (raw === undefined || raw === "") return fallback;
    const parsed = parseDate(raw);
    if (parsed === null) throw badParameter(name, `${name} is a date such as 2026-12-01`);
    return parsed;
  };
  const from = day("from", today);
  const to = day("to", from + DEFAULT_AGENDA_DAYS - 1);
  if (to < from) throw badParameter("to", "to is on or after from");
  if (to - from + 1 > MAX_AGENDA_DAYS) throw badParameter("to", `an agenda spans at most ${MAX_AGENDA_DAYS} days`);
  return { from, to, today };
}

/** The task of the path, or `404`. */
function found(reader: PersonReader, tenant: string | undefined, id: string): TaskRow {
  const task = loadTask(reader, tenant, id);
  if (task === null) throw new HttpProblem(problem(404, "not-found", `no task '${id.slice(0, 128)}'`));
  return task;
}

/** A write's answer: the task as the command left it, with the receipt and its JWS. */
function answer(id: string, signed: Signed, zone: string) {
  return { ...taskView(id, signed.receipt.state as unknown as TaskState, zone), receipt: signed.receipt, jws: signed.jws };
}

/** `?tenant=`: a handle, or undefined for the personal tenant. */
function tenantOf(c: Context<ApiEnv>): string | undefined {
  const tenant = c.req.query("tenant");
  if (tenant === undefined) return undefined;
  if (tenant.length === 0 || tenant.length > 128) throw badParameter("tenant", "tenant is a tenant's handle");
  return tenant;
}

function tenantPart(tenant: string | undefined): { tenant?: string } {
  return tenant === undefined ? {} : { tenant };
}

function badParameter(name: string, detail: string): HttpProblem {
  return new HttpProblem(problem(400, "bad-parameters", detail, [{ pointer: `?${name}`, detail }]));
}
