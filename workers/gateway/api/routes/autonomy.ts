/**
 * @module The assistant's autonomy, records of `std.autonomy` in the personal tenant:
 *
 * ```
 * GET   /api/autonomy/goals?status=active|achieved|dropped|all&after=&limit=  → {items: [goal…], next}
 * POST  /api/autonomy/goals {text, why?}                    → 201 {…goal, receipt, jws}
 * PATCH /api/autonomy/goals/{id} {text?, why?, status?: "achieved" | "dropped", note?} → 200 {…goal, receipt, jws}
 * GET   /api/autonomy/initiatives?after=&limit=             → {items: [run…], next}, newest first
 * POST  /api/autonomy/initiatives {kind?, goal?}            → 202 the run, started now (even while the schedule is off)
 * GET   /api/autonomy/reflections?after=&limit=             → {items: [{id, run, text, at}], next}, newest first
 * GET   /api/autonomy/settings · PUT {enabled?, intervalMinutes?, turnTokenBudget?}   (the same as /api/settings/autonomy)
 * ```
 *
 * A goal: `{id, status, text, why, note, setBy, setAt, changedAt, closedAt}`; a run: `{id, kind,
 * goal, turn, status, budget, tokens, summary, reason, startedAt, endedAt}` (`status`: `running`,
 * `concluded`, `abandoned`). A run's kind is `reflection` (the default without a goal) or
 * `initiative` (the default with one; without one, the active goal worked on least recently).
 * Changing a goal that is achieved or dropped already is `409 goal-closed`; starting a run while
 * one is under way `409 run-in-progress`; with no model `409 no-model`. Texts over the contract's
 * bounds are its refusal (`422 refused`, `text_too_long`), nothing written.
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { Autonomy } from "../assistant-host/autonomy.ts";
import { AUTONOMY, GOAL_STATUS, type GoalStatus, goalView, NEWEST, readGoal, reflectionView, type RunKind, runView } from "../assistant-host/autonomy-records.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { type Signed, signedWrites } from "../personal/signed-write.ts";
import { jsonBody } from "../request-body.ts";
import { type AutonomySettingDeps, mountAutonomySetting } from "./model-settings.ts";

export interface AutonomyRouteDeps extends AutonomySettingDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly now: () => number;
  readonly autonomy: Pick<Autonomy, "start">;
}

/** What a subject may be (the engine's own rule). */
const SUBJECT = /^[A-Za-z0-9._:-]{1,128}$/;

