/**
 * @module Checking a copied store by replaying part of its history: for a sample of subjects, every
 * history entry of the subject is run again, in order, through the contract program of the artifact
 * that decided it (the contract runtime the engine runs, contracts/runtime), from the default state
 * and with the entry's signer and time; the state digest before and after each entry must be the
 * one history recorded, and the last state the one the record's table holds. A copy that lost or
 * garbled entries, states or artifacts fails here even when SQLite finds the file sound.
 *
 * An upgrade's `migrate` entry rebuilt the record from its migration lines rather than an action:
 * from there on only the chain of digests is followed (each entry starts where the previous ended).
 */
import type { DatabaseSync } from "node:sqlite";
import { loadArtifact, type LoadedArtifact, type Outcome, type State } from "../../contracts/runtime/index.ts";
import { columnName, fromColumn, quote, tableName } from "../../contracts/storage/columns.ts";
import type { SchemaField } from "../../contracts/schema.ts";
import { stateDigest } from "../store/state-digest.ts";
import type { HistoryTable } from "../store/tables.ts";

/** How much history the check may replay. */
export interface ReplayLimits {
  /** Subjects sampled (spread over the whole history, the newest included). */
  readonly subjects: number;
  /** Entries one subject may have for it to be replayed; a subject with more is passed over. */
  readonly entriesPerSubject: number;
}

export const DEFAULT_REPLAY_LIMITS: ReplayLimits = { subjects: 200, entriesPerSubject: 5_000 };

/** What the check did, or the first mismatch it found. */
export type ReplayReport =
  | { readonly ok: true; readonly subjects: number; readonly entries: number }
  | { readonly ok: false; readonly message: string };

type Entry = Pick<HistoryTable, "seq" | "tenant" | "namespace" | "aggregate" | "subject" | "action" | "signer" | "artifact" | "outcome" | "args" | "command" | "before_digest" | "after_digest" | "committed_at">;

