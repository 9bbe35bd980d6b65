/**
 * @module Structured logging: one JSON line per event worth knowing. Workers write their lines to
 * stdout; the supervisor collects every worker's lines into `DATA/logs/charter.log` (rotated by
 * size, log-file.ts) and prints a readable form on stderr.
 */

export type Level = "debug" | "info" | "warn" | "error";

/** A log record as written to the log file. */
export interface LogRecord {
  readonly t: string;
  readonly level: Level;
  readonly component: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** A logger whose records go to `sink` (default: JSON lines on stdout, read by the supervisor). */
export function createLogger(component: string, sink: (record: LogRecord) => void = writeJsonLine): Logger {
  const at = (level: Level) => (msg: string, fields?: Record<string, unknown>) =>
    sink({ t: new Date().toISOString(), level, component, msg, ...fields });
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

const ignore = () => {};

/** A logger that writes nothing. */
export const silentLogger: Logger = Object.freeze({ debug: ignore, info: ignore, warn: ignore, error: ignore });

/**
 * The logger for lines written per request rather than per event of the node's life: answers ≥ 400,
 * refusals, slow batches. `CHARTER_LOG_REQUESTS=off` silences them (the engine benchmark's baseline
 * measures what they cost); every other line is written regardless.
 */
export function requestLogger(log: Logger, env: Record<string, string | undefined> = process.env): Logger {
  return env.CHARTER_LOG_REQUESTS === "off" ? silentLogger : log;
}

function writeJsonLine(record: LogRecord): void {
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

/** The readable one-line form for a terminal: `19:40:01 INFO  gateway listening … key=value`. */
export function formatReadable(record: LogRecord): string {
  const { t, level, component, msg, ...fields } = record;
  const time = typeof t === "string" ? t.slice(11, 19) : "";
  const extra = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
  return `${time} ${level.toUpperCase().padEnd(5)} ${component.padEnd(10)} ${msg}${extra ? `  ${extra}` : ""}`;
}

/** Parses a line a worker printed: its JSON record, or a plain line wrapped as one. */
export function parseLogLine(component: string, line: string, level: Level = "info"): LogRecord {
  if (line.startsWith("{")) {
    try {
      const record = JSON.parse(line) as LogRecord;
      if (typeof record.msg === "string" && typeof record.level === "string") return record;
    } catch {
      // Not JSON after all: keep it as text below.
    }
  }
  return { t: new Date().toISOString(), level, component, msg: line };
}
