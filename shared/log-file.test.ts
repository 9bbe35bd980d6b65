import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { LogFile } from "./log-file.ts";
import { formatReadable, parseLogLine } from "./log.ts";

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

test("worker lines: JSON records pass through, plain lines are wrapped", () => {
  const record = parseLogLine("engine", '{"t":"2026-11-21T10:00:01.000Z","level":"warn","component":"engine","msg":"slow","ms":12}');
  assert.equal(record.level, "warn");
  assert.equal(formatReadable(record), "10:00:01 WARN  engine     slow  ms=12");
  const plain = parseLogLine("gateway", "TypeError: boom", "error");
  assert.deepEqual({ level: plain.level, component: plain.component, msg: plain.msg }, { level: "error", component: "gateway", msg: "TypeError: boom" });
});
