/**
 * @module The person's conversation with the assistant, records of `std.conversation` in the
 * personal tenant (contracts/std/node/conversation.charter.md): how messages, turns and their
 * steps are named, read and shown. Writing them is the contract's actions, signed as the person.
 */
import { clipText } from "./contract-docs.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { RecordedStep, StepBody, TurnHead } from "../../../../shared/protocol/assistant.ts";
import type { PersonReader } from "../personal/person-reader.ts";

export const CONVERSATION = "std.conversation";
/** The conversation every message goes to unless it names a branch. */
export const MAIN = "main";
/** At most this many steps are read of one turn (a turn makes at most a few dozen). */
export const MAX_STEPS = 400;

const TURN_STATUS: Readonly<Record<string, TurnHead["status"]>> = {
  Queued: "queued",
  Running: "running",
  WaitingApproval: "waiting-approval",
  WaitingAsk: "waiting-ask",
  Done: "done",
  Failed: "failed",
  Cancelled: "cancelled",
};

/** The contract's value of each status a listing may ask for. */
export const TURN_STATUS_VALUES: Readonly<Record<TurnHead["status"], string>> = Object.fromEntries(Object.entries(TURN_STATUS).map(([k, v]) => [v, k])) as Record<TurnHead["status"], string>;

export interface MessageView {
  readonly id: string;
  readonly role: "person" | "assistant";
  /** `partial`: the turn was cancelled or failed before the answer was whole. */
  readonly status: "complete" | "partial";
  readonly conversation: string;
  readonly text: string;
  readonly attachments: readonly string[];
  readonly turn: string | null;
  readonly at: string | null;
  readonly reactions: readonly string[];
  /** The branch an assistant message summarises (a merged branch's summary), or null. */
  readonly branch: string | null;
}

export interface TurnView {
  readonly id: string;
  readonly status: TurnHead["status"];
  readonly conversation: string;
  readonly message: string;
  readonly reply: string | null;
  readonly origin: string;
  readonly connection: string | null;
  readonly model: string | null;
  readonly attempts: number;
  readonly steps: number;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly error: { readonly kind: string; readonly message: string } | null;
  readonly queuedAt: string | null;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
}

export function messageView(id: string, row: Record<string, unknown>): MessageView {
  return {
    id,
    role: row.role === "Assistant" ? "assistant" : "person",
    status: row.status === "Partial" ? "partial" : "complete",
    conversation: String(row.conversation),
    text: String(row.text),
    attachments: Array.isArray(row.attachments) ? row.attachments.map(String) : [],
    turn: nonEmpty(row.turn),
    at: timeOf(row.at),
    reactions: Array.isArray(row.reactions) ? row.reactions.map(String) : [],
    branch: nonEmpty(row.branch),
  };
}

export function turnView(id: string, row: Record<string, unknown>): TurnView {
  const error = nonEmpty(row.error);
  return {
    id,
    status: TURN_STATUS[String(row.status)] ?? "queued",
    conversation: String(row.conversation),
    message: String(row.message),
    reply: nonEmpty(row.reply),
    origin: String(row.origin),
    connection: nonEmpty(row.connection),
    model: nonEmpty(row.model),
    attempts: Number(row.attempts ?? 0),
    steps: Number(row.steps ?? 0),
    tokensIn: Number(row.tokens_in ?? 0),
    tokensOut: Number(row.tokens_out ?? 0),
    error: error === null ? null : { kind: String(row.error_kind ?? ""), message: error },
    queuedAt: timeOf(row.queued_at),
    startedAt: timeOf(row.started_at),
    finishedAt: timeOf(row.finished_at),
  };
}

/** The turn `id` of the personal tenant, or null when there is none. */
export function findTurn(reader: PersonReader, id: string): TurnView | null {
  const found = reader.record(undefined, CONVERSATION, "Turn", id);
  return found === null || found.state.status === "New" ? null : turnView(id, found.state);
}

/** The turn `id`; `404` when there is none. */
export function readTurn(reader: PersonReader, id: string): TurnView {
  const turn = findTurn(reader, id);
  if (turn === null) throw new HttpProblem(problem(404, "not-found", `no turn '${id.slice(0, 128)}'`));
  return turn;
}

/** The message `id`, or null when there is none. */
export function findMessage(reader: PersonReader, id: string): MessageView | null {
  const found = reader.record(undefined, CONVERSATION, "Message", id);
  return found === null || found.state.status === "New" ? null : messageView(id, found.state);
}

/** The recorded steps of turn `id`, in order. A step whose body is not the node's JSON is skipped (nothing but the node writes them). */
export function stepsOf(reader: PersonReader, turn: string): RecordedStep[] {
  const { rows } = reader.query(undefined, CONVERSATION, "StepsOf", { turn, limit: MAX_STEPS });
  const steps: RecordedStep[] = [];
  for (const row of rows) {
    let body: StepBody;
    try {
      body = JSON.parse(String(row.body)) as StepBody;
    } catch {
      continue;
    }
    steps.push({ n: Number(row.n), body, tokensIn: Number(row.tokens_in), tokensOut: Number(row.tokens_out), ms: Number(row.ms) });
  }
  return steps;
}

/** The subject of turn `turn`'s step `n`. */
export function stepSubject(turn: string, n: number): string {
  return `${turn}.s${String(n).padStart(4, "0")}`;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/** A `context.time` (ms) as RFC 3339; 0 (never set) as null. */
function timeOf(value: unknown): string | null {
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}

/**
 * Messages given newest first (a `Recent` page) as transcript lines, oldest first: `Person: …` or
 * `Assistant: …`, each clipped to `messageChars`, the newest kept within `totalChars` in all.
 */
export function transcriptLines(rows: readonly Record<string, unknown>[], messageChars: number, totalChars: number): string[] {
  const lines: string[] = [];
  let chars = 0;
  for (const row of rows) {
    const m = messageView(String(row.id), row);
    if (m.text === "") continue;
    const line = `${m.role === "person" ? "Person" : "Assistant"}: ${clipText(m.text, messageChars)}`;
    chars += line.length;
    if (chars > totalChars && lines.length > 0) break;
    lines.push(line);
  }
  return lines.reverse();
}
