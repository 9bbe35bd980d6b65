/**
 * @module The durable journal: the one way workers hand each other work that must survive a crash.
 *
 * Entries are appended (inside the caller's transaction when there is one, so work and the state it
 * belongs to commit together), claimed with a lease, then acked, or failed and retried with
 * exponential back-off until they are dead-lettered with their last error. A claim whose holder died
 * comes back when the lease runs out, or at once when the supervisor releases the dead holder's
 * claims. Delivery is at-least-once and nothing is lost; consumers make effects exactly-once with
 * the entry id or key. An acked entry is never delivered again: `ack` only succeeds for the current
 * holder of a live claim, and done entries are never claimable.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { type Clock, systemClock } from "./clock.ts";
import { transaction } from "./store/open.ts";

/** A journal entry as handed to a consumer. */
export interface JournalEntry {
  readonly id: number;
  readonly topic: string;
  readonly key: string | null;
  readonly payload: unknown;
  readonly attempts: number;
}

/** Tunables; the defaults suit effects that talk to the outside world. */
export interface JournalOptions {
  readonly leaseMs?: number;
  readonly maxAttempts?: number;
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
}

/** What `fail` did with the entry. `stale`: the caller no longer held the claim, nothing changed. */
export type FailResult = "retry" | "dead" | "stale";

/** An entry as a list shows it (the outbox's pending, done and dead lists). */
export interface JournalListEntry {
  readonly id: number;
  readonly key: string | null;
  readonly payload: unknown;
  readonly state: "ready" | "claimed" | "done" | "dead";
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly lastError: string | null;
  readonly result: unknown;
  readonly createdAt: number;
  readonly availableAt: number;
  readonly doneAt: number | null;
}

/** How a failed attempt is handled: `retryInMs` instead of the journal's own back-off; `permanent`: dead at once. */
export interface FailOptions {
  readonly retryInMs?: number;
  readonly permanent?: boolean;
}

/** Counts per state, for /health and the console. */
export interface JournalStats {
  readonly ready: number;
  readonly claimed: number;
  readonly done: number;
  readonly dead: number;
}

const LAST_ATTEMPT_LOST = "its holder stopped (died or lease expired) during the last attempt";

interface ListRow {
  id: number;
  key: string | null;
  payload: string;
  state: JournalListEntry["state"];
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  result: string | null;
  created_at: number;
  available_at: number;
  done_at: number | null;
}

function listEntry(r: ListRow): JournalListEntry {
  return {
    id: r.id,
    key: r.key,
    payload: JSON.parse(r.payload) as unknown,
    state: r.state,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    lastError: r.last_error,
    result: r.result === null ? null : (JSON.parse(r.result) as unknown),
    createdAt: r.created_at,
    availableAt: r.available_at,
    doneAt: r.done_at,
  };
}

interface Row {
  id: number;
  topic: string;
  key: string | null;
  payload: string;
  attempts: number;
}

/** The journal over the store's writer connection. */
export class Journal {
  readonly #db: DatabaseSync;
  readonly #clock: Clock;
  readonly #leaseMs: number;
  readonly #maxAttempts: number;
  readonly #backoffBaseMs: number;
  readonly #backoffMaxMs: number;
  readonly #insert: StatementSync;
  readonly #byKey: StatementSync;
  readonly #ack: StatementSync;
  readonly #retry: StatementSync;
  readonly #dead: StatementSync;
  readonly #current: StatementSync;
  readonly #release: StatementSync;
  readonly #exhausted: StatementSync;
  readonly #exhaustedBy: StatementSync;
  readonly #claims = new Map<number, StatementSync>();
  /** The statements of `compact`, by payload member. */
  readonly #compactions = new Map<string, { select: StatementSync; update: StatementSync }>();
  #complete: StatementSync | null = null;

