/**
 * @module The assistant's asks, records of `std.conversation`'s `Ask` in the personal tenant: the
 * model asking the person to choose among options (a wizard step) while its turn waits. How an
 * ask is named, read and shown, how an answer is checked before it is signed, and the commands
 * that end one. What may be recorded, and when, is the contract's; the checks here only name the
 * field a bad answer got wrong before anything is written.
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { RecordedStep } from "../../../../shared/protocol/assistant.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { signedWrite } from "../personal/signed-write.ts";
import { CONVERSATION } from "./conversation.ts";

export const ASK = "Ask";
/** The most characters of an ask's question, of an option's label and description, and of the person's own text. */
export const ASK_LIMITS = { question: 1000, label: 200, description: 500, text: 1000, minOptions: 2, maxOptions: 8 } as const;

/** The statuses of an ask, and the contract's value of each. */
export const ASK_STATUS_VALUES = { open: "Open", answered: "Answered", expired: "Expired", cancelled: "Cancelled" } as const;
export type AskStatus = keyof typeof ASK_STATUS_VALUES;

export interface AskOption {
  readonly label: string;
  readonly description: string;
}

/** An ask as `/api` answers it. */
export interface AskView {
  readonly id: string;
  readonly turn: string;
  readonly question: string;
  readonly options: readonly AskOption[];
  readonly multiple: boolean;
  readonly allowOther: boolean;
  /** `open` turns `expired` here once its time has passed, before `Expire` is recorded. */
  readonly status: AskStatus;
  readonly expiresAt: string | null;
  readonly openedAt: string | null;
  /** The person's answer: the options' indexes and labels, and their own text ("" when none). */
  readonly answer: { readonly choices: readonly number[]; readonly labels: readonly string[]; readonly text: string } | null;
  readonly answeredAt: string | null;
  /** The session that answered, or null. */
  readonly session: string | null;
}

/** The ask made by call `index` of turn `turn`'s model step `step`: `ask-`, then the turn's own time-ordered part. */
export function askId(turn: string, step: number, index: number): string {
  return `ask-${turn.replace(/^turn-/, "")}-${step}-${index}`;
}

/** Where the call that made ask `id` is in its turn (its model step and its index there), or null for an id not made so. */
export function askPlace(id: string): { step: number; index: number } | null {
  const match = /-(\d{1,6})-(\d{1,4})$/.exec(id);
  return match === null ? null : { step: Number(match[1]), index: Number(match[2]) };
}

/** The id of the model's call that made ask `id`, found in its turn's recorded `steps`; null when it is not there. */
export function askCallId(id: string, steps: readonly RecordedStep[]): string | null {
  const place = askPlace(id);
  const step = place === null ? undefined : steps.find((s) => s.n === place.step);
  return step?.body.kind === "model" && place !== null ? (step.body.toolCalls[place.index]?.id ?? null) : null;
}

/** A row of the contract's queries, or a record's state, as the view at `now` (ms). */
export function askView(id: string, row: Record<string, unknown>, now: number): AskView {
  const labels = stringList(row.labels);
  const descriptions = stringList(row.descriptions);
  const expires = Number(row.expires_at ?? 0);
  const stored = statusOf(row.status);
  const answered = stored === "answered";
  const choices = answered && Array.isArray(row.choices) ? row.choices.map(Number) : [];
  return {
    id,
    turn: String(row.turn ?? ""),
    question: String(row.question ?? ""),
    options: labels.map((label, i) => ({ label, description: descriptions[i] ?? "" })),
    multiple: row.multiple === true,
    allowOther: row.allow_other === true,
    status: stored === "open" && expires > 0 && now >= expires ? "expired" : stored,
    expiresAt: timeOf(expires),
    openedAt: timeOf(row.opened_at),
    answer: answered ? { choices, labels: choices.map((i) => labels[i] ?? ""), text: String(row.text ?? "") } : null,
    answeredAt: timeOf(row.answered_at),
    session: typeof row.session === "string" && row.session !== "" ? row.session : null,
  };
}

/** The ask `id`, or null when there is none. */
export function findAsk(reader: PersonReader, id: string, now: number): AskView | null {
  const found = reader.record(undefined, CONVERSATION, ASK, id);
  return found === null || found.state.status === "New" ? null : askView(id, found.state, now);
}

/** The ask `id`; `404` when there is none. */
export function readAsk(reader: PersonReader, id: string, now: number): AskView {
  const ask = findAsk(reader, id, now);
  if (ask === null) throw new HttpProblem(problem(404, "not-found", `no ask '${id.slice(0, 128)}'`));
  return ask;
}

/** How many asks wait for the person; null before set-up or while the contract is not installed. */
export function openAsks(reader: PersonReader): number | null {
  try {
    return Number(reader.query(undefined, CONVERSATION, "OpenCount", {}).rows[0]?.n ?? 0);
  } catch (error) {
    if (error instanceof HttpProblem && (error.problem.status === 404 || error.problem.status === 409)) return null;
    throw error;
  }
}