/** Replays a sample of the history of the store open on `db` (read-only is enough). */
export function replayCheck(db: DatabaseSync, limits: ReplayLimits = DEFAULT_REPLAY_LIMITS): ReplayReport {
  const maxSeq = Number((db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM history").get() as { seq: number }).seq);
  if (maxSeq === 0) return { ok: true, subjects: 0, entries: 0 };
  const at = db.prepare("SELECT tenant, namespace, aggregate, subject FROM history WHERE seq >= ? ORDER BY seq LIMIT 1");
  const count = db.prepare("SELECT count(*) AS n FROM history WHERE tenant = ? AND namespace = ? AND aggregate = ? AND subject = ?");
  const entries = db.prepare(
    "SELECT seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, args, command, before_digest, after_digest, committed_at " +
      "FROM history WHERE tenant = ? AND namespace = ? AND aggregate = ? AND subject = ? ORDER BY seq",
  );
  const programs = new Map<string, LoadedArtifact>();
  const program = (id: string): LoadedArtifact | null => {
    let p = programs.get(id);
    if (p === undefined) {
      const row = db.prepare("SELECT schema, wasm FROM artifacts WHERE id = ?").get(id) as { schema: string; wasm: Uint8Array } | undefined;
      if (row === undefined) return null;
      p = loadArtifact({ schema: row.schema, wasm: row.wasm });
      programs.set(id, p);
    }
    return p;
  };

  const seen = new Set<string>();
  let replayed = 0;
  let subjects = 0;
  // Evenly spaced sequence numbers, the last entry always among them.
  const wanted = Math.min(limits.subjects, maxSeq);
  for (let i = 0; i < wanted; i++) {
    const seq = wanted === 1 ? maxSeq : 1 + Math.round((i * (maxSeq - 1)) / (wanted - 1));
    const s = at.get(seq) as { tenant: string; namespace: string; aggregate: string; subject: string } | undefined;
    if (s === undefined) continue;
    const key = JSON.stringify([s.tenant, s.namespace, s.aggregate, s.subject]);
    if (seen.has(key)) continue;
    seen.add(key);
    const n = Number((count.get(s.tenant, s.namespace, s.aggregate, s.subject) as { n: number }).n);
    if (n > limits.entriesPerSubject) continue;
    const rows = entries.all(s.tenant, s.namespace, s.aggregate, s.subject) as unknown as Entry[];
    const problem = replaySubject(db, rows, program);
    if (problem !== null) return { ok: false, message: `${s.tenant}/${s.namespace}/${s.aggregate} '${s.subject}': ${problem}` };
    subjects++;
    replayed += rows.length;
  }
  return { ok: true, subjects, entries: replayed };
}

/** Replays one subject's entries; null when every digest matches, else what did not. */
function replaySubject(db: DatabaseSync, rows: readonly Entry[], program: (id: string) => LoadedArtifact | null): string | null {
  let state: State | null = null;
  let fields: readonly SchemaField[] = [];
  let digest: string | null = null;
  let last: { artifact: LoadedArtifact; replayed: boolean } | null = null;
  let chainOnly = false;
  let artifact: string | null = null;
  for (const h of rows) {
    const p = program(h.artifact);
    if (p === null) return `history entry ${h.seq} names artifact ${h.artifact}, which the store does not hold`;
    const migrated = h.action === "migrate" && h.command === "";
    // A version installed without `upgrades` keeps its records in tables of its own: the subject
    // starts over from the default state there.
    if (artifact !== null && h.artifact !== artifact && !migrated) {
      state = null;
      digest = null;
      chainOnly = false;
    }
    artifact = h.artifact;
    if (digest !== null && h.before_digest !== digest) return `history entry ${h.seq} starts from a state that the entry before it did not leave`;
    // A record made by an upgrade: no action to run again; the digests still chain.
    if (migrated) chainOnly = true;
    if (chainOnly) {
      digest = h.after_digest;
      last = { artifact: p, replayed: false };
      continue;
    }
    fields = p.schema.aggregates[h.aggregate]?.fields ?? [];
    const before: State = state ?? p.defaultState(h.aggregate);
    if (stateDigest(fields, before) !== h.before_digest) return `the state before history entry ${h.seq} does not match its digest`;
    let after: State = before;
    if (h.outcome === "accepted") {
      let outcome: Outcome;
      try {
        outcome = p.execute(`${h.aggregate}.${h.action}`, { state: before, args: JSON.parse(h.args) as Record<string, unknown>, context: { signer: h.signer, time: h.committed_at } });
      } catch (error) {
        return `history entry ${h.seq} does not run again (${(error as Error).message})`;
      }
      if (outcome.outcome !== "accepted") return `history entry ${h.seq} was accepted, but running it again refuses it (${outcome.reason.code})`;
      after = outcome.state;
    }
    state = after;
    digest = stateDigest(fields, after);
    if (digest !== h.after_digest) return `the state after history entry ${h.seq} does not match its digest`;
    last = { artifact: p, replayed: true };
  }
  if (last === null || !last.replayed || state === null) return null;
  const since = rows.filter((r) => r.artifact === artifact);
  const accepted = since.some((r) => r.outcome === "accepted");
  const stored = storedState(db, last.artifact, rows[0] as Entry);
  if (!accepted) return stored === null ? null : "the record exists though history accepted no action on it";
  if (stored === null) return "history accepted actions on it, but its record is missing";
  if (stateDigest(fields, stored) !== digest) return "its stored record is not the state its history replays to";
  return null;
}

/** The record's stored state in the table of `artifact`'s version, or null. */
function storedState(db: DatabaseSync, artifact: LoadedArtifact, h: Entry): State | null {
  const fields = artifact.schema.aggregates[h.aggregate]?.fields ?? [];
  const select = db.prepare(`SELECT ${["subject", ...fields.map((f) => quote(columnName(f.name)))].join(", ")} FROM ${quote(tableName(artifact.schema, h.aggregate))} WHERE tenant = ? AND subject = ?`);
  select.setReadBigInts(true);
  const row = select.get(h.tenant, h.subject) as Record<string, unknown> | undefined;
  if (row === undefined) return null;
  const state: State = {};
  for (const f of fields) state[f.name] = fromColumn(f.type, row[columnName(f.name)]);
  return state;
}
