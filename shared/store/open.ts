/**
 * @module Opening the store: one SQLite file in WAL mode. The engine opens the only writer; every
 * other worker opens a read-only connection to the same file.
 */
import { DatabaseSync } from "node:sqlite";

/** How a connection is opened. `synchronous` FULL makes each commit durable on its own fsync. */
export interface OpenOptions {
  readonly readOnly?: boolean;
  readonly synchronous?: "FULL" | "NORMAL" | "OFF";
  /** Runs before anything is changed (even the journal mode); a throw closes the file untouched. */
  readonly check?: (db: DatabaseSync) => void;
}

/** Opens `path` with the pragmas every Charter connection uses. */
export function openDatabase(path: string, options: OpenOptions = {}): DatabaseSync {
  const db = new DatabaseSync(path, { readOnly: options.readOnly ?? false, timeout: 5000 });
  try {
    options.check?.(db);
  } catch (error) {
    db.close();
    throw error;
  }
  // Reads must not wait for a writer and writers must not block readers: WAL for both sides.
  if (!options.readOnly) {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA synchronous = ${options.synchronous ?? "FULL"}`);
  }
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

/**
 * Runs `fn` inside one `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws. Inside a transaction
 * already open, `fn` simply joins it, so callers compose.
 */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  if (db.isTransaction) return fn();
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}
