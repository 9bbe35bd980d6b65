/**
 * @module Opening the store for the console without ever changing the data directory.
 *
 * A plain read-only SQLite connection to a WAL database creates `-wal` and `-shm` files when they
 * are missing and leaves them behind, so it is only used while a node runs (the node has made
 * them). With the node stopped and no WAL content the file is opened `immutable`: SQLite takes no
 * locks and creates nothing. With the node stopped and committed pages still in the WAL (it was
 * killed), `immutable` would not see them, so the console reads a private copy of the file and
 * its WAL in a temporary directory instead.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import type { Kysely } from "kysely";
import { kyselyFor } from "../shared/store/kysely.ts";
import { schemaVersion } from "../shared/store/migrations.ts";
import type { StoreTables } from "../shared/store/tables.ts";

/** How the store is being read: following a running node, a stopped store as it is, a copy, or none. */
export type StoreMode = "live" | "immutable" | "snapshot" | "absent";

/** The schema version whose tables the console reads (tenants, installs, history). */
const ENGINE_SCHEMA = 2;

export interface StoreReader {
  readonly mode: StoreMode;
  /** Typed reads; null when there is no store or its tables do not exist yet. */
  readonly kysely: Kysely<StoreTables> | null;
  /** SQLite's data_version: changes whenever another connection commits (live mode only). */
  dataVersion(): number;
  close(): void;
}

const absent: StoreReader = Object.freeze({ mode: "absent" as const, kysely: null, dataVersion: () => 0, close: () => {} });

/** Opens `DATA/charter.db` for reading; `nodeRunning` says whether a live node holds the directory. */
export function openStoreReader(dataDir: string, nodeRunning: boolean): StoreReader {
  const opened = openReadOnly(join(dataDir, "charter.db"), nodeRunning);
  return opened === null ? absent : reader(opened.mode, opened.db, opened.copyDir);
}

/** A SQLite file opened without changing anything next to it; `close` also removes a private copy. */
export interface ReadOnlyDatabase {
  readonly mode: Exclude<StoreMode, "absent">;
  readonly db: DatabaseSync;
  readonly copyDir: string | null;
  close(): void;
}

/**
 * Opens any of the node's SQLite files (`charter.db`, `sync.db`, `accounts.db`) the same way;
 * null when the file does not exist. `live` says a running process holds the file open (its
 * `-wal` and `-shm` exist), so a plain read-only connection creates nothing.
 */
export function openReadOnly(path: string, live: boolean): ReadOnlyDatabase | null {
  if (!existsSync(path)) return null;
  const done = (mode: ReadOnlyDatabase["mode"], db: DatabaseSync, copyDir: string | null): ReadOnlyDatabase => ({
    mode,
    db,
    copyDir,
    close: () => {
      db.close();
      if (copyDir !== null) rmSync(copyDir, { recursive: true, force: true });
    },
  });
  if (live) return done("live", new DatabaseSync(path, { readOnly: true, timeout: 1000 }), null);
  if (walSize(path) === 0) {
    const url = pathToFileURL(path);
    url.searchParams.set("immutable", "1");
    return done("immutable", new DatabaseSync(url, { readOnly: true }), null);
  }
  const copy = mkdtempSync(join(tmpdir(), "charter-tui-"));
  try {
    const name = basename(path);
    copyFileSync(path, join(copy, name));
    copyFileSync(`${path}-wal`, join(copy, `${name}-wal`));
    return done("snapshot", new DatabaseSync(join(copy, name), { readOnly: true }), copy);
  } catch (error) {
    rmSync(copy, { recursive: true, force: true });
    throw error;
  }
}

function walSize(path: string): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

function reader(mode: StoreMode, db: DatabaseSync, copyDir: string | null): StoreReader {
  const ready = schemaVersion(db) >= ENGINE_SCHEMA;
  const version = db.prepare("PRAGMA data_version");
  return {
    mode,
    kysely: ready ? kyselyFor<StoreTables>(db) : null,
    dataVersion: () => (version.get() as { data_version: number }).data_version,
    close: () => {
      db.close();
      if (copyDir !== null) rmSync(copyDir, { recursive: true, force: true });
    },
  };
}
