/**
 * @module The log file: JSON lines appended to `DATA/logs/charter.log`, rotated when it passes a
 * size (charter.log → charter.log.1 → … → charter.log.N, the oldest dropped).
 */
import { closeSync, existsSync, fstatSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { LogRecord } from "./log.ts";
import { makeDirsSync } from "./make-dirs.ts";

export interface LogFileOptions {
  readonly maxBytes?: number;
  readonly keep?: number;
}

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
    this.#dir = dir;
    this.#path = join(dir, "charter.log");
    this.#maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.#keep = options.keep ?? 5;
    this.#fd = openSync(this.#path, "a", 0o600);
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
    closeSync(this.#fd);
    const numbered = (n: number) => join(this.#dir, `charter.log.${n}`);
    rmSync(numbered(this.#keep), { force: true });
    for (let n = this.#keep - 1; n >= 1; n--) if (existsSync(numbered(n))) renameSync(numbered(n), numbered(n + 1));
    renameSync(this.#path, numbered(1));
    this.#fd = openSync(this.#path, "a", 0o600);
    this.#size = 0;
  }
}
