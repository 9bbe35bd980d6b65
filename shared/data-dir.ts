/**
 * @module The data directory's permissions, checked before anything is written in it: it holds the
 * node's private key, the store and the logs, so it is its owner's alone — mode 0700, every file
 * in it 0600. A directory created here is made 0700; an existing one that group or
 * others can read or enter is tightened to 0700, with a warning. One that someone else owns and
 * others can write is refused: another user could have put links in it, or swap its files later.
 * Symbolic links inside it are refused where the files are opened (shared/store/open.ts,
 * shared/log-file.ts, shared/store/lock.ts); the data directory itself may be a link.
 */
import { accessSync, chmodSync, constants, lstatSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeDirsSync } from "./make-dirs.ts";

/** The data directory cannot be used (safely); the message names it and says why. */
export class DataDirError extends Error {
  /** `data_dir_unwritable`: it cannot be created or written; `data_dir_insecure`: it cannot be kept private. */
  readonly code: "data_dir_unwritable" | "data_dir_insecure";
  constructor(code: DataDirError["code"], message: string) {
    super(message);
    this.code = code;
  }
}

/** Subdirectories the tree creates (worker/config.ts `dataPaths`); held to the same mode when present. */
const SUBDIRECTORIES = ["logs", "run", "keys"] as const;

/**
 * Files the tree opens by name. Each opener refuses a link itself; checking here too stops a start
 * with one clear line (exit 2) rather than a worker failing over and over.
 */
const FILES = ["charter.db", "charter.db-wal", "charter.db-shm", "charter.db-journal", "raft.db", "raft.db-wal", "raft.db-shm", "charter.lock", "node-key.jwk", "admin.sock", join("logs", "charter.log"), "accounts.db", "accounts.db-wal", "accounts.db-shm", "accounts.db-journal", join("keys", "account-kek")];

export interface PrepareOptions {
  /** Replaces chmodSync (tests inject a failure: as root, chmod never fails). */
  readonly chmod?: (path: string, mode: number) => void;
}

/**
 * Creates `dir` (mode 0700) or checks and tightens an existing one; the warnings to report (what was
 * tightened). Throws DataDirError when it cannot be made private or written.
 */
export function prepareDataDir(dir: string, options: PrepareOptions = {}): string[] {
  const chmod = options.chmod ?? chmodSync;
  const warnings: string[] = [];
  try {
    // mkdir applies the umask; a created directory is set to exactly 0700 whatever the umask was.
    if (makeDirsSync(dir, 0o700) && process.platform !== "win32") chmod(dir, 0o700);
  } catch (error) {
    throw new DataDirError("data_dir_unwritable", `the data directory ${dir} is not writable (${describe(error)})`);
  }
  let stat;
  try {
    stat = statSync(dir);
  } catch (error) {
    throw new DataDirError("data_dir_unwritable", `the data directory ${dir} is not writable (${describe(error)})`);
  }
  if (!stat.isDirectory()) throw new DataDirError("data_dir_unwritable", `the data directory ${dir} is not writable (ENOTDIR: it is not a directory)`);
  // POSIX modes do not exist on Windows; there the directory's ACL is what protects it.
  if (process.platform !== "win32") {
    const tightened = tighten(dir, `the data directory ${dir}`, stat, chmod);
    if (tightened !== null) warnings.push(`the data directory ${dir} was accessible to other users (mode ${octal(tightened)}); it is now 0700`);
    for (const name of SUBDIRECTORIES) {
      const sub = join(dir, name);
      let subStat;
      try {
        subStat = lstatSync(sub);
      } catch {
        continue; // absent: it is created 0700 when needed
      }
      if (subStat.isSymbolicLink()) throw new DataDirError("data_dir_insecure", `${sub} is a symbolic link; refusing to follow links inside the data directory ${dir} — replace it with a directory`);
      if (!subStat.isDirectory()) throw new DataDirError("data_dir_insecure", `${sub} is not a directory; move it out of the data directory ${dir}`);
      const was = tighten(sub, `${sub} in the data directory`, subStat, chmod);
      if (was !== null) warnings.push(`${sub} was accessible to other users (mode ${octal(was)}); it is now 0700`);
    }
    for (const name of FILES) {
      const file = join(dir, name);
      let isLink = false;
      try {
        isLink = lstatSync(file).isSymbolicLink();
      } catch {
        // absent
      }
      if (isLink) throw new DataDirError("data_dir_insecure", `${file} is a symbolic link; refusing to follow links inside the data directory ${dir} — remove it`);
    }
  }
  try {
    accessSync(dir, constants.W_OK | constants.R_OK | constants.X_OK);
  } catch (error) {
    throw new DataDirError("data_dir_unwritable", `the data directory ${dir} is not writable (${describe(error)})`);
  }
  return warnings;
}

/** Makes `path` 0700 if group or others have any access; its previous mode if it changed, else null. */
function tighten(path: string, label: string, stat: { mode: number; uid: number }, chmod: (path: string, mode: number) => void): number | null {
  const mode = stat.mode & 0o7777;
  if ((mode & 0o077) === 0) return null;
  const uid = process.getuid?.();
  if ((mode & 0o022) !== 0 && stat.uid !== uid) {
    throw new DataDirError(
      "data_dir_insecure",
      `refusing ${label}: other users can write in it (mode ${octal(mode)}) and it belongs to uid ${stat.uid}, not to this user (uid ${uid}); ` +
        "use a directory of your own, or have its owner run `chmod 700` on it",
    );
  }
  try {
    chmod(path, 0o700);
  } catch (error) {
    throw new DataDirError("data_dir_insecure", `refusing ${label}: other users can access it (mode ${octal(mode)}) and it cannot be made private (${describe(error)}); run \`chmod 700 ${path}\``);
  }
  return mode;
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

function describe(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
