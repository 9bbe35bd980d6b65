/**
 * @module The Activity view's data: certified commands from the history, newest first, with the
 * reason of each refusal, filtered by tenant / namespace / outcome (and action, subject, signer,
 * refusal code, or words) in SQL so a filter reaches past the newest rows.
 */
import { type Kysely, sql } from "kysely";
import type { RefusalReason } from "../shared/identity/receipt.ts";
import type { StoreTables } from "../shared/store/tables.ts";
import type { Filter } from "./filter.ts";

/**
 * Why a command was refused, as the engine recorded it (its receipt's reason); the code is shown as
 * stored, so a store written by a newer Charter, with a code this one does not know, still reads.
 */
export type Refusal = Omit<RefusalReason, "code"> & { readonly code: string };

export interface ActivityEntry {
  readonly seq: number;
  readonly committedAt: number;
  readonly tenant: string;
  readonly namespace: string;
  readonly action: string;
  readonly subject: string;
  readonly signer: string;
  readonly artifact: string;
  readonly outcome: "accepted" | "refused";
  readonly reason: Refusal | null;
}

export interface Activity {
  readonly entries: readonly ActivityEntry[];
  /** The newest history sequence number (0 when empty): how far the history reaches, unfiltered. */
  readonly latestSeq: number;
}

/** The newest `limit` history entries matching `filter`, newest first. */
export async function readActivity(db: Kysely<StoreTables>, filter: Filter, limit: number): Promise<Activity> {
  let query = db
    .selectFrom("history")
    .select(["seq", "committed_at", "tenant", "namespace", "action", "subject", "signer", "artifact", "outcome", "reason"])
    .orderBy("seq", "desc")
    .limit(limit);
  for (const key of ["tenant", "namespace", "outcome", "action", "subject", "signer"] as const) {
    const values = filter.fields.get(key);
    if (values !== undefined) query = query.where(key, "in", values);
  }
  const codes = filter.fields.get("code");
  if (codes !== undefined) query = query.where(sql<string>`json_extract(reason, '$.code')`, "in", codes);
  for (const word of filter.words) {
    const like = `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const hay = sql<string>`lower(tenant || ' ' || namespace || ' ' || action || ' ' || subject || ' ' || signer || ' ' || outcome || ' ' || coalesce(reason, ''))`;
    query = query.where(sql<boolean>`${hay} LIKE ${like} ESCAPE '\\'`);
  }
  const rows = await query.execute();
  // MAX over the primary key is one index probe; a count would scan a history of millions per refresh.
  const latest = await db.selectFrom("history").select((eb) => eb.fn.max("seq").as("seq")).executeTakeFirst();
  return {
    entries: rows.map((r) => ({
      seq: r.seq,
      committedAt: r.committed_at,
      tenant: r.tenant,
      namespace: r.namespace,
      action: r.action,
      subject: r.subject,
      signer: r.signer,
      artifact: r.artifact,
      outcome: r.outcome,
      reason: parseReason(r.reason),
    })),
    latestSeq: Number(latest?.seq ?? 0),
  };
}

/** The stored reason JSON as a Refusal; text that is not the expected shape is kept as its message. */
export function parseReason(text: string | null): Refusal | null {
  if (text === null) return null;
  try {
    const r = JSON.parse(text) as Record<string, unknown>;
    return {
      code: typeof r.code === "string" ? r.code : "unknown",
      condition: typeof r.condition === "string" ? r.condition : null,
      line: typeof r.line === "number" ? r.line : null,
      message: typeof r.message === "string" ? r.message : "",
    };
  } catch {
    return { code: "unknown", condition: null, line: null, message: text };
  }
}
