/**
 * @module Counts over a tenant's history for a range of days (UTC): commands per day (accepted and
 * refused), refusals by reason code and by action, the busiest aggregates. History is not a source
 * of the query language, so these are read-only SQL over the `history` table; call inside one read
 * transaction (`StoreView.read`, `PersonReader.read`) so every count comes from one snapshot.
 *
 * Bounded whatever the store holds: the entries of the range are found by `seq` (a binary search on
 * the primary key: commit times follow `seq`), at most `maxEntries` of them are read — the newest,
 * when the range holds more, and the answer says from when its counts are complete — and the lists
 * are capped (REFUSING_ACTIONS_MAX, BUSIEST_MAX).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** History entries read at most per call (of every tenant: the window is one range of `seq`). */
export const ENTRIES_MAX = 100_000;
/** Longest range of days one call counts. */
export const DAYS_MAX = 366;
/** Actions listed at most under `refusals.byAction`, most refused first. */
export const REFUSING_ACTIONS_MAX = 20;
/** Aggregates listed at most under `busiest`, most commands first. */
export const BUSIEST_MAX = 10;

const DAY_MS = 86_400_000;

/** What `historyAnalytics` answers. */
export interface HistoryAnalytics {
  readonly tenant: string;
  /** The first and last day counted (`YYYY-MM-DD`, UTC), both included. */
  readonly from: string;
  readonly to: string;
  /** False when the range held more than the entries read: counts are complete from `countedFrom` on. */
  readonly complete: boolean;
  readonly countedFrom: string | null;
  readonly totals: Counts;
  /** Every day of the range, in order, with its counts (zero on a quiet day). */
  readonly days: readonly (Counts & { readonly date: string })[];
  readonly refusals: {
    readonly byReason: readonly { readonly code: string; readonly count: number }[];
    readonly byAction: readonly { readonly namespace: string; readonly action: string; readonly count: number }[];
  };
  readonly busiest: readonly { readonly namespace: string; readonly aggregate: string; readonly commands: number }[];
}

interface Counts {
  readonly commands: number;
  readonly accepted: number;
  readonly refused: number;
}

interface Group {
  day: number;
  namespace: string;
  aggregate: string;
  action: string;
  outcome: string;
  code: string | null;
  n: number;
}

interface Statements {
  readonly bounds: StatementSync;
  readonly atOrAfter: StatementSync;
  readonly groups: StatementSync;
}

const prepared = new WeakMap<DatabaseSync, Statements>();

function statementsOf(db: DatabaseSync): Statements {
  let s = prepared.get(db);
  if (s === undefined) {
    s = {
      bounds: db.prepare("SELECT min(seq) AS lo, max(seq) AS hi FROM history"),
      atOrAfter: db.prepare("SELECT seq, committed_at FROM history WHERE seq >= ? ORDER BY seq LIMIT 1"),
      groups: db.prepare(
        "SELECT CAST((committed_at - ?) / 86400000 AS INTEGER) AS day, namespace, aggregate, action, outcome, " +
          "CASE WHEN outcome = 'refused' AND json_valid(reason) THEN json_extract(reason, '$.code') END AS code, count(*) AS n " +
          "FROM history WHERE seq >= ? AND seq < ? AND tenant = ? AND committed_at >= ? AND committed_at < ? " +
          "GROUP BY 1, 2, 3, 4, 5, 6",
      ),
    };
    prepared.set(db, s);
  }
  return s;
}

/**
 * The counts of `tenant`'s history over `days` days from `from` (ms since the epoch, a UTC
 * midnight). Throws on a range of no day or more than DAYS_MAX days (the caller checks first).
 */
