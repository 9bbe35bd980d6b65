/** @module Tests for the lock file read as the console sees it: the holder, and its workers in the order it started them. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanup, tempDataDir } from "../test/helpers/charter-process.ts";
import { readNodeState } from "./node-state.ts";

test("a held lock: the holder's pid and its workers in start order, each alive or not", () => {
  const dataDir = tempDataDir("charter-tui-lock-");
  try {
    const workers = { engine: process.pid, gateway: process.pid, assistant: process.pid, outbox: process.pid, sync: process.pid, updater: 2 ** 22 + 1 };
    writeFileSync(join(dataDir, "charter.lock"), JSON.stringify({ pid: process.pid, startedAt: "2024-05-01T09:00:00.000Z", workers }));
    const state = readNodeState(dataDir);
    assert.ok(state.running);
    assert.equal(state.pid, process.pid);
    assert.deepEqual(state.workers.map((w) => w.name), ["engine", "gateway", "assistant", "outbox", "sync", "updater"]);
    assert.deepEqual(state.workers.map((w) => w.alive), [true, true, true, true, true, false]);
  } finally {
    cleanup(dataDir);
  }
});

test("no lock: stopped; a lock whose holder is gone: stale", () => {
  const dataDir = tempDataDir("charter-tui-lock-");
  try {
    assert.deepEqual(readNodeState(dataDir), { running: false, stale: null });
    writeFileSync(join(dataDir, "charter.lock"), JSON.stringify({ pid: 2 ** 22 + 1, startedAt: "", workers: {} }));
    assert.deepEqual(readNodeState(dataDir), { running: false, stale: { pid: 2 ** 22 + 1 } });
  } finally {
    cleanup(dataDir);
  }
});
