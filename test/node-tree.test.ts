/**
 * @module Tests for the personal node's process tree, end to end: `charter node` runs six workers —
 * the engine, the gateway, and the assistant, outbox, sync and updater idling with their status
 * lines on `/health` — each its own process; `charter serve` runs the engine and the gateway only.
 * An idle worker killed with SIGKILL is restarted without `/health` ever answering 503, and SIGTERM
 * drains every worker and exits 0. The idle tree's memory is measured by bench/tree.ts.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { LogRecord } from "../shared/log.ts";
import { processAlive } from "../shared/store/lock.ts";
import { type Charter, cleanup, lockOf, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";

const NODE_WORKERS = ["engine", "gateway", "assistant", "outbox", "sync", "updater"];
const IDLE_STATUSES = {
  assistant: "idle: no turn running",
  // The outbox's line names its webhook listener's address (a free port in tests).
  outbox: /^effects: none yet; webhooks on http:\/\/127\.0\.0\.1:\d+$/,
  sync: "idle: no device to sync with",
  updater: "idle: updates off",
};

interface Health {
  status: string;
  workers: Record<string, string>;
  statuses: Record<string, string>;
  degraded?: string[];
}

async function healthOf(url: string): Promise<{ code: number; body: Health }> {
  const r = await fetch(`${url}/health`);
  return { code: r.status, body: (await r.json()) as Health };
}

/** `/health` once every worker it lists runs and has said what it waits for. */
function settled(url: string, names: readonly string[]): Promise<Health> {
  return waitFor("every worker running, with its status line", async () => {
    const { code, body } = await healthOf(url);
    const running = names.every((n) => body.workers[n] === "running");
    const said = Object.keys(IDLE_STATUSES).every((n) => !names.includes(n) || body.statuses[n] !== undefined);
    return code === 200 && running && said ? body : undefined;
  });
}

