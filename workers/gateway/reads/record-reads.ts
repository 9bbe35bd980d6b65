/**
 * @module Reading records and their history from the store view, for any surface: `/v1`'s record
 * routes (which check the bearer first) and the node's `/api` (which reads as the signed-in
 * person). Call these inside `StoreView.read`, so a record and what it is read with come from one
 * snapshot. Only public fields are ever read.
 */
import type { Schema } from "../../../contracts/schema.ts";
import { columnName, fromColumn, quote, tableName } from "../../../contracts/storage/columns.ts";
import type { StoreView } from "./store-view.ts";

/** One record: its public state and the artifact and history entry that last wrote it. */
export interface RecordRead {
  readonly subject: string;
  readonly aggregate: string;
  readonly artifact: string;
  readonly seq: number;
  readonly state: Record<string, unknown>;
}

/** One history entry of a subject. */
export interface HistoryEntry {
  readonly seq: number;
  readonly action: string;
  readonly signer: string;
  readonly outcome: string;
  readonly reason: unknown;
  readonly artifact: string;
  readonly committedAt: string;
  readonly receipt: unknown;
}

const HISTORY_SQL =
  "SELECT seq, action, signer, outcome, reason, artifact, committed_at, receipt FROM history " +
  "WHERE tenant = ? AND namespace = ? AND aggregate = ? AND subject = ? AND seq > ? ORDER BY seq LIMIT ?";

interface HistoryRow {
  seq: bigint;
  action: string;
  signer: string;
  outcome: string;
  reason: string | null;
  artifact: string;
  committed_at: bigint;
  receipt: string;
}

function publicFields(schema: Schema, aggregate: string): Schema["aggregates"][string]["fields"] {
  return (schema.aggregates[aggregate]?.fields ?? []).filter((f) => f.visibility === "public");
}

function toRecord(schema: Schema, aggregate: string, row: Record<string, unknown>): RecordRead {
  const state = Object.fromEntries(publicFields(schema, aggregate).map((f) => [f.name, fromColumn(f.type, row[columnName(f.name)])]));
  return { subject: row.subject as string, aggregate, artifact: row.artifact as string, seq: Number(row.seq), state };
}

function selectColumns(schema: Schema, aggregate: string): string {
  return `SELECT subject, artifact, seq${publicFields(schema, aggregate)
    .map((f) => `, ${quote(columnName(f.name))}`)
    .join("")} FROM ${quote(tableName(schema, aggregate))}`;
}

/** `tenant`'s record of `aggregate` (of `schema`) for `subject`, or null when it has none. */
export function readRecord(store: StoreView, schema: Schema, aggregate: string, tenant: string, subject: string): RecordRead | null {
  const row = store.prepare(`${selectColumns(schema, aggregate)} WHERE tenant = ? AND subject = ?`).get(tenant, subject) as Record<string, unknown> | undefined;
  return row === undefined ? null : toRecord(schema, aggregate, row);
}

/** Up to `limit` records of `aggregate` after subject `after` (in subject order), and the `after` of the next page or null. */
export function listRecords(store: StoreView, schema: Schema, aggregate: string, tenant: string, after: string, limit: number): { items: RecordRead[]; next: string | null } {
  const rows = store.prepare(`${selectColumns(schema, aggregate)} WHERE tenant = ? AND subject > ? ORDER BY subject LIMIT ?`).all(tenant, after, limit + 1) as Record<string, unknown>[];
  const items = rows.slice(0, limit).map((row) => toRecord(schema, aggregate, row));
  return { items, next: rows.length > limit ? (items.at(-1)?.subject ?? null) : null };
}

/** Up to `limit` history entries of a subject after seq `after`, and the `after` of the next page or null. */
export function readHistory(store: StoreView, tenant: string, namespace: string, aggregate: string, subject: string, after: number, limit: number): { entries: HistoryEntry[]; next: number | null } {
  // One more row than asked tells whether another page follows.
  const rows = store.prepare(HISTORY_SQL).all(tenant, namespace, aggregate, subject, after, limit + 1) as unknown as HistoryRow[];
  const entries = rows.slice(0, limit).map((r) => ({
    seq: Number(r.seq),
    action: r.action,
    signer: r.signer,
    outcome: r.outcome,
    reason: r.reason === null ? null : (JSON.parse(r.reason) as unknown),
    artifact: r.artifact,
    committedAt: new Date(Number(r.committed_at)).toISOString(),
    receipt: JSON.parse(r.receipt) as unknown,
  }));
  const last = entries.at(-1);
  return { entries, next: rows.length > limit && last !== undefined ? last.seq : null };
}
