/**
 * @module Copying a live SQLite database while its writer keeps writing: a read connection of this
 * process copies one consistent snapshot of it to a new file, and the copy is made self-contained
 * (rollback-journal mode, no `-wal` beside it, synced, 0600).
 *
 * How, measured on the 2-core machine (a 900 MB database, a writer committing small transactions
 * with `synchronous=FULL` every few ms, the copy in another process; bench/backup.ts on a real node):
 * - the backup API a few pages a step (`rate: 100`, SQLite's usual way) restarts whenever another
 *   connection writes the source between two steps: under constant writes it never finished;
 * - the backup API with every page in one step reads one snapshot and never restarts, but it writes
 *   the whole copy before it syncs it, and that sync flushes hundreds of megabytes through the
 *   filesystem's journal that the engine's own fsync then waits behind: commits stalled 100–210 ms;
 *   `VACUUM INTO` does the same, and rebuilds every table and index besides (twice the CPU);
 * - the backup API 8 MiB a step inside one read transaction held on the source connection: every
 *   step reads the same snapshot (nothing to restart), and the copy is synced after each step, so
 *   never more than 8 MiB waits to be written: no commit over 30 ms, the copy as fast (2 s for 900 MB).
 * So: the last. A WAL reader never blocks the writer; it only keeps the WAL from being reset while
 * it reads, so the engine's WAL grows for the copy's duration.
 */
import { closeSync, fdatasyncSync, fsyncSync, openSync, rmSync } from "node:fs";
import { backup } from "node:sqlite";
import type { DatabaseSync } from "node:sqlite";
import { openDatabase } from "../store/open.ts";

/** Pages per backup step (8 MiB of 4 KiB pages): what may wait to be written at any time. */
const STEP_PAGES = 2048;

/** How a database is copied: the backup API in synced steps (the default), or `VACUUM INTO` (compacts; stalls the writer's syncs). */
export type CopyMethod = "backup-api" | "vacuum-into";

/** Copies the database at `source` to the new file `target`; answers its schema version (`user_version`). */
export async function copyDatabase(source: string, target: string, method: CopyMethod = "backup-api"): Promise<{ schemaVersion: number }> {
  rmSync(target, { force: true });
  // Created 0600 before SQLite writes it (SQLite would make it 0644 less the umask).
  const fd = openSync(target, "wx", 0o600);
  const db = openDatabase(source, { readOnly: true });
  try {
    if (method === "vacuum-into") db.exec(`VACUUM INTO '${target.replaceAll("'", "''")}'`);
    else {
      // One read transaction for every step: the snapshot cannot move under the copy.
      db.exec("BEGIN");
      db.prepare("SELECT count(*) FROM sqlite_master").get();
      await backup(db, target, { rate: STEP_PAGES, progress: () => fdatasyncSync(fd) });
      db.exec("COMMIT");
    }
  } finally {
    if (db.isTransaction) db.exec("ROLLBACK");
    db.close();
    closeSync(fd);
  }
  const copy = openDatabase(target);
  let schemaVersion: number;
  try {
    // A backup is one file: no -wal or -shm beside it. A node that opens it turns WAL on again.
    copy.exec("PRAGMA journal_mode = DELETE");
    schemaVersion = userVersion(copy);
  } finally {
    copy.close();
  }
  for (const leftover of [`${target}-wal`, `${target}-shm`, `${target}-journal`]) rmSync(leftover, { force: true });
  syncFile(target);
  return { schemaVersion };
}

/** `PRAGMA integrity_check` of a database file: null when it is sound, else SQLite's first complaints. */
export function integrityProblem(path: string): string | null {
  const db = openDatabase(path, { readOnly: true });
  try {
    const rows = db.prepare("PRAGMA integrity_check(20)").all() as { integrity_check: string }[];
    const lines = rows.map((r) => r.integrity_check);
    return lines.length === 1 && lines[0] === "ok" ? null : lines.join("; ");
  } finally {
    db.close();
  }
}

/** The schema version a database's writer recorded. */
export function userVersion(db: DatabaseSync): number {
  return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
}

/** fsync of one file (or directory), so that a finished backup survives a power loss. */
export function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
