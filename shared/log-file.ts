/**
 * @module The log file: JSON lines appended to `DATA/logs/charter.log`, rotated when it passes a
 * size (charter.log → charter.log.1 → … → charter.log.N, the oldest dropped). The files together
 * never hold more than (N + 1) × the size, whatever the node is asked: a burst of bad requests
 * that each log a line turns the files over faster, it does not grow them. When rotating fails (the
 * directory became read-only, something sits where an old file goes), the current file starts
 * over, with a line saying why, rather than growing past its size.
 *
 * The file is 0600 and never reached through a link: it is opened with O_NOFOLLOW, and a
 * `logs` that is itself a link is refused — in a data directory others could write, a link would
 * have the supervisor append to any file it may write.
 */
import { closeSync, constants, existsSync, fchmodSync, fstatSync, ftruncateSync, lstatSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { LogRecord } from "./log.ts";
import { makeDirsSync } from "./make-dirs.ts";

export interface LogFileOptions {
  /** The size at which the current file is rotated (default 10 MiB). */
  readonly maxBytes?: number;
  /** How many rotated files are kept (default 5). */
  readonly keep?: number;
}

/** The defaults: at most 60 MiB of log in all. */
export const LOG_MAX_BYTES = 10 * 1024 * 1024;
export const LOG_KEEP = 5;

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
    this.#maxBytes = options.maxBytes ?? LOG_MAX_BYTES;
    this.#keep = options.keep ?? LOG_KEEP;
    this.#fd = openLog(this.#path);
    this.#size = fstatSync(this.#fd).size;
  }

  /** Appends one record as a line, rotating first if the file is full. */
  write(record: LogRecord): void {
    const line = Buffer.from(`${JSON.stringify(record)}\n`);
    if (this.#size + line.length > this.#maxBytes && this.#size > 0) {
      const failure = this.#rotate();
      if (failure !== null) {
        this.#append(Buffer.from(`${JSON.stringify({ t: record.t, level: "error", component: "supervisor", msg: "the log could not be rotated; it started over to stay within its size", error: failure })}\n`));
      }
    }
    this.#append(line);
  }

  #append(line: Buffer): void {
    writeSync(this.#fd, line);
    this.#size += line.length;
  }

  close(): void {
    closeSync(this.#fd);
  }

  /** Rotates the files; on failure, empties the current one instead and returns why. */
  #rotate(): string | null {
    const numbered = (n: number) => join(this.#dir, `charter.log.${n}`);
    let fd: number;
    try {
      rmSync(numbered(this.#keep), { force: true });
      for (let n = this.#keep - 1; n >= 1; n--) if (existsSync(numbered(n))) renameSync(numbered(n), numbered(n + 1));
      renameSync(this.#path, numbered(1));
      fd = openLog(this.#path);
    } catch (error) {
      // A log that cannot rotate must neither stop the tree nor grow without end: the open file
      // (still writable, whatever happened to its directory) starts over; rotation is tried again
      // once it is full again.
      ftruncateSync(this.#fd, 0);
      this.#size = 0;
      return error instanceof Error ? error.message : String(error);
    }
    closeSync(this.#fd);
    this.#fd = fd;
    this.#size = 0;
    return null;
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
