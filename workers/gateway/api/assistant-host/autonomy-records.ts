/**
 * @module The assistant's autonomy as records of `std.autonomy` in the personal tenant
 * (contracts/std/node/autonomy.charter.md): how goals, runs and reflections are named, read and
 * shown. A run's turn and reflection are named after the run, so whatever follows a run is
 * written under fixed subjects and keys, and writing it twice changes nothing.
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";

export const AUTONOMY = "std.autonomy";
/** The `origin` of an autonomy run's turn, and the conversation it speaks in. */
export const AUTONOMY_ORIGIN = "autonomy";
export const AUTONOMY_CONVERSATION = "autonomy";
/** Above every subject (`[A-Za-z0-9._:-]`): `Runs` and `Reflections` from the newest. */
export const NEWEST = "~";

/** The statuses of a goal as `/api` spells them, and the contract's value of each. */
export const GOAL_STATUS = { active: "Active", achieved: "Achieved", dropped: "Dropped" } as const;
export type GoalStatus = keyof typeof GOAL_STATUS;
export const RUN_KINDS = { reflection: "Reflection", initiative: "Initiative" } as const;
export type RunKind = keyof typeof RUN_KINDS;
const RUN_STATUS = { Running: "running", Concluded: "concluded", Abandoned: "abandoned" } as const;
export type RunStatus = (typeof RUN_STATUS)[keyof typeof RUN_STATUS];

export interface GoalView {
  readonly id: string;
  readonly status: GoalStatus;
  readonly text: string;
  readonly why: string;
  /** How an achieved goal was achieved ("" otherwise). */
  readonly note: string;
  readonly setBy: string | null;
  readonly setAt: string | null;
  readonly changedAt: string | null;
  readonly closedAt: string | null;
}

export interface RunView {
  readonly id: string;
  readonly kind: RunKind;
  /** The goal an initiative advances; null for a reflection. */
  readonly goal: string | null;
  readonly turn: string;
  readonly status: RunStatus;
  readonly budget: number;
  readonly tokens: number;
  readonly summary: string;
  /** Why an abandoned run ended; null otherwise. */
  readonly reason: string | null;
  readonly startedAt: string | null;
  readonly endedAt: string | null;
}

export interface ReflectionView {
  readonly id: string;
  readonly run: string;
  readonly text: string;
  readonly at: string | null;
}

/** The turn that does run `run`'s work: the run's own time-ordered part, so both sort alike. */
export function runTurnId(run: string): string {
  return `turn-${run.replace(/^run-/, "")}`;
}

/** The run whose turn is `turn`, by name (whether there is one is for the records to say). */
export function runOfTurn(turn: string): string {
  return `run-${turn.replace(/^turn-/, "")}`;
}

/** The subject of run `run`'s reflection. */
export function reflectionId(run: string): string {
  return `${run}.reflection`;
}

export function goalView(id: string, row: Record<string, unknown>): GoalView {
  const status = (Object.keys(GOAL_STATUS) as GoalStatus[]).find((k) => GOAL_STATUS[k] === row.status);
  if (status === undefined) throw new Error(`a goal has the status ${String(row.status)}, which no accepted command leaves`);
  return {
    id,
    status,
    text: String(row.text ?? ""),
    why: String(row.why ?? ""),
    note: String(row.note ?? ""),
    setBy: typeof row.author === "string" ? row.author : null,
    setAt: timeOf(row.set_at),
    changedAt: timeOf(row.changed_at),
    closedAt: timeOf(row.closed_at),
  };
}

export function runView(id: string, row: Record<string, unknown>): RunView {
  const status = RUN_STATUS[String(row.status) as keyof typeof RUN_STATUS];
  if (status === undefined) throw new Error(`a run has the status ${String(row.status)}, which no accepted command leaves`);
  const reason = String(row.reason ?? "");
  return {
    id,
    kind: row.kind === RUN_KINDS.initiative ? "initiative" : "reflection",
    goal: typeof row.goal === "string" && row.goal !== "" ? row.goal : null,
    turn: String(row.turn ?? ""),
    status,
    budget: Number(row.budget ?? 0),
    tokens: Number(row.tokens ?? 0),
    summary: String(row.summary ?? ""),
    reason: reason === "" ? null : reason,
    startedAt: timeOf(row.began_at),
    endedAt: timeOf(row.ended_at),
  };
}

export function reflectionView(id: string, row: Record<string, unknown>): ReflectionView {
  return { id, run: String(row.run ?? ""), text: String(row.text ?? ""), at: timeOf(row.at) };
}

/** Goal `id`, or null when there is none. */
export function findGoal(reader: PersonReader, id: string): GoalView | null {
  const found = reader.record(undefined, AUTONOMY, "Goal", id);
  return found === null || found.state.status === "New" ? null : goalView(id, found.state);
}

/** Goal `id`; `404` when there is none. */
export function readGoal(reader: PersonReader, id: string): GoalView {
  const goal = findGoal(reader, id);
  if (goal === null) throw new HttpProblem(problem(404, "not-found", `no goal '${id.slice(0, 128)}'`));
  return goal;
}

/** Run `id`, or null when there is none. */
export function findRun(reader: PersonReader, id: string): RunView | null {
  const found = reader.record(undefined, AUTONOMY, "Run", id);
  return found === null || found.state.status === "New" ? null : runView(id, found.state);
}

/** Up to `limit` active goals, oldest first. */
export function activeGoals(reader: PersonReader, limit: number): GoalView[] {
  return reader.query(undefined, AUTONOMY, "Goals", { status: GOAL_STATUS.active, after: "", limit }).rows.map((row) => goalView(String(row.id), row));
}

/** The newest `limit` reflections, newest first. */
export function latestReflections(reader: PersonReader, limit: number): ReflectionView[] {
  return reader.query(undefined, AUTONOMY, "Reflections", { after: NEWEST, limit }).rows.map((row) => reflectionView(String(row.id), row));
}

/** The run begun last, or null before the first. */
export function lastRun(reader: PersonReader): RunView | null {
  const [row] = reader.query(undefined, AUTONOMY, "Runs", { after: NEWEST, limit: 1 }).rows;
  return row === undefined ? null : runView(String(row.id), row);
}

/** Up to `limit` runs not ended yet, oldest first. */
export function runningRuns(reader: PersonReader, limit: number): RunView[] {
  return reader.query(undefined, AUTONOMY, "Running", { limit }).rows.map((row) => runView(String(row.id), row));
}

/**
 * The active goal worked on least recently (one never worked on first, then the one whose last run
 * is oldest; the oldest goal among equals), looking at the first `limit` active goals; null when none is active.
 */
export function goalLeastWorked(reader: PersonReader, limit: number): GoalView | null {
  let best: { goal: GoalView; last: string } | null = null;
  for (const goal of activeGoals(reader, limit)) {
    const [row] = reader.query(undefined, AUTONOMY, "GoalRuns", { goal: goal.id, limit: 1 }).rows;
    // Run ids are time-ordered: "" (never) sorts before any.
    const last = row === undefined ? "" : String(row.id);
    if (best === null || last < best.last) best = { goal, last };
  }
  return best?.goal ?? null;
}

/** A `context.time` (ms) as RFC 3339; 0 (never set) as null. */
function timeOf(value: unknown): string | null {
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}
