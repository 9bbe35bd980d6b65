/**
 * @module The data directory's lock: `DATA/charter.lock` names the charter process that holds the
 * directory and its workers. A second charter refuses, naming the holder's pid; a lock left by a
 * process that no longer exists (kill -9, power loss) is taken over, and any of its workers still
 * alive are stopped first so they cannot write behind the new holder's back.
 *
 * The lock is 0600 and never written through a link: it is created with O_EXCL, which
 * does not follow one, and rewritten through a temp file opened with O_NOFOLLOW. A lock that can no
 * longer be written (the directory became read-only) is a LockWriteError with a one-line message;
 * the supervisor stops the tree cleanly on it, and `release` never throws.
 */
import { closeSync, constants, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";

export interface LockContent {
  readonly pid: number;
  readonly startedAt: string;
  readonly workers: Record<string, number>;
}

/** The lock could not be taken because a live charter holds it. */
export class LockHeldError extends Error {
  readonly pid: number;
  constructor(path: string, pid: number) {
    super(`the data directory is in use by another charter (pid ${pid}, lock ${path})`);
    this.pid = pid;
  }
}

/** The lock file could not be written: `cannot write the lock file DATA/charter.lock: permission denied`. */
export class LockWriteError extends Error {
  readonly code: string | undefined;
  constructor(path: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code;
    super(`cannot write the lock file ${path}: ${REASONS[code ?? ""] ?? (cause as Error).message}`, { cause });
    this.code = code;
  }
}

/** The reasons an operator meets, in words (Node's messages also name the syscall and the temp file). */
const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  ELOOP: "it is a symbolic link (links inside the data directory are not followed)",
};

// Write, create 0600 or truncate, never through a link (0 on Windows, which has no O_NOFOLLOW).
const REWRITE = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);

/** Whether `pid` is a running process. A zombie (exited, not yet reaped by its new parent) is not. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** Whether `pid` is a charter process (on Linux, by its command line); elsewhere, whether it lives. */
function isCharter(pid: number): boolean {
  if (!processAlive(pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return /charter|workers[/\\]/.test(cmdline);
  } catch {
    return true;
  }
}

/** The lock's content; null when it is unreadable, not JSON, or a link (then it is no lock: it is replaced). */
function read(path: string): LockContent | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  try {
    return JSON.parse(readFileSync(fd, "utf8")) as LockContent;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Creates the lock file (O_EXCL: never through a link, which counts as existing); null if it exists. */
function create(path: string): number | null {
  try {
    return openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return null;
    throw new LockWriteError(path, error);
  }
}

/** Removes a file this process just failed to finish; the same failure may keep it there, harmlessly. */
function remove(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // A stale lock is taken over at the next start; a leftover temp file is rewritten next time.
  }
}

/** A held lock; `update` records the current worker pids, `release` removes it. */
export class DataLock {
  readonly path: string;
  #content: LockContent;

  private constructor(path: string, content: LockContent) {
    this.path = path;
    this.#content = content;
  }

  /** Takes the lock at `path` for this process, or throws LockHeldError (or LockWriteError). */
  static acquire(path: string): DataLock {
    const content: LockContent = { pid: process.pid, startedAt: new Date().toISOString(), workers: {} };
    for (let attempt = 0; attempt < 3; attempt++) {
      const fd = create(path);
      if (fd !== null) {
        try {
          writeSync(fd, JSON.stringify(content));
        } catch (error) {
          remove(path);
          throw new LockWriteError(path, error);
        } finally {
          closeSync(fd);
        }
        return new DataLock(path, content);
      }
      const held = read(path);
      if (held !== null && held.pid !== process.pid && isCharter(held.pid)) throw new LockHeldError(path, held.pid);
      // Stale: its holder is gone. Stop any of its workers that outlived it, then take over.
      const leftovers = Object.values(held?.workers ?? {}).filter(isCharter);
      for (const pid of leftovers) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      const until = Date.now() + 2000;
      while (leftovers.some(processAlive) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      try {
        rmSync(path, { force: true });
      } catch (error) {
        throw new LockWriteError(path, error);
      }
    }
    throw new Error(`could not take the lock ${path}`);
  }

  /** The content of the lock as last written. */
  get content(): LockContent {
    return this.#content;
  }

  /** Records the pids of the current workers (atomically: temp file + rename); throws LockWriteError. */
  update(workers: Record<string, number>): void {
    this.#content = { ...this.#content, workers };
    const temp = `${this.path}.${process.pid}.tmp`;
    try {
      const fd = openSync(temp, REWRITE, 0o600);
      try {
        writeSync(fd, JSON.stringify(this.#content));
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.path);
    } catch (error) {
      remove(temp);
      throw new LockWriteError(this.path, error);
    }
  }

  /** Removes the lock if it is still ours; whether it did. A lock it cannot remove is left stale: the next start takes it over. */
  release(): boolean {
    try {
      const held = read(this.path);
      if (held?.pid !== process.pid) return false;
      rmSync(this.path, { force: true });
      return true;
    } catch {
      return false;
    }
  }
}
