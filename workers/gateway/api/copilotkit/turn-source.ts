/**
 * @module What an AG-UI run reads of the person's records while it follows a turn: the turn, its
 * recorded steps, the approval or the ask it waits for, and the conversation as AG-UI messages (for
 * `MESSAGES_SNAPSHOT`). Every read is a record or a declared query of `std.conversation` or
 * `std.approvals` through the person's reader.
 *
 * The snapshot is the conversation's last messages, oldest first: the person's as `user`
 * messages, the assistant's replies as `assistant` ones. The turn the run follows also shows its
 * tool calls: its reply (`<message>.r`, the id the streamed text and the tool calls used) carries
 * the calls the model made, followed by one `tool` message per recorded result (`<turn>.sNNNN`).
 */
import type { Message, ToolCall } from "@ag-ui/core";
import type { RecordedStep } from "../../../../shared/protocol/assistant.ts";
import { APPROVAL, APPROVALS, type ApprovalView, approvalView } from "../approvals/approval-records.ts";
import { CONVERSATION, findTurn, MAIN, messageView, stepsOf, stepSubject, type TurnView } from "../assistant-host/conversation.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { type AskView, findAsk } from "../assistant-host/asks.ts";
import { findBranch } from "../assistant-host/branches.ts";

/** How many of the conversation's last messages a snapshot holds. */
export const SNAPSHOT_MESSAGES = 40;
/** Past every message id of a conversation (ids are ASCII). */
const END = "\u{10FFFF}";

/** The reads of a run, as functions (a test gives its own). */
export interface TurnSource {
  turn(turn: string): TurnView | null;
  steps(turn: string): readonly RecordedStep[];
  /** Whether step `n` of `turn` is recorded (a point read, asked for each streamed piece of text). */
  stepRecorded(turn: string, n: number): boolean;
  /** The approval of `turn` waiting for the person now (`id`, when the turn named it), with its payload; null when none waits. */
  waiting(turn: string, id?: string): ApprovalView | null;
  /** The ask of `turn` open now (`id`, when the turn named it); null when none waits. */
  waitingAsk?(turn: string, id?: string): AskView | null;
  messages(conversation: string, turn: string): Message[];
}

/** The id of the reply to message `message`: the turn's streamed text and its tool calls go there. */
export function replyId(message: string): string {
  return `${message}.r`;
}

/**
 * The conversation an AG-UI thread speaks in: the thread id itself when it names a conversation
 * that has messages (`main`, a branch) or an open branch, else `main` (a client's fresh thread id).
 */
export function threadConversation(reader: PersonReader, threadId: string): string {
  if (threadId === MAIN || !/^[A-Za-z0-9._:-]{1,128}$/.test(threadId)) return MAIN;
  const { rows } = reader.query(undefined, CONVERSATION, "Recent", { conversation: threadId, before: END, limit: 1 });
  return rows.length > 0 || findBranch(reader, threadId)?.status === "open" ? threadId : MAIN;
}

/** Approval `id` of the personal tenant with its payload, or null when there is none. */
export function findApproval(reader: PersonReader, id: string): ApprovalView | null {
  const found = reader.record(undefined, APPROVALS, APPROVAL, id);
  return found === null ? null : approvalView(id, found.state, true);
}

/** The reads of `reader`. */
export function turnSource(reader: PersonReader): TurnSource {
  return {
    turn: (turn) => findTurn(reader, turn),
    steps: (turn) => stepsOf(reader, turn),
    stepRecorded: (turn, n) => reader.record(undefined, CONVERSATION, "Step", stepSubject(turn, n)) !== null,
    waiting: (turn, id) => {
      const ids = id !== undefined ? [id] : reader.query(undefined, APPROVALS, "OfTurn", { turn, limit: 200 }).rows.filter((row) => row.status === "Waiting").map((row) => String(row.id));
      for (const candidate of ids) {
        const approval = findApproval(reader, candidate);
        if (approval !== null && approval.status === "waiting" && approval.turn === turn) return approval;
      }
      return null;
    },
    waitingAsk: (turn, id) => {
      const ids = id !== undefined ? [id] : reader.query(undefined, CONVERSATION, "OfTurn", { turn, limit: 200 }).rows.filter((row) => row.status === "Open").map((row) => String(row.id));
      for (const candidate of ids) {
        const ask = findAsk(reader, candidate, Date.now());
        if (ask !== null && ask.status === "open" && ask.turn === turn) return ask;
      }
      return null;
    },
    messages: (conversation, turn) => snapshotMessages(reader, conversation, turn),
  };
}

function snapshotMessages(reader: PersonReader, conversation: string, turn: string): Message[] {
  const rows = reader.query(undefined, CONVERSATION, "Recent", { conversation, before: END, limit: SNAPSHOT_MESSAGES }).rows.reverse();
  const views = rows.map((row) => messageView(String(row.id), row));
  const texts = new Map(views.map((v) => [v.id, v.text]));
  const messages: Message[] = [];
  const shown = new Set<string>();
  for (const view of views) {
    if (shown.has(view.id)) continue;
    if (view.role === "assistant") {
      messages.push({ id: view.id, role: "assistant", content: view.text });
      continue;
    }
    messages.push({ id: view.id, role: "user", content: view.text });
    if (view.turn !== turn) continue;
    // The followed turn: its reply with the tool calls, then their results.
    const reply = replyId(view.id);
    shown.add(reply);
    const steps = stepsOf(reader, turn);
    const toolCalls: ToolCall[] = steps.flatMap((s) => (s.body.kind === "model" ? s.body.toolCalls.map((call) => ({ id: call.id, type: "function" as const, function: { name: call.name, arguments: call.argumentsJson } })) : []));
    const text = texts.get(reply) ?? steps.flatMap((s) => (s.body.kind === "model" && s.body.text !== "" ? [s.body.text] : [])).join("\n\n");
    if (text === "" && toolCalls.length === 0) continue;
    messages.push({ id: reply, role: "assistant", content: text, ...(toolCalls.length === 0 ? {} : { toolCalls }) });
    for (const s of steps) if (s.body.kind === "tool") messages.push({ id: stepSubject(turn, s.n), role: "tool", toolCallId: s.body.toolCallId, content: s.body.content });
  }
  return messages;
}
