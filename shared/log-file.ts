/**
 * @module The log file: JSON lines appended to `DATA/logs/charter.log`, rotated when it passes a
 * size (charter.log → charter.log.1 → … → charter.log.N, the oldest dropped).
 *
 * The file is 0600 and never reached through a link (issue 16): it is opened with O_NOFOLLOW, and a
 * `logs` that is itself a link is refused — in a data directory others could write, a link would
 * have the supervisor append to any file it may write.
 */
import { closeSync, constants, existsSync, fchmodSync, fstatSync, lstatSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { LogRecord } from "./log.ts";
import { makeDirsSync } from "./make-dirs.ts";

export interface LogFileOptions {
  readonly maxBytes?: number;
  readonly keep?: number;
}

// Append, create 0600, never through a link, never block on a FIFO put in its place (0 on Windows).
const FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** An append-only, size-rotated JSON-lines file. One writer: the supervisor. */
export class LogFile {
  readonly #dir: string;
  readonly #path: string;
  readonly #maxBytes: number;
  readonly #keep: number;
  #fd: number;
  #size: number;

  constructor(dir: string, options: LogFileOptions = {}) {
    makeDirsSync(dir);
    if (lstatSync(dir).isSymbolicLink()) throw new Error(`refusing to write the log into ${dir}: it is a symbolic link (links inside the data directory are not followed); replace it with a directory`);
    this.#dir = dir;
    this.#path = join(dir, "charter.log");
    this.#maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.#keep = options.keep ?? 5;
    this.#fd = openLog(this.#path);
    this.#size = fstatSync(this.#fd).size;
  }

  /** Appends one record as a line, rotating first if the file is full. */
  write(record: LogRecord): void {
    const line = Buffer.from(`${JSON.stringify(record)}\n`);
    if (this.#size + line.length > this.#maxBytes && this.#size > 0) this.#rotate();
    writeSync(this.#fd, line);
    this.#size += line.length;
  }

  close(): void {
    closeSync(this.#fd);
  }

  #rotate(): void {
    const numbered = (n: number) => join(this.#dir, `charter.log.${n}`);
    let fd: number;
    try {
      rmSync(numbered(this.#keep), { force: true });
      for (let n = this.#keep - 1; n >= 1; n--) if (existsSync(numbered(n))) renameSync(numbered(n), numbered(n + 1));
      renameSync(this.#path, numbered(1));
      fd = openLog(this.#path);
    } catch {
      // A directory that became read-only (or full) must not stop the tree over its log: go on
      // appending to the current file, and try again after another maxBytes.
      this.#size = 0;
      return;
    }
    closeSync(this.#fd);
    this.#fd = fd;
    this.#size = 0;
  }
}

/** Opens `path` for appending, refusing a link or anything but a regular file; 0600 even if it was not. */
function openLog(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, FLAGS, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") {
      throw new Error(`refusing to write the log ${path}: it is a symbolic link (links inside the data directory are not followed); remove it`, { cause: error });
    }
    throw error;
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw new Error(`refusing to write the log ${path}: it is not a regular file`);
  }
  if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  return fd;
}
