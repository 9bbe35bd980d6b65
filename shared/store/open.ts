/**
 * @module Opening the store: one SQLite file in WAL mode. The engine opens the only writer; every
 * other worker opens a read-only connection to the same file.
 *
 * The files are private: a writer creates the database file 0600 itself before SQLite
 * does (SQLite would make it 0644 less the umask), and SQLite gives `-wal` and `-shm` the database
 * file's mode; a writer also narrows an existing file that group or others can read. SQLite follows
 * symbolic links and node:sqlite cannot ask it not to, so each file is first opened here with
 * O_NOFOLLOW, and a link is refused: in a directory others could write, a link would redirect the
 * store's writes to any file the node may write.
 */
import { closeSync, constants, fchmodSync, fstatSync, openSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";

/** How a connection is opened. `synchronous` FULL makes each commit durable on its own fsync. */
export interface OpenOptions {
  readonly readOnly?: boolean;
  readonly synchronous?: "FULL" | "NORMAL" | "OFF";
  /** Runs before anything is changed (even the journal mode); a throw closes the file untouched. */
  readonly check?: (db: DatabaseSync) => void;
}

/** A store file is a symbolic link, or not a regular file: it is not opened. */
export class UnsafeStoreFileError extends Error {}

/** Opens `path` with the pragmas every Charter connection uses. */
export function openDatabase(path: string, options: OpenOptions = {}): DatabaseSync {
  guardFiles(path, !(options.readOnly ?? false));
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

// Windows has neither O_NOFOLLOW nor POSIX modes; there the flags are 0 and the checks are moot.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO planted in place of a file must not block the open; it is refused as not a regular file.
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Refuses a database whose file or companion files are links or not regular files; for a writer,
 * creates the database file 0600 and narrows any of them that group or others can access.
 */
function guardFiles(path: string, writer: boolean): void {
  if (path === ":memory:" || path === "") return;
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    const create = writer && file === path ? constants.O_CREAT : 0;
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK | create, 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && file !== path) continue;
      if (code === "ELOOP") throw new UnsafeStoreFileError(`refusing to open ${file}: it is a symbolic link (links inside the data directory are not followed); remove it`);
      // Anything else (a missing read-only store, EACCES) is SQLite's to report, as before.
      if (file === path) return;
      continue;
    }
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw new UnsafeStoreFileError(`refusing to open ${file}: it is not a regular file`);
      if (writer && process.platform !== "win32" && (stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) fchmodSync(fd, 0o600);
    } finally {
      closeSync(fd);
    }
  }
}
