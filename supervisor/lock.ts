/**
 * @module The data directory's lock: `DATA/charter.lock` names the charter process that holds the
 * directory and its workers. A second charter refuses, naming the holder's pid; a lock left by a
 * process that no longer exists (kill -9, power loss) is taken over, and any of its workers still
 * alive are stopped first so they cannot write behind the new holder's back.
 */
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";

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

function read(path: string): LockContent | null {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as LockContent;
  } catch {
    return null;
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

  /** Takes the lock at `path` for this process, or throws LockHeldError. */
  static acquire(path: string): DataLock {
    const content: LockContent = { pid: process.pid, startedAt: new Date().toISOString(), workers: {} };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(path, "wx", 0o600);
        writeSync(fd, JSON.stringify(content));
        closeSync(fd);
        return new DataLock(path, content);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
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
      rmSync(path, { force: true });
    }
    throw new Error(`could not take the lock ${path}`);
  }

  /** The content of the lock as last written. */
  get content(): LockContent {
    return this.#content;
  }

  /** Records the pids of the current workers (atomically: temp file + rename). */
  update(workers: Record<string, number>): void {
    this.#content = { ...this.#content, workers };
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.#content), { mode: 0o600 });
    renameSync(temp, this.path);
  }

  release(): void {
    const held = read(this.path);
    if (held?.pid === process.pid) rmSync(this.path, { force: true });
  }
}
