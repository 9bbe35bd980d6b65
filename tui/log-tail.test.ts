/** Issue 9: following the log file — appended bytes only, half-written lines, rotation, the node's URL. */
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanup, tempDataDir } from "../test/helpers/charter-process.ts";
import { LogTail } from "./log-tail.ts";

const record = (msg: string, extra: object = {}) => `${JSON.stringify({ t: "2026-03-01T09:00:00.000Z", level: "info", component: "engine", msg, ...extra })}\n`;

test("reads appended lines, holds a half-written one back, and starts over after a rotation", () => {
  const dir = tempDataDir();
  const logs = join(dir, "logs");
  const tail = new LogTail(logs, { keep: 3 });
  assert.equal(tail.refresh(), false, "no log yet");
  mkdirSync(logs);
  writeFileSync(join(logs, "charter.log"), record("one") + record("two"));
  assert.equal(tail.refresh(), true);
  assert.deepEqual(tail.entries.map((e) => e.msg), ["one", "two"]);
  const half = record("three");
  appendFileSync(join(logs, "charter.log"), half.slice(0, 20));
  tail.refresh();
  assert.deepEqual(tail.entries.map((e) => e.msg), ["one", "two"], "a line without its newline waits");
  appendFileSync(join(logs, "charter.log"), half.slice(20) + "not json\n");
  assert.equal(tail.refresh(), true);
  assert.deepEqual(tail.entries.map((e) => e.msg), ["two", "three", "not json"], "only the newest `keep` lines are held");
  assert.equal(tail.refresh(), false, "nothing new");
  renameSync(join(logs, "charter.log"), join(logs, "charter.log.1"));
  writeFileSync(join(logs, "charter.log"), record("after rotation"));
  tail.refresh();
  assert.deepEqual(tail.entries.map((e) => e.msg), ["three", "not json", "after rotation"], "the rotated file's end comes first");
  cleanup(dir);
});

test("finds where the gateway listens, even far before the tail", () => {
  const dir = tempDataDir();
  const logs = join(dir, "logs");
  mkdirSync(logs);
  writeFileSync(join(logs, "charter.log"), record("listening", { component: "gateway", url: "http://127.0.0.1:9999" }) + record("filler").repeat(200));
  const tail = new LogTail(logs, { initialBytes: 1024 });
  tail.refresh();
  assert.ok(!tail.entries.some((e) => e.msg === "listening"), "outside the tail read");
  assert.equal(tail.listening?.url, "http://127.0.0.1:9999");
  appendFileSync(join(logs, "charter.log"), record("listening", { url: "http://127.0.0.1:7777" }));
  tail.refresh();
  assert.equal(tail.listening?.url, "http://127.0.0.1:7777", "a later line wins");
  cleanup(dir);
});