/** One field of an answer that does not fit its ask. */
export interface AnswerError {
  readonly pointer: string;
  readonly detail: string;
}

/**
 * Checks an answer's body against its ask: `choices` a list of distinct option indexes (at most
 * one unless the ask takes several), `text` a string within its bounds and only where the ask takes
 * an answer of the person's own, and at least one choice or a text. Answers the answer, or every
 * field it gets wrong.
 */
export function checkAnswer(ask: Pick<AskView, "options" | "multiple" | "allowOther">, body: { readonly choices?: unknown; readonly text?: unknown }): { ok: true; choices: number[]; text: string } | { ok: false; errors: AnswerError[] } {
  const errors: AnswerError[] = [];
  let choices: number[] = [];
  if (body.choices !== undefined) {
    if (!Array.isArray(body.choices) || body.choices.length > ASK_LIMITS.maxOptions || !body.choices.every((c) => Number.isInteger(c))) {
      errors.push({ pointer: "#/choices", detail: `choices is a list of at most ${ASK_LIMITS.maxOptions} option indexes (whole numbers from 0)` });
    } else {
      choices = body.choices as number[];
      choices.forEach((c, i) => {
        if (c < 0 || c >= ask.options.length) errors.push({ pointer: `#/choices/${i}`, detail: `${c} is not an option: this ask's options are 0 to ${ask.options.length - 1}` });
        else if (choices.indexOf(c) !== i) errors.push({ pointer: `#/choices/${i}`, detail: `option ${c} is chosen twice` });
      });
      if (!ask.multiple && choices.length > 1) errors.push({ pointer: "#/choices", detail: "this ask takes one choice, not several" });
    }
  }
  let text = "";
  if (body.text !== undefined && body.text !== null) {
    if (typeof body.text !== "string" || body.text.length > ASK_LIMITS.text) errors.push({ pointer: "#/text", detail: `text is the person's own answer: a string of at most ${ASK_LIMITS.text} characters` });
    else text = body.text.trim();
  }
  if (text !== "" && !ask.allowOther) errors.push({ pointer: "#/text", detail: "this ask takes only its options: no answer of your own" });
  if (errors.length === 0 && choices.length === 0 && text === "") errors.push({ pointer: "#/choices", detail: ask.allowOther ? "choose at least one option, or answer in text" : "choose at least one option" });
  return errors.length === 0 ? { ok: true, choices, text } : { ok: false, errors };
}

/** What ending an ask needs: the writer, the clock, and who hears of the change (for `/api/events`). */
export interface AskWriteDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly now: () => number;
  readonly onAsk?: (ask: AskView) => void;
}

/** Records `Expire` of an open ask past its time (once: a fixed idempotency key); answers the ask as it then is. */
export async function expireAsk(deps: AskWriteDeps, ask: AskView): Promise<AskView> {
  const answer = await deps.writer.act({ namespace: CONVERSATION, action: "Expire", subject: ask.id, args: {}, idempotencyKey: `${ask.id}:expire` });
  const now = findAsk(deps.reader, ask.id, deps.now()) ?? ask;
  if (answer.kind === "receipt" && answer.outcome === "accepted" && !answer.replayed) deps.onAsk?.(now);
  return now;
}

/** Withdraws the open asks of turn `turn` (it was cancelled): each is `Cancelled`, and heard of. */
export async function withdrawAsks(deps: AskWriteDeps, turn: string): Promise<void> {
  const { rows } = deps.reader.query(undefined, CONVERSATION, "OfTurn", { turn, limit: 200 });
  for (const row of rows) {
    if (row.status !== "Open") continue;
    const id = String(row.id);
    const answer = await deps.writer.act({ namespace: CONVERSATION, action: "Withdraw", subject: id, args: {}, idempotencyKey: `${id}:withdraw` });
    if (answer.kind === "receipt" && answer.outcome === "accepted" && !answer.replayed) deps.onAsk?.(findAsk(deps.reader, id, deps.now()) ?? askView(id, row, deps.now()));
  }
}

/** Signs the person's answer (`Answer`, with the session) and answers the ask then; the contract's refusal is thrown as `422 refused`. */
export async function signAnswer(deps: AskWriteDeps, ask: AskView, answer: { choices: readonly number[]; text: string; session: string }): Promise<AskView> {
  await signedWrite(deps.writer, { namespace: CONVERSATION, action: "Answer", subject: ask.id, args: { choices: answer.choices, text: answer.text, session: answer.session } });
  const answered = findAsk(deps.reader, ask.id, deps.now()) ?? ask;
  deps.onAsk?.(answered);
  return answered;
}

function statusOf(value: unknown): AskStatus {
  const found = (Object.keys(ASK_STATUS_VALUES) as AskStatus[]).find((k) => ASK_STATUS_VALUES[k] === value);
  if (found === undefined) throw new Error(`an ask has the status ${String(value)}, which no accepted command leaves`);
  return found;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/** A `context.time` (ms) as RFC 3339; 0 (never set) as null. */
function timeOf(value: unknown): string | null {
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}