export function mountAutonomyRoutes(api: Hono<ApiEnv>, deps: AutonomyRouteDeps): void {
  const { reader, writer } = deps;

  api.get("/api/autonomy/goals", (c) => {
    sessionOf(c);
    const status = goalStatusParameter(c.req.query("status"));
    const page = pageRequest(c);
    const params = { after: page.after ?? "", limit: page.limit + 1 };
    const { rows } = status === "all" ? reader.query(undefined, AUTONOMY, "AllGoals", params) : reader.query(undefined, AUTONOMY, "Goals", { ...params, status: GOAL_STATUS[status] });
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    return c.json({ items: items.map((row) => goalView(String(row.id), row)), next });
  });

  api.post("/api/autonomy/goals", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["text", "why"]);
    const errors: FieldError[] = [];
    const text = textField(body.text, "text", "required", errors);
    const why = textField(body.why, "why", "may-be-empty", errors) ?? "";
    failOn(errors);
    const id = timeOrderedId("goal", deps.now());
    const [signed] = await signedWrites(writer, [{ namespace: AUTONOMY, action: "Set", subject: id, args: { text, why } }]);
    return c.json(goalAnswer(id, signed as Signed), 201);
  });

  api.patch("/api/autonomy/goals/:id", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["text", "why", "status", "note"]);
    const errors: FieldError[] = [];
    const text = textField(body.text, "text", "not-empty", errors);
    const why = textField(body.why, "why", "may-be-empty", errors);
    const note = textField(body.note, "note", "may-be-empty", errors);
    const status = body.status;
    if (status !== undefined && status !== "achieved" && status !== "dropped") errors.push({ pointer: "#/status", detail: "status is achieved or dropped" });
    if (note !== undefined && status !== "achieved") errors.push({ pointer: "#/note", detail: "note goes with status: achieved (how it was achieved)" });
    if (errors.length === 0 && text === undefined && why === undefined && status === undefined) errors.push({ pointer: "#", detail: "give text, why or status: what to change" });
    failOn(errors);
    const id = c.req.param("id");
    if (!SUBJECT.test(id)) throw new HttpProblem(problem(404, "not-found", `no goal '${id.slice(0, 128)}'`));
    const goal = readGoal(reader, id);
    if (goal.status !== "active") throw new HttpProblem(problem(409, "goal-closed", `goal '${goal.id}' is ${goal.status} already: it no longer changes`));
    const writes: PersonWrite[] = [];
    if (text !== undefined || why !== undefined) writes.push({ namespace: AUTONOMY, action: "Edit", subject: id, args: { text: text ?? goal.text, why: why ?? goal.why } });
    if (status === "achieved") writes.push({ namespace: AUTONOMY, action: "Achieve", subject: id, args: { note: note ?? "" } });
    if (status === "dropped") writes.push({ namespace: AUTONOMY, action: "Drop", subject: id, args: {} });
    // Either all of them or none: a refusal of any leaves the goal as it was (signedWrites previews the later ones first).
    const signed = await signedWrites(writer, writes);
    return c.json(goalAnswer(id, signed.at(-1) as Signed));
  });

  api.get("/api/autonomy/initiatives", (c) => {
    sessionOf(c);
    const page = pageRequest(c);
    const { rows } = reader.query(undefined, AUTONOMY, "Runs", { after: page.after ?? NEWEST, limit: page.limit + 1 });
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    return c.json({ items: items.map((row) => runView(String(row.id), row)), next });
  });

  api.post("/api/autonomy/initiatives", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["kind", "goal"]);
    const errors: FieldError[] = [];
    if (body.kind !== undefined && body.kind !== "reflection" && body.kind !== "initiative") errors.push({ pointer: "#/kind", detail: "kind is reflection or initiative" });
    if (body.goal !== undefined && (typeof body.goal !== "string" || !SUBJECT.test(body.goal))) errors.push({ pointer: "#/goal", detail: "goal is a goal's id" });
    if (body.kind === "reflection" && body.goal !== undefined) errors.push({ pointer: "#/goal", detail: "a reflection works on no one goal: leave goal out, or ask for an initiative" });
    failOn(errors);
    const goal = body.goal as string | undefined;
    const kind: RunKind = (body.kind as RunKind | undefined) ?? (goal === undefined ? "reflection" : "initiative");
    const run = await deps.autonomy.start({ kind, ...(goal === undefined ? {} : { goal }) });
    return c.json(run, 202);
  });

  api.get("/api/autonomy/reflections", (c) => {
    sessionOf(c);
    const page = pageRequest(c);
    const { rows } = reader.query(undefined, AUTONOMY, "Reflections", { after: page.after ?? NEWEST, limit: page.limit + 1 });
    const { items, next } = pageOf(rows, (row) => String(row.id), { after: null, limit: page.limit });
    return c.json({ items: items.map((row) => reflectionView(String(row.id), row)), next });
  });

  mountAutonomySetting(api, "/api/autonomy/settings", deps);
}

/** One wrong field of a body, by JSON pointer. */
interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

/** A goal as a write left it, with the receipt and its JWS. */
function goalAnswer(id: string, signed: Signed) {
  return { ...goalView(id, signed.receipt.state ?? {}), receipt: signed.receipt, jws: signed.jws };
}

/**
 * A text field, or undefined when it is absent and not `required`: a string, not blank unless it
 * `may-be-empty`. Its length is the contract's to bound: one too long is its refusal, with the reason.
 */
function textField(value: unknown, field: string, rule: "required" | "not-empty" | "may-be-empty", errors: FieldError[]): string | undefined {
  if (value === undefined && rule !== "required") return undefined;
  const blankOk = rule === "may-be-empty";
  if (typeof value !== "string" || (!blankOk && value.trim() === "")) {
    errors.push({ pointer: `#/${field}`, detail: blankOk ? `${field} is a text` : `${field} is a text that is not empty` });
    return undefined;
  }
  return value;
}

function failOn(errors: FieldError[]): void {
  if (errors.length > 0) throw new HttpProblem(problem(400, "malformed-body", errors.map((e) => e.detail).join("; "), errors));
}

function goalStatusParameter(value: string | undefined): GoalStatus | "all" {
  if (value === undefined || value === "") return "active";
  if (value === "all" || Object.hasOwn(GOAL_STATUS, value)) return value as GoalStatus | "all";
  const detail = "status is one of active, achieved, dropped, all";
  throw new HttpProblem(problem(400, "bad-parameters", detail, [{ pointer: "?status", detail }]));
}
