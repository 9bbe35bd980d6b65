import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { LogFile } from "./log-file.ts";
import { createLogger, formatReadable, type LogRecord, parseLogLine, requestLogger } from "./log.ts";

test("the log file rotates by size and keeps the newest files", () => {
  const dir = mkdtempSync(join(tmpdir(), "charter-logs-"));
  const log = new LogFile(dir, { maxBytes: 1000, keep: 2 });
  for (let i = 0; i < 100; i++) log.write({ t: "2026-11-21T10:00:00.000Z", level: "info", component: "test", msg: `line ${i}`, pad: "x".repeat(40) });
  log.close();
  assert.ok(existsSync(join(dir, "charter.log.1")) && existsSync(join(dir, "charter.log.2")));
  assert.ok(!existsSync(join(dir, "charter.log.3")), "older files are dropped");
  const current = readFileSync(join(dir, "charter.log"), "utf8").trim().split("\n");
  assert.ok(readFileSync(join(dir, "charter.log"), "utf8").length <= 1000);
  assert.equal(JSON.parse(current.at(-1) as string).msg, "line 99", "the newest line is in the current file");
  rmSync(dir, { recursive: true });
});

test("a log that cannot rotate starts over instead of growing past its size", () => {
  const dir = mkdtempSync(join(tmpdir(), "charter-logs-"));
  // Where the oldest file would be dropped sits a directory that is not empty: rotating fails.
  mkdirSync(join(dir, "charter.log.2"));
  writeFileSync(join(dir, "charter.log.2", "keep"), "");
  const log = new LogFile(dir, { maxBytes: 1000, keep: 2 });
  for (let i = 0; i < 500; i++) log.write({ t: "2026-11-21T10:00:00.000Z", level: "info", component: "test", msg: `line ${i}`, pad: "x".repeat(40) });
  log.close();
  const text = readFileSync(join(dir, "charter.log"), "utf8");
  const lines = text.trim().split("\n").map((l) => JSON.parse(l) as { msg: string; level: string });
  assert.ok(text.length <= 1000 + 300, `the file stays within its size (${text.length} bytes)`);
  assert.equal(lines[0]?.level, "error");
  assert.match(lines[0]?.msg ?? "", /could not be rotated/);
  assert.equal(lines.at(-1)?.msg, "line 499", "the newest line is kept");
  rmSync(dir, { recursive: true });
});

test("worker lines: JSON records pass through, plain lines are wrapped", () => {
  const record = parseLogLine("engine", '{"t":"2026-11-21T10:00:01.000Z","level":"warn","component":"engine","msg":"slow","ms":12}');
  assert.equal(record.level, "warn");
  assert.equal(formatReadable(record), "10:00:01 WARN  engine     slow  ms=12");
  const plain = parseLogLine("gateway", "TypeError: boom", "error");
  assert.deepEqual({ level: plain.level, component: plain.component, msg: plain.msg }, { level: "error", component: "gateway", msg: "TypeError: boom" });
});

test("per-request lines are written unless CHARTER_LOG_REQUESTS=off, and the rest always", () => {
  const written: LogRecord[] = [];
  const log = createLogger("gateway", (r) => written.push(r));
  requestLogger(log, {}).info("answered", { status: 404 });
  requestLogger(log, { CHARTER_LOG_REQUESTS: "off" }).info("answered", { status: 400 });
  requestLogger(log, { CHARTER_LOG_REQUESTS: "off" }).error("answered", { status: 500 });
  log.info("listening");
  assert.deepEqual(
    written.map((r) => [r.msg, r.status]),
    [
      ["answered", 404],
      ["listening", undefined],
    ],
  );
});

const posix = { skip: process.platform === "win32" ? "POSIX modes and O_NOFOLLOW" : false };

test("issue 16 #8: the log file is 0600, also when it existed with a looser mode", posix, () => {
  const dir = mkdtempSync(join(tmpdir(), "charter-logs-"));
  const previous = process.umask(0o022);
  try {
    new LogFile(dir).close();
  } finally {
    process.umask(previous);
  }
  assert.equal(statSync(join(dir, "charter.log")).mode & 0o777, 0o600);
  chmodSync(join(dir, "charter.log"), 0o644);
  new LogFile(dir).close();
  assert.equal(statSync(join(dir, "charter.log")).mode & 0o777, 0o600);
  rmSync(dir, { recursive: true });
});

test("issue 16 #8: a charter.log that is a symbolic link is refused, and its target is not written", posix, () => {
  const dir = mkdtempSync(join(tmpdir(), "charter-logs-"));
  const target = join(dir, "victim");
  writeFileSync(target, "precious\n");
  mkdirSync(join(dir, "logs"));
  symlinkSync(target, join(dir, "logs", "charter.log"));
  assert.throws(() => new LogFile(join(dir, "logs")), /refusing to write the log .*charter\.log: it is a symbolic link/);
  assert.equal(readFileSync(target, "utf8"), "precious\n");
  rmSync(dir, { recursive: true });
});

test("issue 16 #8: a logs directory that is a symbolic link is refused", posix, () => {
  const dir = mkdtempSync(join(tmpdir(), "charter-logs-"));
  mkdirSync(join(dir, "elsewhere"));
  symlinkSync(join(dir, "elsewhere"), join(dir, "logs"));
  assert.throws(() => new LogFile(join(dir, "logs")), /refusing to write the log into .*logs: it is a symbolic link/);
  assert.ok(!existsSync(join(dir, "elsewhere", "charter.log")));
  rmSync(dir, { recursive: true });
});