export function historyAnalytics(db: DatabaseSync, tenant: string, from: number, days: number, options: { maxEntries?: number } = {}): HistoryAnalytics {
  if (!Number.isInteger(days) || days < 1 || days > DAYS_MAX || from % DAY_MS !== 0) throw new Error(`not a range of 1 to ${DAYS_MAX} whole days: ${from} + ${days}`);
  const s = statementsOf(db);
  const end = from + days * DAY_MS;
  const max = options.maxEntries ?? ENTRIES_MAX;
  const bounds = s.bounds.get() as { lo: number | null; hi: number | null };
  let first = 0;
  let last = 0;
  let countedFrom: string | null = null;
  if (bounds.lo !== null && bounds.hi !== null) {
    first = firstAtOrAfter(s.atOrAfter, bounds.lo, bounds.hi, from);
    last = firstAtOrAfter(s.atOrAfter, bounds.lo, bounds.hi, end);
    if (last - first > max) {
      first = last - max;
      const row = s.atOrAfter.get(first) as { committed_at: number } | undefined;
      countedFrom = row === undefined ? null : new Date(Math.max(row.committed_at, from)).toISOString();
    }
  }
  const groups = (last > first ? s.groups.all(BigInt(from), first, last, tenant, from, end) : []) as unknown as Group[];
  return { tenant, from: dateOf(from), to: dateOf(end - DAY_MS), complete: countedFrom === null, countedFrom, ...fold(groups, from, days) };
}

/**
 * The smallest seq whose entry was committed at `time` or later (past the last entry when none
 * was): a binary search over `seq`, along which commit times grow. Gaps in `seq` are stepped over.
 */
function firstAtOrAfter(atOrAfter: StatementSync, lo: number, hi: number, time: number): number {
  let low = lo;
  let high = hi + 1;
  while (low < high) {
    const mid = low + Math.floor((high - low) / 2);
    const row = atOrAfter.get(mid) as { seq: number; committed_at: number } | undefined;
    if (row === undefined || row.committed_at >= time) high = mid;
    else low = row.seq + 1;
  }
  return low;
}

/** The answer's counts from the grouped rows. */
function fold(groups: readonly Group[], from: number, days: number): Pick<HistoryAnalytics, "totals" | "days" | "refusals" | "busiest"> {
  const perDay = Array.from({ length: days }, () => ({ commands: 0, accepted: 0, refused: 0 }));
  const byReason = new Map<string, number>();
  const byAction = new Map<string, { namespace: string; action: string; count: number }>();
  const busiest = new Map<string, { namespace: string; aggregate: string; commands: number }>();
  for (const g of groups) {
    const day = perDay[g.day];
    if (day === undefined) continue;
    const refused = g.outcome === "refused";
    day.commands += g.n;
    if (refused) day.refused += g.n;
    else day.accepted += g.n;
    const at = `${g.namespace}\u0000${g.aggregate}`;
    const aggregate = busiest.get(at) ?? { namespace: g.namespace, aggregate: g.aggregate, commands: 0 };
    aggregate.commands += g.n;
    busiest.set(at, aggregate);
    if (!refused) continue;
    const code = g.code ?? "unknown";
    byReason.set(code, (byReason.get(code) ?? 0) + g.n);
    const key = `${g.namespace}\u0000${g.action}`;
    const action = byAction.get(key) ?? { namespace: g.namespace, action: g.action, count: 0 };
    action.count += g.n;
    byAction.set(key, action);
  }
  const totals = perDay.reduce((t, d) => ({ commands: t.commands + d.commands, accepted: t.accepted + d.accepted, refused: t.refused + d.refused }), { commands: 0, accepted: 0, refused: 0 });
  return {
    totals,
    days: perDay.map((d, i) => ({ date: dateOf(from + i * DAY_MS), ...d })),
    refusals: {
      byReason: [...byReason].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
      byAction: [...byAction.values()].sort((a, b) => b.count - a.count || a.namespace.localeCompare(b.namespace) || a.action.localeCompare(b.action)).slice(0, REFUSING_ACTIONS_MAX),
    },
    busiest: [...busiest.values()].sort((a, b) => b.commands - a.commands || a.namespace.localeCompare(b.namespace) || a.aggregate.localeCompare(b.aggregate)).slice(0, BUSIEST_MAX),
  };
}

function dateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
