/**
 * @module Merging a branch back: a turn the node starts itself (origin `merge`, in the branch's
 * conversation) asks the model routed for `summaries`, with no tools, for a short summary of the
 * branch; once that turn is done, its text is written into the conversation the branch was opened
 * from as an assistant message saying it summarises the branch (`Summarize`, under a message id
 * made from the turn's end time, so it lists at that time), and the branch is `Merged` with it.
 * A merge turn that failed or was cancelled puts the branch back to `Open`.
 *
 * Finishing is idempotent and recoverable: the summary's subject and every command's idempotency
 * key are fixed by the turn, so whichever comes first — the turn's end (its shape's `ended`), the
 * next `GET /api/branches` or merge, or the node's start — writes it once, and the others find it
 * written.
 */
import { createHash } from "node:crypto";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { ChatMessage } from "../../../../shared/models/model.ts";
import type { Logger } from "../../../../shared/log.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { signedWrite } from "../personal/signed-write.ts";
import { BRANCH_STATUS_VALUES, type BranchView, branchView, findBranch, notOpen, readBranch } from "./branches.ts";
import { clipText } from "./contract-docs.ts";
import { CONVERSATION, findMessage, findTurn, messageView, stepsOf, type TurnView } from "./conversation.ts";
import type { TurnShape } from "./turn-context.ts";
import type { TurnHost } from "./turn-host.ts";

/** The origin of a merge turn. */
export const MERGE_ORIGIN = "merge";
/** The most of the branch's messages, and of their characters, a merge turn is given (newest kept). */
const MERGE_MESSAGES = 80;
const MERGE_CHARS = 48_000;
/** The most characters of the message the branch was opened from, in the merge turn's system text. */
const FROM_CHARS = 2_000;
/** The most branches still merging one pass finishes. */
const PASS_LIMIT = 50;
/** Past every message id (ids are ASCII). */
const END = "\u{10FFFF}";

export interface MergeDeps {
  readonly reader: PersonReader;
  readonly writer: PersonWriter;
  readonly log: Pick<Logger, "warn">;
}

/** The shape of merge turns (registered for MERGE_ORIGIN): summaries' models, no tools, the branch's messages. */
export function mergeShape(deps: MergeDeps): TurnShape {
  return {
    kind: "summaries",
    tools: false,
    reply: false,
    system: (base, turn) => `${base}\n\n${summaryInstruction(deps.reader, turn)}`,
    messages: (turn) => [...branchMessages(deps.reader, turn.conversation), { role: "user", content: SUMMARY_REQUEST }],
    ended: async (turn) => {
      await finishMerge(deps, turn.conversation, turn.id);
    },
  };
}

const SUMMARY_REQUEST = "Now write the summary of this side conversation for the conversation it was opened from.";

function summaryInstruction(reader: PersonReader, turn: TurnView): string {
  const branch = findBranch(reader, turn.conversation);
  const from = branch === null ? null : findMessage(reader, branch.from);
  return [
    `The person opened a side conversation${branch !== null && branch.title !== "" ? ` ("${clipText(branch.title, 200)}")` : ""} from a message of their conversation with you, and now merges it back.`,
    from === null ? "" : `It was opened from this message (${from.role === "person" ? "the person's" : "yours"}):\n${clipText(from.text, FROM_CHARS)}`,
    "Write a short summary of the side conversation for the conversation it was opened from: what was asked, what was found or decided, and what is still open. A few sentences or short bullet points, in the person's language, with no preamble; do not mention that you are summarising.",
  ]
    .filter((part) => part !== "")
    .join("\n\n");
}

/** The branch's messages, oldest first, bounded (the newest kept). */
function branchMessages(reader: PersonReader, branch: string): ChatMessage[] {
  const { rows } = reader.query(undefined, CONVERSATION, "Recent", { conversation: branch, before: END, limit: MERGE_MESSAGES });
  const kept: ChatMessage[] = [];
  let chars = 0;
  for (const row of rows) {
    const m = messageView(String(row.id), row);
    if (m.text === "") continue;
    chars += m.text.length;
    if (chars > MERGE_CHARS && kept.length > 0) break;
    kept.push(m.role === "person" ? { role: "user", content: m.text } : { role: "assistant", content: m.text, toolCalls: [] });
  }
  return kept.reverse();
}

/** What starting a merge needs. */
export interface StartMergeDeps extends MergeDeps {
  readonly now: () => number;
  readonly turns: Pick<TurnHost, "enqueue" | "turnFrame">;
  /** Whether a model is configured for summaries (the conversation's counts). */
  readonly summariesConfigured: () => boolean;
}

/**
 * Starts merging branch `id`: finishes first what an earlier merge left, then (an open branch with
 * messages, a model for summaries) queues the merge turn and records `Merge`. `404`, `409
 * branch-not-open`, `409 branch-empty`, `409 no-model`, or the contract's refusal are thrown.
 */
