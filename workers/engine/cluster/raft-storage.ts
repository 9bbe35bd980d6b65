/**
 * @module A voter's Raft storage: `DATA/raft.db`, its own SQLite file (synchronous FULL), apart
 * from the store so that a snapshot from the leader can replace the store without touching the
 * voter's term, vote and log. `write` applies the core's persist records in one transaction —
 * one fsync however many records a turn produced (group commit) — with the same meaning as
 * `applyPersist`; `load` hands the whole image back to `restore` after a restart.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { openDatabase } from "../../../shared/store/open.ts";
import type { LogEntry, PersistentState, PersistRecord } from "../raft/index.ts";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS raft_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    term INTEGER NOT NULL,
    voted_for TEXT,
    recovering INTEGER NOT NULL,
    snapshot_index INTEGER NOT NULL,
    snapshot_term INTEGER NOT NULL,
    snapshot_data TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS raft_log (
    idx INTEGER PRIMARY KEY,
    term INTEGER NOT NULL,
    data TEXT
  );
`;

/** The durable half of a voter. */
export class RaftStorage {
  readonly #db: DatabaseSync;
  readonly #state: StatementSync;
  readonly #append: StatementSync;
  readonly #truncate: StatementSync;
  readonly #compact: StatementSync;
  readonly #termAt: StatementSync;
  /** False when the file held nothing yet: a first start, or a voter that lost its disk. */
  readonly existed: boolean;

  constructor(path: string) {
    this.#db = openDatabase(path, { synchronous: "FULL" });
    this.#db.exec(SCHEMA);
    this.existed = this.#db.prepare("SELECT 1 FROM raft_state").get() !== undefined;
    this.#state = this.#db.prepare(
      "INSERT INTO raft_state (id, term, voted_for, recovering, snapshot_index, snapshot_term, snapshot_data) VALUES (1, ?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT (id) DO UPDATE SET term = excluded.term, voted_for = excluded.voted_for, recovering = excluded.recovering, " +
        "snapshot_index = excluded.snapshot_index, snapshot_term = excluded.snapshot_term, snapshot_data = excluded.snapshot_data",
    );
    this.#append = this.#db.prepare("INSERT OR REPLACE INTO raft_log (idx, term, data) VALUES (?, ?, ?)");
    this.#truncate = this.#db.prepare("DELETE FROM raft_log WHERE idx >= ?");
    this.#compact = this.#db.prepare("DELETE FROM raft_log WHERE idx <= ?");
    this.#termAt = this.#db.prepare("SELECT term FROM raft_log WHERE idx = ?");
  }

  /** Everything on disk, as `restore` wants it. */
  load(): PersistentState {
    const row = this.#db.prepare("SELECT * FROM raft_state").get() as
      | { term: number; voted_for: string | null; recovering: number; snapshot_index: number; snapshot_term: number; snapshot_data: string }
      | undefined;
    const snapshot = row === undefined ? { lastIndex: 0, lastTerm: 0, data: "" } : { lastIndex: row.snapshot_index, lastTerm: row.snapshot_term, data: row.snapshot_data };
    const rows = this.#db.prepare("SELECT idx, term, data FROM raft_log WHERE idx > ? ORDER BY idx").all(snapshot.lastIndex) as { idx: number; term: number; data: string | null }[];
    const log: LogEntry[] = rows.map((r) => (r.data === null ? { type: "no-op", index: r.idx, term: r.term } : { type: "command", index: r.idx, term: r.term, data: r.data }));
    return { term: row?.term ?? 0, votedFor: row?.voted_for ?? null, recovering: row?.recovering === 1, snapshot, log };
  }

  /** Makes `records` durable, in order, in one transaction (one fsync). */
  write(records: readonly PersistRecord[]): void {
    if (records.length === 0) return;
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      let snapshot = this.#currentSnapshot();
      let last: PersistRecord | undefined;
      for (const r of records) {
        if (r.snapshot !== undefined) {
          const s = r.snapshot;
          // The log past the snapshot stays only if it agrees with it (the same rule as applyPersist).
          const at = this.#termAt.get(s.lastIndex) as { term: number } | undefined;
          if (at !== undefined && at.term === s.lastTerm) this.#compact.run(s.lastIndex);
          else this.#db.exec("DELETE FROM raft_log");
          snapshot = s;
        }
        this.#truncate.run(r.fromIndex);
        for (const e of r.entries) this.#append.run(e.index, e.term, e.type === "command" ? e.data : null);
        last = r;
      }
      if (last !== undefined) this.#state.run(last.term, last.votedFor, last.recovering ? 1 : 0, snapshot.lastIndex, snapshot.lastTerm, snapshot.data);
      this.#db.exec("COMMIT");
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw error;
    }
  }

  #currentSnapshot(): { lastIndex: number; lastTerm: number; data: string } {
    const row = this.#db.prepare("SELECT snapshot_index, snapshot_term, snapshot_data FROM raft_state").get() as
      | { snapshot_index: number; snapshot_term: number; snapshot_data: string }
      | undefined;
    return row === undefined ? { lastIndex: 0, lastTerm: 0, data: "" } : { lastIndex: row.snapshot_index, lastTerm: row.snapshot_term, data: row.snapshot_data };
  }

  close(): void {
    this.#db.close();
  }
}