function records(dataDir: string): LogRecord[] {
  return readFileSync(join(dataDir, "logs", "charter.log"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as LogRecord);
}

/** The entry module a process runs, from its command line. */
function entryOf(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").find((arg) => arg.endsWith("main.ts")) ?? "";
}

describe("charter node", () => {
  let node: Charter;
  before(async () => {
    node = await startCharter({ edition: "node" });
  });
  after(async () => {
    if (node !== undefined && node.child.exitCode === null) await stopCharter(node);
    if (node !== undefined) cleanup(node.dataDir);
  });

  test("runs six workers, each its own process; /health lists them all running, the idle ones with their status line", async () => {
    const health = await settled(node.url, NODE_WORKERS);
    assert.equal(health.status, "ok");
    assert.deepEqual(health.workers, Object.fromEntries(NODE_WORKERS.map((n) => [n, "running"])));
    assert.deepEqual(Object.keys(health.statuses).sort(), Object.keys(IDLE_STATUSES).sort());
    for (const [worker, expected] of Object.entries(IDLE_STATUSES)) {
      if (typeof expected === "string") assert.equal(health.statuses[worker], expected);
      else assert.match(health.statuses[worker] ?? "", expected);
    }
    const { pid, workers } = lockOf(node.dataDir);
    assert.deepEqual(Object.keys(workers), NODE_WORKERS, "the lock lists them in start order");
    assert.equal(new Set([pid, ...Object.values(workers)]).size, NODE_WORKERS.length + 1, "one process each");
    for (const [name, workerPid] of Object.entries(workers)) {
      assert.ok(processAlive(workerPid), `${name} runs`);
      assert.match(entryOf(workerPid), new RegExp(`workers/${name}/main\\.ts$`));
    }
  });

  test("an idle worker killed with SIGKILL is restarted, reports its status again, and /health never answers 503", async () => {
    const before = lockOf(node.dataDir).workers.assistant as number;
    const codes = new Set<number>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        codes.add((await healthOf(node.url)).code);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    process.kill(before, "SIGKILL");
    const after = await waitFor("a new assistant", () => {
      const pid = lockOf(node.dataDir).workers.assistant;
      return pid !== undefined && pid !== before ? pid : undefined;
    });
    const health = await settled(node.url, NODE_WORKERS);
    watching = false;
    await watcher;
    assert.ok(processAlive(after));
    assert.equal(health.status, "ok");
    assert.equal(health.statuses.assistant, IDLE_STATUSES.assistant);
    assert.deepEqual([...codes], [200], "the node kept answering 200 while the assistant was down");
    const exited = records(node.dataDir).find((r) => r.msg === "worker exited" && r.worker === "assistant");
    assert.equal(exited?.signal, "SIGKILL");
    assert.ok(records(node.dataDir).some((r) => r.msg === "worker started" && r.worker === "assistant" && r.restart === 1));
  });

  test("SIGTERM drains every worker, each exits 0, and the tree exits 0", async () => {
    const { workers } = lockOf(node.dataDir);
    // On a failure the tree's own words say why it chose its exit code.
    assert.deepEqual(await stopCharter(node), { code: 0, signal: null }, `${node.stderr}\n${records(node.dataDir).filter((r) => r.level !== "info" && r.level !== "debug").map((r) => JSON.stringify(r)).join("\n")}`);
    for (const [name, pid] of Object.entries(workers)) assert.equal(processAlive(pid), false, `${name} (${pid}) is gone`);
    const log = records(node.dataDir);
    const stopped = log.filter((r) => r.msg === "worker stopped");
    assert.deepEqual(stopped.map((r) => r.worker).sort(), [...NODE_WORKERS].sort());
    for (const r of stopped) assert.deepEqual([r.worker, r.code, r.signal], [r.worker, 0, null]);
    // The idle workers drain first, the engine last (reverse start order).
    assert.deepEqual(stopped.map((r) => r.worker), [...NODE_WORKERS].reverse());
    assert.ok(!log.some((r) => r.msg === "worker did not drain in time; killing it"));
  });
});

test("charter serve runs the engine and the gateway only", async () => {
  const c = await startCharter({ edition: "serve" });
  try {
    const health = await settled(c.url, ["engine", "gateway"]);
    assert.equal(health.status, "ok");
    assert.deepEqual(health.workers, { engine: "running", gateway: "running" });
    assert.deepEqual(health.statuses, {});
    assert.deepEqual(Object.keys(lockOf(c.dataDir).workers), ["engine", "gateway"]);
  } finally {
    await stopCharter(c);
    cleanup(c.dataDir);
  }
});

test("an idle worker that keeps failing is left stopped (the node serves on, degraded); the engine keeps its limit", async () => {
  const c = await startCharter({ edition: "node", args: ["--restart-limit", "1"] });
  try {
    await settled(c.url, NODE_WORKERS);
    // Two deaths within the window: over the limit of one restart.
    for (let i = 0; i < 2; i++) {
      const pid = await waitFor("a running sync worker", async () => {
        const health = await healthOf(c.url);
        return health.body.workers.sync === "running" ? lockOf(c.dataDir).workers.sync : undefined;
      });
      process.kill(pid as number, "SIGKILL");
      await waitFor("the kill seen", async () => ((await healthOf(c.url)).body.workers.sync !== "running" ? true : undefined));
    }
    await waitFor("the give-up logged", () => (/worker keeps failing; leaving it stopped for a while/.test(c.stderr + c.stdout) ? true : undefined));
    const { code, body } = await healthOf(c.url);
    assert.equal(code, 200, "the node still serves");
    assert.equal(body.status, "degraded");
    assert.notEqual(body.workers.sync, "running");
    assert.equal(body.workers.engine, "running");
    assert.equal(c.child.exitCode, null, "the tree is still up");
  } finally {
    await stopCharter(c);
    cleanup(c.dataDir);
  }
});
