/**
 * @module The webhook deliveries as settings show them: the journal's `hook` entries, newest first,
 * each with what came of it — `pending` (admitted, not acted on yet), `done` (with the command it
 * made), `ignored` (no mapping matched it), `failed` (dead-lettered, with the reason). Read from the
 * store's journal in the gateway's read-only view, a few small members of each entry only (never
 * the bodies), so a page costs the same whatever the deliveries held.
 */
import type { DatabaseSync } from "node:sqlite";
import { HOOK_TOPIC } from "../../../../shared/protocol/outbox.ts";

/** A delivery's state as shown. */
export type DeliveryStatus = "pending" | "done" | "ignored" | "failed";

/** Which deliveries a list holds. */
export type DeliveryFilter = DeliveryStatus | "all";
export const DELIVERY_FILTERS: readonly DeliveryFilter[] = ["all", "pending", "done", "ignored", "failed"];

/** A delivery as `/api/settings/integrations/webhooks` answers it. */
export interface DeliveryView {
  readonly id: string;
  readonly source: string;
  readonly delivery: string;
  readonly event: string;
  readonly action: string;
  readonly status: DeliveryStatus;
  /** Why it was ignored or failed (for a pending one, why its last attempt failed); else null. */
  readonly reason: string | null;
  readonly attempts: number;
  readonly receivedAt: number;
  readonly finishedAt: number | null;
  /** The command it made (done): what it did, its receipt's seq and JWS. */
  readonly command: { readonly namespace: string; readonly action: string; readonly subject: string; readonly seq: number; readonly jws: string } | null;
}

const WHERE: Readonly<Record<DeliveryFilter, string>> = {
  all: "1",
  pending: "state IN ('ready', 'claimed')",
  done: "state = 'done' AND json_extract(result, '$.outcome') = 'done'",
  ignored: "state = 'done' AND json_extract(result, '$.outcome') = 'ignored'",
  failed: "state = 'dead'",
};

interface Row {
  id: number;
  state: "ready" | "claimed" | "done" | "dead";
  attempts: number;
  last_error: string | null;
  result: string | null;
  created_at: number;
  done_at: number | null;
  source: unknown;
  delivery: unknown;
  event: unknown;
  action: unknown;
  received_at: unknown;
}

const COLUMNS = `id, state, attempts, last_error, result, created_at, done_at,
  json_extract(payload, '$.source') AS source, json_extract(payload, '$.delivery') AS delivery,
  json_extract(payload, '$.event') AS event, json_extract(payload, '$.action') AS action,
  json_extract(payload, '$.receivedAt') AS received_at`;

/** The deliveries of `filter` before entry `before` (newest first), at most `limit`, and whether more follow. */
export function listDeliveries(db: DatabaseSync, filter: DeliveryFilter, before: number | null, limit: number): { items: DeliveryView[]; more: boolean } {
  const rows = db
    .prepare(`SELECT ${COLUMNS} FROM journal WHERE topic = ? AND id < ? AND ${WHERE[filter]} ORDER BY id DESC LIMIT ?`)
    .all(HOOK_TOPIC, before ?? Number.MAX_SAFE_INTEGER, limit + 1) as unknown as Row[];
  return { items: rows.slice(0, limit).map(deliveryView), more: rows.length > limit };
}

/** Delivery `id` (a journal entry of the `hook` topic), or null. */
export function getDelivery(db: DatabaseSync, id: number): DeliveryView | null {
  const row = db.prepare(`SELECT ${COLUMNS} FROM journal WHERE topic = ? AND id = ?`).get(HOOK_TOPIC, id) as Row | undefined;
  return row === undefined ? null : deliveryView(row);
}

/** A delivery id as the routes take it (`hook-<entry>`): the journal entry, or null. */
export function deliveryNumber(id: string): number | null {
  const m = /^hook-(\d{1,15})$/.exec(id);
  return m === null ? null : Number(m[1]);
}

function deliveryView(row: Row): DeliveryView {
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  const result = row.result === null ? null : (JSON.parse(row.result) as { outcome?: unknown; reason?: unknown; command?: Record<string, unknown> } | null);
  const status: DeliveryStatus = row.state === "dead" ? "failed" : row.state === "done" ? (result?.outcome === "ignored" ? "ignored" : "done") : "pending";
  const c = status === "done" ? result?.command : undefined;
  return {
    id: `hook-${row.id}`,
    source: text(row.source),
    delivery: text(row.delivery),
    event: text(row.event),
    action: text(row.action),
    status,
    reason: status === "ignored" ? text(result?.reason) : row.last_error,
    attempts: row.attempts,
    receivedAt: typeof row.received_at === "number" ? row.received_at : row.created_at,
    finishedAt: row.done_at,
    command:
      c === undefined
        ? null
        : { namespace: text(c.namespace), action: text(c.action), subject: text(c.subject), seq: typeof c.seq === "number" ? c.seq : 0, jws: text(c.receipt) },
  };
}