  constructor(db: DatabaseSync, clock: Clock = systemClock, options: JournalOptions = {}) {
    this.#db = db;
    this.#clock = clock;
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#maxAttempts = options.maxAttempts ?? 8;
    this.#backoffBaseMs = options.backoffBaseMs ?? 500;
    this.#backoffMaxMs = options.backoffMaxMs ?? 60_000;
    this.#insert = db.prepare(
      "INSERT INTO journal (topic, key, payload, max_attempts, available_at, created_at) VALUES (?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT (topic, key) WHERE key IS NOT NULL DO NOTHING",
    );
    this.#byKey = db.prepare("SELECT id FROM journal WHERE topic = ? AND key = ?");
    this.#ack = db.prepare(
      "UPDATE journal SET state = 'done', done_at = ?, claimed_by = NULL, lease_until = NULL WHERE id = ? AND state = 'claimed' AND claimed_by = ?",
    );
    this.#current = db.prepare("SELECT attempts, max_attempts FROM journal WHERE id = ? AND state = 'claimed' AND claimed_by = ?");
    this.#retry = db.prepare(
      "UPDATE journal SET state = 'ready', claimed_by = NULL, lease_until = NULL, available_at = ?, last_error = ? WHERE id = ?",
    );
    this.#dead = db.prepare(
      "UPDATE journal SET state = 'dead', claimed_by = NULL, lease_until = NULL, done_at = ?, last_error = ? WHERE id = ?",
    );
    this.#release = db.prepare(
      "UPDATE journal SET state = 'ready', claimed_by = NULL, lease_until = NULL WHERE state = 'claimed' AND claimed_by = ?",
    );
    // An entry whose holder died on its last attempt is dead-lettered instead of handed out again,
    // so an entry that crashes every worker that takes it cannot loop forever.
    this.#exhausted = db.prepare(
      "UPDATE journal SET state = 'dead', done_at = ?, last_error = ?, claimed_by = NULL, lease_until = NULL " +
        "WHERE state = 'claimed' AND lease_until <= ? AND attempts >= max_attempts",
    );
    this.#exhaustedBy = db.prepare(
      "UPDATE journal SET state = 'dead', done_at = ?, last_error = ?, claimed_by = NULL, lease_until = NULL " +
        "WHERE state = 'claimed' AND claimed_by = ? AND attempts >= max_attempts",
    );
  }

  /**
   * Appends an entry and returns its id. With a `key`, appending the same (topic, key) again returns
   * the first entry's id and adds nothing, so producers can retry safely.
   */
  append(topic: string, payload: unknown, options: { key?: string; delayMs?: number; maxAttempts?: number } = {}): number {
    return this.#appendOne(topic, payload, options).id;
  }

  /**
   * Appends `entries` in one transaction, so one commit (one fsync) carries them all, and answers
   * for each its id and whether it was added now (`false`: its (topic, key) was there already).
   */
  appendMany(entries: readonly { topic: string; payload: unknown; key?: string; delayMs?: number; maxAttempts?: number }[]): { id: number; added: boolean }[] {
    return transaction(this.#db, () => entries.map((e) => this.#appendOne(e.topic, e.payload, e)));
  }

  #appendOne(topic: string, payload: unknown, options: { key?: string; delayMs?: number; maxAttempts?: number }): { id: number; added: boolean } {
    const now = this.#clock.now();
    const key = options.key ?? null;
    const r = this.#insert.run(topic, key, JSON.stringify(payload ?? null), options.maxAttempts ?? this.#maxAttempts, now + (options.delayMs ?? 0), now);
    if (r.changes === 1) return { id: Number(r.lastInsertRowid), added: true };
    const existing = this.#byKey.get(topic, key) as { id: number } | undefined;
    if (existing === undefined) throw new Error("journal: insert ignored but no entry with that key");
    return { id: existing.id, added: false };
  }

  /**
   * Claims up to `limit` due entries of `topics` for `claimant`, oldest first: ready entries whose
   * back-off has passed, and claimed entries whose lease ran out (their holder is presumed dead).
   */
  claim(claimant: string, topics: readonly string[], limit: number, leaseMs = this.#leaseMs): JournalEntry[] {
    if (topics.length === 0 || limit <= 0) return [];
    const now = this.#clock.now();
    const rows = transaction(this.#db, () => {
      this.#exhausted.run(now, LAST_ATTEMPT_LOST, now);
      return this.#claimStatement(topics.length).all(claimant, now + leaseMs, ...topics, now, now, limit) as unknown as Row[];
    });
    return rows
      .sort((a, b) => a.id - b.id)
      .map((r) => ({ id: r.id, topic: r.topic, key: r.key, payload: JSON.parse(r.payload) as unknown, attempts: r.attempts }));
  }

  /** Marks entries done. Returns the ids that were acked; an id the claimant no longer holds is skipped. */
  ack(claimant: string, ids: readonly number[]): number[] {
    const now = this.#clock.now();
    const done: number[] = [];
    transaction(this.#db, () => {
      for (const id of ids) if (this.#ack.run(now, id, claimant).changes === 1) done.push(id);
    });
    return done;
  }

  /**
   * Marks each entry done with what it produced (`result`, kept as JSON), all in one transaction.
   * Returns the ids that were completed; an id the claimant no longer holds is skipped.
   */
  complete(claimant: string, done: readonly { id: number; result: unknown }[]): number[] {
    const now = this.#clock.now();
    const completed: number[] = [];
    const statement = this.#completeStatement();
    transaction(this.#db, () => {
      for (const d of done) if (statement.run(now, JSON.stringify(d.result ?? null), d.id, claimant).changes === 1) completed.push(d.id);
    });
    return completed;
  }

  /** Reports a failed attempt: retried after back-off, or dead-lettered after its last attempt (or at once when `permanent`). */
  fail(claimant: string, id: number, error: string, options: FailOptions = {}): FailResult {
    const row = this.#current.get(id, claimant) as { attempts: number; max_attempts: number } | undefined;
    if (row === undefined) return "stale";
    const now = this.#clock.now();
    if (options.permanent === true || row.attempts >= row.max_attempts) {
      this.#dead.run(now, error, id);
      return "dead";
    }
    this.#retry.run(now + (options.retryInMs ?? this.backoff(row.attempts)), error, id);
    return "retry";
  }

  /**
   * Entries of `topic` in `states`, by id after `after`, at most `limit`; newest first when
   * `newestFirst` (ids before `after` then).
   */
  list(topic: string, states: readonly JournalListEntry["state"][], options: { after?: number; limit: number; newestFirst?: boolean }): JournalListEntry[] {
    if (states.length === 0) return [];
    const marks = states.map(() => "?").join(", ");
    const newest = options.newestFirst === true;
    const rows = this.#db
      .prepare(
        `SELECT id, key, payload, state, attempts, max_attempts, last_error, result, created_at, available_at, done_at FROM journal
         WHERE topic = ? AND state IN (${marks}) AND id ${newest ? "<" : ">"} ? ORDER BY id ${newest ? "DESC" : "ASC"} LIMIT ?`,
      )
      .all(topic, ...states, options.after ?? (newest ? Number.MAX_SAFE_INTEGER : 0), options.limit) as unknown as ListRow[];
    return rows.map(listEntry);
  }

  /** Entry `id` of `topic`, or null. */
  get(topic: string, id: number): JournalListEntry | null {
    const row = this.#db
      .prepare("SELECT id, key, payload, state, attempts, max_attempts, last_error, result, created_at, available_at, done_at FROM journal WHERE topic = ? AND id = ?")
      .get(topic, id) as ListRow | undefined;
    return row === undefined ? null : listEntry(row);
  }

  /** A dead entry of `topic` made ready again with its attempts counted from nothing; false when `id` is not a dead entry of `topic`. */
  revive(topic: string, id: number): boolean {
    const now = this.#clock.now();
    const r = this.#db
      .prepare("UPDATE journal SET state = 'ready', attempts = 0, available_at = ?, done_at = NULL WHERE topic = ? AND id = ? AND state = 'dead'")
      .run(now, topic, id);
    return r.changes === 1;
  }

  /** Removes a dead entry of `topic` for good; false when `id` is not a dead entry of `topic`. */
  drop(topic: string, id: number): boolean {
    return this.#db.prepare("DELETE FROM journal WHERE topic = ? AND id = ? AND state = 'dead'").run(topic, id).changes === 1;
  }

  /** Returns every claim held by `claimant` (a worker that died) to the ready state at once. */
  release(claimant: string): number {
    const now = this.#clock.now();
    return transaction(this.#db, () => {
      const dead = this.#exhaustedBy.run(now, LAST_ATTEMPT_LOST, claimant).changes;
      return Number(dead) + Number(this.#release.run(claimant).changes);
    });
  }

  /** Back-off before attempt `attempts + 1`: base·2^(attempts−1), capped. Deterministic. */
  backoff(attempts: number): number {
    return Math.min(this.#backoffMaxMs, this.#backoffBaseMs * 2 ** Math.max(0, attempts - 1));
  }

  /** Entry counts per state. */
  stats(): JournalStats {
    const counts = { ready: 0, claimed: 0, done: 0, dead: 0 };
    for (const r of this.#db.prepare("SELECT state, count(*) AS n FROM journal GROUP BY state").all() as { state: keyof JournalStats; n: number }[]) {
      counts[r.state] = r.n;
    }
    return counts;
  }

  /**
   * Empties member `member` (a top-level string of the payload) of the done entries of `topic`
   * finished before `before` (ms) among entries `afterId + 1` to `throughId` — a bounded range, so
   * one call reads a bounded part of the journal — and stamps each `compactedAt: now`: the entry,
   * its key (what admits a delivery once) and its result stay, the bulk it carried goes. Dead and
   * pending entries are never touched (they may still be acted on). Answers how many it compacted.
   */
  compact(topic: string, member: string, before: number, afterId: number, throughId: number): number {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(member)) throw new Error(`not a payload member: ${member}`);
    let statements = this.#compactions.get(member);
    if (statements === undefined) {
      statements = {
        select: this.#db.prepare(
          `SELECT id FROM journal WHERE id > ? AND id <= ? AND topic = ? AND state = 'done' AND done_at < ?
             AND json_type(payload, '$.compactedAt') IS NULL AND json_type(payload, '$.${member}') = 'text'`,
        ),
        update: this.#db.prepare(`UPDATE journal SET payload = json_set(payload, '$.${member}', '', '$.compactedAt', ?) WHERE id = ?`),
      };
      this.#compactions.set(member, statements);
    }
    const { select, update } = statements;
    return transaction(this.#db, () => {
      const ids = select.all(afterId, throughId, topic, before) as { id: number }[];
      const now = this.#clock.now();
      for (const { id } of ids) update.run(now, id);
      return ids.length;
    });
  }

  /** The newest entry's id (0 when the journal is empty). */
  lastId(): number {
    return Number((this.#db.prepare("SELECT coalesce(max(id), 0) AS id FROM journal").get() as { id: number | bigint }).id);
  }

  /** Deletes done entries finished before `before` (ms); dead ones stay for inspection. */
  prune(before: number): number {
    return Number(this.#db.prepare("DELETE FROM journal WHERE state = 'done' AND done_at < ?").run(before).changes);
  }

  #completeStatement(): StatementSync {
    this.#complete ??= this.#db.prepare(
      "UPDATE journal SET state = 'done', done_at = ?, result = ?, claimed_by = NULL, lease_until = NULL WHERE id = ? AND state = 'claimed' AND claimed_by = ?",
    );
    return this.#complete;
  }

  #claimStatement(topicCount: number): StatementSync {
    let statement = this.#claims.get(topicCount);
    if (statement === undefined) {
      const marks = Array.from({ length: topicCount }, () => "?").join(", ");
      statement = this.#db.prepare(
        `UPDATE journal SET state = 'claimed', claimed_by = ?, lease_until = ?, attempts = attempts + 1
         WHERE id IN (
           SELECT id FROM journal WHERE topic IN (${marks}) AND state IN ('ready', 'claimed')
             AND ((state = 'ready' AND available_at <= ?) OR (state = 'claimed' AND lease_until <= ?))
           ORDER BY id LIMIT ?)
         RETURNING id, topic, key, payload, attempts`,
      );
      this.#claims.set(topicCount, statement);
    }
    return statement;
  }
}
