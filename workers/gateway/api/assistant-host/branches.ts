/**
 * @module Branches: side conversations opened from one message of a conversation, records of
 * `std.conversation`'s `Branch` in the personal tenant. A branch's id is the conversation its
 * messages go to; a turn in it is given the conversation it was opened from up to that message,
 * then its own messages (turn-context.ts). How branches are named, read and shown, which
 * conversations take new messages (`main` and open branches), and the conversations a branch
 * descends from.
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { CONVERSATION, MAIN } from "./conversation.ts";

export const BRANCH = "Branch";
/** How many branches deep the conversations a turn is given go, at most (a branch of a branch of …). */
export const BRANCH_DEPTH = 8;

/** The statuses of a branch, and the contract's value of each. */
export const BRANCH_STATUS_VALUES = { open: "Open", merging: "Merging", merged: "Merged", closed: "Closed" } as const;
export type BranchStatus = keyof typeof BRANCH_STATUS_VALUES;

/** A branch as `/api` answers it. */
export interface BranchView {
  readonly id: string;
  /** The conversation it was opened from. */
  readonly parent: string;
  /** The message of `parent` it was opened from. */
  readonly from: string;
  readonly title: string;
  readonly status: BranchStatus;
  readonly createdAt: string | null;
  readonly openedBy: string | null;
  /** The turn summarising it (the last one asked for), or null. */
  readonly mergeTurn: string | null;
  /** The summary message in `parent`, once merged. */
  readonly summary: string | null;
  readonly mergedAt: string | null;
  readonly closedAt: string | null;
}

/** A fresh branch id: `branch-`, the time, random hex (time-ordered, like messages). */
export function branchId(now: number): string {
  return timeOrderedId("branch", now);
}

/** A row of the `Branches` query, or a record's state, as the view. */
export function branchView(id: string, row: Record<string, unknown>): BranchView {
  return {
    id,
    parent: String(row.parent ?? ""),
    from: String(row.from_message ?? ""),
    title: String(row.title ?? ""),
    status: statusOf(row.status),
    createdAt: timeOf(row.opened_at),
    openedBy: typeof row.opened_by === "string" ? row.opened_by : null,
    mergeTurn: nonEmpty(row.merge_turn),
    summary: nonEmpty(row.summary_message),
    mergedAt: timeOf(row.merged_at),
    closedAt: timeOf(row.closed_at),
  };
}

/** The branch `id`, or null when there is none (`main`, or any id no branch has). */
export function findBranch(reader: PersonReader, id: string): BranchView | null {
  if (!id.startsWith("branch-")) return null;
  const found = reader.record(undefined, CONVERSATION, BRANCH, id);
  return found === null || found.state.status === "New" ? null : branchView(id, found.state);
}

/** The branch `id`; `404` when there is none. */
export function readBranch(reader: PersonReader, id: string): BranchView {
  const branch = findBranch(reader, id);
  if (branch === null) throw new HttpProblem(problem(404, "not-found", `no branch '${id.slice(0, 128)}'`));
  return branch;
}

/**
 * Checks that `conversation` takes a new message: `main` does, and an open branch; a branch merged,
 * merging or closed is `409 branch-not-open`, any other name `404`.
 */
export function requireOpenConversation(reader: PersonReader, conversation: string): void {
  if (conversation === MAIN) return;
  const branch = findBranch(reader, conversation);
  if (branch === null) throw new HttpProblem(problem(404, "not-found", `no conversation '${conversation.slice(0, 128)}': say something in main or in an open branch`));
  if (branch.status !== "open") throw notOpen(branch);
}

/** `409 branch-not-open` for `branch`, saying why. */
export function notOpen(branch: BranchView): HttpProblem {
  const why = branch.status === "merged" ? "is merged" : branch.status === "merging" ? "is being merged" : "is closed";
  return new HttpProblem(problem(409, "branch-not-open", `branch '${branch.id}' ${why}: it takes no more messages`));
}

/** One stretch of what a turn is given: `conversation`'s messages up to and including `upTo`. */
export interface HistorySegment {
  readonly conversation: string;
  readonly upTo: string;
  /** Whether replies to `upTo` are left out (a branch starts from exactly that message). */
  readonly exact: boolean;
}

/**
 * What a turn answering `message` in `conversation` is given, newest stretch first: the
 * conversation up to the message, then (a branch) the conversation it was opened from up to and
 * including the message it was opened from, and so on up to BRANCH_DEPTH branches.
 */
export function historySegments(reader: PersonReader, conversation: string, message: string): HistorySegment[] {
  const segments: HistorySegment[] = [{ conversation, upTo: message, exact: false }];
  let at = conversation;
  for (let depth = 0; depth < BRANCH_DEPTH; depth++) {
    const branch = findBranch(reader, at);
    if (branch === null) break;
    segments.push({ conversation: branch.parent, upTo: branch.from, exact: true });
    at = branch.parent;
  }
  return segments;
}

/** The conversation a branch descends from at the root (`main` for every branch the node makes); the conversation itself when it is no branch. */
export function rootConversation(reader: PersonReader, conversation: string): string {
  const segments = historySegments(reader, conversation, "");
  return (segments.at(-1) as HistorySegment).conversation;
}

function statusOf(value: unknown): BranchStatus {
  const found = (Object.keys(BRANCH_STATUS_VALUES) as BranchStatus[]).find((k) => BRANCH_STATUS_VALUES[k] === value);
  if (found === undefined) throw new Error(`a branch has the status ${String(value)}, which no accepted command leaves`);
  return found;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/** A `context.time` (ms) as RFC 3339; 0 (never set) as null. */
function timeOf(value: unknown): string | null {
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}
