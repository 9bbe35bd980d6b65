/**
 * @module What a replicated log entry carries (opaque to Raft): the leader's time and identity,
 * and either a batch of verified signed commands (group commit: one entry, one fsync per voter)
 * or one operator request (tenants, installs). Every voter applies it with the same time and the
 * same leader, so every voter computes the same history and the same states.
 */
import type { AdminRequests, AdminRequestType } from "../../../shared/protocol/admin.ts";
import type { SubmittedCommand } from "../../../shared/protocol/engine.ts";

/** Operator requests that change the store: they go through the log. The others read locally. */
export const REPLICATED_ADMIN: ReadonlySet<AdminRequestType> = new Set([
  "tenant-create",
  "tenant-key-rotate",
  "tenant-member-add",
  "tenant-member-remove",
  "tenant-owner-add",
  "tenant-owner-remove",
  "tenant-delegate",
  "tenant-undelegate",
  "tenant-delegations-set",
  "install",
  "contract-retire",
  "contract-restore",
]);

/** Operator requests that make a tenant key: their proposer makes it and carries it in the entry, so every voter holds the same. */
export const KEYED_ADMIN: ReadonlySet<AdminRequestType> = new Set(["tenant-create", "tenant-key-rotate"]);

/** An operator request in the log; `tenantKey` is the private JWK the proposer of a `KEYED_ADMIN` request made. */
export interface AdminOp {
  readonly type: AdminRequestType;
  readonly body: AdminRequests[AdminRequestType]["request"];
  readonly tenantKey?: unknown;
}

/** The data of one log entry. */
export interface EntryData {
  /** The leader's clock when it proposed the entry (never less than an earlier entry's). */
  readonly now: number;
  /** The did:key of the leader that proposed it: the `node` of its receipts. */
  readonly node: string;
  readonly commands?: readonly SubmittedCommand[];
  readonly admin?: AdminOp;
}

export function encodeEntry(data: EntryData): string {
  return JSON.stringify(data);
}

export function decodeEntry(text: string): EntryData {
  const value = JSON.parse(text) as EntryData;
  if (typeof value !== "object" || value === null || typeof value.now !== "number" || typeof value.node !== "string") throw new Error("a log entry is not {now, node, commands | admin}");
  return value;
}