export async function startMerge(deps: StartMergeDeps, id: string): Promise<{ branch: BranchView; turn: string }> {
  const before = readBranch(deps.reader, id);
  const branch = before.status === "merging" && before.mergeTurn !== null ? await finishMerge(deps, id, before.mergeTurn) : before;
  if (branch.status !== "open") throw notOpen(branch);
  if (deps.reader.query(undefined, CONVERSATION, "Recent", { conversation: id, before: END, limit: 1 }).rows.length === 0) {
    throw new HttpProblem(problem(409, "branch-empty", `branch '${id}' has no messages to merge: say something in it, or close it`));
  }
  if (!deps.summariesConfigured()) throw new HttpProblem(problem(409, "no-model", "no model is configured: add a connection and choose a model first (/api/setup/model)"));
  const turn = timeOrderedId("turn", deps.now());
  // The turn first: a branch names only a turn that exists.
  await signedWrite(deps.writer, { namespace: CONVERSATION, action: "Queue", subject: turn, args: { conversation: id, message: "", origin: MERGE_ORIGIN } });
  let merging: BranchView;
  try {
    const signed = await signedWrite(deps.writer, { namespace: CONVERSATION, action: "Merge", subject: id, args: { turn } });
    merging = signed.receipt.state === null ? readBranch(deps.reader, id) : branchView(id, signed.receipt.state);
  } catch (error) {
    // Another merge came first: this turn is not the branch's, and must not run.
    await deps.writer.act({ namespace: CONVERSATION, action: "Cancel", subject: turn, args: { reply: "", steps: 0, tokens_in: 0, tokens_out: 0 } });
    throw error;
  }
  // Announced before the hand-off: the turn may run, and finish, before enqueue returns.
  deps.turns.turnFrame(turn, "queued", { message: "" });
  await deps.turns.enqueue(turn, `${turn}:queued`);
  return { branch: merging, turn };
}

/**
 * Finishes what merge turn `turn` of branch `id` left: done, its summary written and the branch
 * `Merged`; failed, cancelled or gone, the branch back to `Open`; still running, nothing. A branch
 * whose merge turn is another one is left as it is. Answers the branch as it then is.
 */
export async function finishMerge(deps: MergeDeps, id: string, turnId: string): Promise<BranchView> {
  const branch = findBranch(deps.reader, id);
  if (branch === null || branch.mergeTurn !== turnId || (branch.status !== "merging" && branch.status !== "open")) return branch ?? readBranch(deps.reader, id);
  const turn = findTurn(deps.reader, turnId);
  const text = turn?.status === "done" ? summaryText(deps.reader, turnId) : "";
  if (turn !== null && turn.status === "done" && text !== "" && turn.finishedAt !== null) {
    const message = summarySubject(turnId, Date.parse(turn.finishedAt));
    const said = await deps.writer.act({ namespace: CONVERSATION, action: "Summarize", subject: message, args: { conversation: branch.parent, text, turn: turnId, branch: id }, idempotencyKey: `${message}:summarize` });
    // Refused only when it is there already (written by an earlier pass under the same subject).
    if (said.kind === "problem" || (said.outcome === "refused" && findMessage(deps.reader, message) === null)) {
      deps.log.warn("a branch's summary could not be written; the next pass tries again", { branch: id, turn: turnId, error: said.kind === "problem" ? said.problem.detail : "refused" });
      return branch;
    }
    await deps.writer.act({ namespace: CONVERSATION, action: "Merged", subject: id, args: { turn: turnId, summary_message: message }, idempotencyKey: `${id}:merged:${turnId}` });
  } else if (branch.status === "merging" && (turn === null || turn.status === "done" || turn.status === "failed" || turn.status === "cancelled")) {
    await deps.writer.act({ namespace: CONVERSATION, action: "MergeFailed", subject: id, args: { turn: turnId }, idempotencyKey: `${id}:merge-failed:${turnId}` });
  }
  return readBranch(deps.reader, id);
}

/** Finishes every merge a stop left between its turn's end and its summary (at most PASS_LIMIT a pass). */
export async function finishMerges(deps: MergeDeps): Promise<void> {
  const { rows } = deps.reader.query(undefined, CONVERSATION, "Branches", { status: BRANCH_STATUS_VALUES.merging, all: false, after: "", limit: PASS_LIMIT });
  for (const row of rows) {
    const turn = typeof row.merge_turn === "string" ? row.merge_turn : "";
    if (turn !== "") await finishMerge(deps, String(row.id), turn);
  }
}

/** The text of a done merge turn: its model calls' text, as its reply would have been, within a message's length. */
function summaryText(reader: PersonReader, turn: string): string {
  const texts = stepsOf(reader, turn).flatMap((s) => (s.body.kind === "model" && s.body.text !== "" ? [s.body.text] : []));
  return texts.join("\n\n").trim().slice(0, 32_000);
}

/** The summary message of merge turn `turn` ended at `at` (ms): `msg-`, that time, and a digest of the turn (the same on every pass). */
export function summarySubject(turn: string, at: number): string {
  const time = Math.max(0, Math.floor(at)).toString(36).padStart(9, "0");
  return `msg-${time}-${createHash("sha256").update(turn).digest("hex").slice(0, 12)}`;
}
