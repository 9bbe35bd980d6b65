/**
 * @module The person's approvals, records of `std.approvals` in the personal tenant
 * (contracts/std/node/approvals.charter.md): how they are named, read and shown, and their
 * decisions signed as the person. What may be decided, and when, is the contract's.
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";
import { timeOrderedId } from "../personal/record-id.ts";
import { type Signed, signedWrite } from "../personal/signed-write.ts";

export type { Signed };

export const APPROVALS = "std.approvals";
export const APPROVAL = "Approval";

/** The statuses a listing may ask for, and the contract's enum value of each. */
export const STATUS_VALUES = { waiting: "Waiting", approved: "Approved", denied: "Denied", expired: "Expired" } as const;
export type ApprovalStatus = keyof typeof STATUS_VALUES;

/** An approval as `/api` answers it (the payload only when one approval is read). */
export interface ApprovalView {
  readonly id: string;
  readonly kind: string;
  readonly summary: string;
  readonly status: ApprovalStatus;
  readonly sensitive: boolean;
  readonly digest: string;
  readonly target: string;
  readonly requestedBy: string | null;
  readonly requestedAt: string | null;
  readonly decidedBy: string | null;
  readonly decidedAt: string | null;
  /** When the node acted on it once approved (an install: installed it, or was refused), and what came of it; null until then. */
  readonly carriedOutAt: string | null;
  readonly outcome: string | null;
  /** The assistant's turn that proposed it (a tool call), or null. */
  readonly turn: string | null;
  /** When a waiting approval expires, or null when it does not. */
  readonly expiresAt: string | null;
  /** The session that decided it, or null. */
  readonly session: string | null;
  readonly payload?: string;
}

/** A fresh approval id: `apv-`, the time (base 36, fixed width, so ids sort by when they were asked) and 48 random bits. */
export function approvalId(now: number): string {
  return timeOrderedId("apv", now);
}

/** A row of the contract's queries, or a record's state with its subject, as the view. */
export function approvalView(id: string, row: Record<string, unknown>, withPayload = false): ApprovalView {
  return {
    id,
    kind: String(row.kind),
    summary: String(row.summary),
    status: statusOf(row.status),
    sensitive: row.sensitive === true,
    digest: String(row.digest),
    target: String(row.target),
    requestedBy: typeof row.requested_by === "string" ? row.requested_by : null,
    requestedAt: timeOf(row.requested_at),
    decidedBy: typeof row.decided_by === "string" ? row.decided_by : null,
    decidedAt: timeOf(row.decided_at),
    carriedOutAt: timeOf(row.carried_out_at),
    outcome: timeOf(row.carried_out_at) === null ? null : String(row.outcome),
    turn: typeof row.turn === "string" && row.turn !== "" ? row.turn : null,
    expiresAt: timeOf(row.expires_at),
    session: typeof row.session === "string" && row.session !== "" ? row.session : null,
    ...(withPayload ? { payload: String(row.payload) } : {}),
  };
}

/** The stored approval `id` of the personal tenant, with its payload unless told otherwise; `404` when there is none. */
export function readApproval(reader: PersonReader, id: string, withPayload = true): ApprovalView {
  const found = reader.record(undefined, APPROVALS, APPROVAL, id);
  if (found === null) throw new HttpProblem(problem(404, "not-found", `no approval '${id.slice(0, 128)}'`));
  return approvalView(id, found.state, withPayload);
}

/** Whether approving it needs a fresh step-up: it says so, and an install always does (node.md "/api conventions"). */
export function needsStepUp(approval: Pick<ApprovalView, "kind" | "sensitive">): boolean {
  return approval.sensitive || approval.kind === "install";
}

/** How many approvals wait for the person; null before set-up or while the contract is not installed. */
export function waitingApprovals(reader: PersonReader): number | null {
  try {
    const { rows } = reader.query(undefined, APPROVALS, "WaitingCount", {});
    return Number(rows[0]?.n ?? 0);
  } catch (error) {
    if (error instanceof HttpProblem && (error.problem.status === 404 || error.problem.status === 409)) return null;
    throw error;
  }
}

/**
 * Signs `write` of `std.approvals` as the person and answers the accepted receipt. Anything else is
 * thrown: the engine's problem as it is, a refusal as `422 refused` with the reason's code, the
 * receipt and its JWS (deciding an approval twice is such a refusal).
 */
export function signApproval(writer: PersonWriter, write: Omit<PersonWrite, "namespace">): Promise<Signed> {
  return signedWrite(writer, { ...write, namespace: APPROVALS });
}

function statusOf(value: unknown): ApprovalStatus {
  const found = (Object.keys(STATUS_VALUES) as ApprovalStatus[]).find((k) => STATUS_VALUES[k] === value);
  if (found === undefined) throw new Error(`an approval has the status ${String(value)}, which no accepted command leaves`);
  return found;
}

/** A `context.time` (ms) as RFC 3339; 0 (never set) as null. */
function timeOf(value: unknown): string | null {
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}
