/**
 * @module Following `DATA/logs/charter.log` read-only: the newest lines at start (reaching into the
 * rotated `charter.log.1` when the current file is short), then only the bytes appended since the
 * last read; a rotation (new inode, or a shorter file) starts over. It also remembers where the
 * gateway last said it was listening, which is how the console finds the node's URL.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Level, LogRecord } from "../shared/log.ts";

/** A record read back from the log, with its line's position for stable keys. */
export interface LogEntry {
  readonly id: number;
  readonly t: string;
  readonly level: Level;
  readonly component: string;
  readonly msg: string;
  /** The record's other fields as `key=value` text. */
  readonly fields: string;
}

const levels: readonly Level[] = ["debug", "info", "warn", "error"];

/** How severe a level is (debug 0 … error 3); unknown levels count as info. */
export function severity(level: string): number {
  const i = levels.indexOf(level as Level);
  return i < 0 ? 1 : i;
}

export class LogTail {
  readonly #path: string;
  readonly #keep: number;
  readonly #initialBytes: number;
  #ino = -1;
  #offset = 0;
  #partial = "";
  #entries: LogEntry[] = [];
  #nextId = 0;
  #listening: { url: string; t: string } | null = null;

  constructor(logsDir: string, options: { keep?: number; initialBytes?: number } = {}) {
    this.#path = join(logsDir, "charter.log");
    this.#keep = options.keep ?? 2000;
    this.#initialBytes = options.initialBytes ?? 512 * 1024;
  }

  /** The newest entries, oldest first. */
  get entries(): readonly LogEntry[] {
    return this.#entries;
  }

  /** The URL in the gateway's latest `listening` line, and when it said so. */
  get listening(): { url: string; t: string } | null {
    return this.#listening;
  }

  /** Reads what was appended since the last call; returns whether anything new arrived. */
  refresh(): boolean {
    let stat;
    try {
      stat = statSync(this.#path);
    } catch {
      const had = this.#entries.length > 0;
      if (had || this.#ino !== -1) this.#reset(-1);
      return had;
    }
    if (stat.ino !== this.#ino || stat.size < this.#offset) {
      this.#reset(stat.ino);
      this.#loadStart(stat.size);
      return true;
    }
    if (stat.size === this.#offset) return false;
    this.#append(this.#readRange(this.#path, this.#offset, stat.size));
    return true;
  }

  #reset(ino: number): void {
    this.#ino = ino;
    this.#offset = 0;
    this.#partial = "";
    this.#entries = [];
  }

  /** The first read of a file: its last bytes, preceded by the rotated file's when it is short. */
  #loadStart(size: number): void {
    const from = Math.max(0, size - this.#initialBytes);
    const text = this.#readRange(this.#path, from, size);
    const older = from === 0 ? this.#tailOf(`${this.#path}.1`, this.#initialBytes - size) : "";
    this.#findListening(older + text);
    this.#append(older, true);
    // Starting mid-file, the first line is cut: drop it.
    this.#append(from === 0 ? text : text.slice(text.indexOf("\n") + 1));
  }

  #tailOf(path: string, bytes: number): string {
    if (bytes <= 0) return "";
    try {
      const size = statSync(path).size;
      const text = this.#readRange(path, Math.max(0, size - bytes), size, true);
      return size > bytes ? text.slice(text.indexOf("\n") + 1) : text;
    } catch {
      return "";
    }
  }

  /** When the tail is too short to hold the gateway's `listening` line, look for it in the whole files. */
  #findListening(tail: string): void {
    if (tail.includes('"msg":"listening"')) return;
    for (const path of [this.#path, `${this.#path}.1`]) {
      let whole;
      try {
        whole = readFileSync(path, "utf8");
      } catch {
        continue;
      }
      const at = whole.lastIndexOf('"msg":"listening"');
      if (at < 0) continue;
      const start = whole.lastIndexOf("\n", at) + 1;
      const end = whole.indexOf("\n", at);
      this.#note(parse(whole.slice(start, end < 0 ? undefined : end)));
      return;
    }
  }

  #readRange(path: string, from: number, to: number, other = false): string {
    const fd = openSync(path, "r");
    try {
      if (!other) this.#ino = fstatSync(fd).ino;
      const buffer = Buffer.alloc(to - from);
      let read = 0;
      while (read < buffer.length) {
        const n = readSync(fd, buffer, read, buffer.length - read, from + read);
        if (n === 0) break;
        read += n;
      }
      if (!other) this.#offset = from + read;
      return buffer.subarray(0, read).toString("utf8");
    } finally {
      closeSync(fd);
    }
  }

  #append(text: string, complete = false): void {
    const lines = (this.#partial + text).split("\n");
    // A line without its newline yet is still being written: keep it for the next read.
    this.#partial = complete ? "" : (lines.pop() ?? "");
    for (const line of lines) {
      if (line.trim() === "") continue;
      const record = parse(line);
      this.#note(record);
      const { t, level, component, msg, ...rest } = record;
      this.#entries.push({ id: this.#nextId++, t, level, component, msg, fields: fieldsText(rest) });
    }
    if (this.#entries.length > this.#keep) this.#entries = this.#entries.slice(-this.#keep);
  }

  #note(record: LogRecord): void {
    if (record.msg === "listening" && typeof record.url === "string") this.#listening = { url: record.url, t: record.t };
  }
}

function parse(line: string): LogRecord {
  try {
    const r = JSON.parse(line) as Record<string, unknown>;
    if (typeof r.msg === "string") {
      return { ...r, t: typeof r.t === "string" ? r.t : "", level: (typeof r.level === "string" ? r.level : "info") as Level, component: typeof r.component === "string" ? r.component : "", msg: r.msg };
    }
  } catch {
    // Not a JSON record: shown as text below.
  }
  return { t: "", level: "info", component: "", msg: line };
}

function fieldsText(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
}
