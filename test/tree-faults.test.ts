/** Issue 2: crashes of workers and of the supervisor lose nothing; a hopeless worker ends the tree. */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { connectChannel } from "../shared/channel/socket.ts";
import { processAlive } from "../shared/store/lock.ts";
import type { EngineRequests } from "../shared/protocol/engine.ts";
import { cleanup, lockOf, processState, sleep, spawnCharter, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";

async function healthy(url: string): Promise<true | undefined> {
  const r = await fetch(`${url}/health`);
  return r.status === 200 ? true : undefined;
}

function engine(dataDir: string) {
  return connectChannel<EngineRequests, Record<string, never>>(join(dataDir, "run", "engine.sock"));
}

async function appendEvents(dataDir: string, count: number): Promise<void> {
  const channel = await engine(dataDir);
  await Promise.all(Array.from({ length: count }, (_, i) => channel.request("journal-append", { topic: "event", payload: { n: i } })));
  channel.close();
}

test("kill -9 of the engine: it is restarted and /health returns to 200", async () => {
  const c = await startCharter();
  const before = lockOf(c.dataDir).workers.engine as number;
  process.kill(before, "SIGKILL");
  const after = await waitFor("a new engine", () => {
    const pid = lockOf(c.dataDir).workers.engine;
    return pid !== before ? pid : undefined;
  });
  assert.notEqual(after, before);
  await waitFor("health 200", () => healthy(c.url));
  const channel = await engine(c.dataDir);
  assert.equal((await channel.request("ping", {})).pid, after);
  channel.close();
  await stopCharter(c);
  cleanup(c.dataDir);
});

test("kill -9 of the gateway: restarted, /health 200 again, and its claimed-but-unacked journal entries are processed again, once", async () => {
  const dataDir = tempDataDir();
  let c = await startCharter({ dataDir });
  const db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
  const attempts = db.prepare("SELECT attempts FROM journal WHERE id = ?");
  const unfinished = db.prepare("SELECT count(*) AS n FROM journal WHERE state != 'done'");
  let redelivered = 0;
  for (let round = 0; round < 16 && redelivered === 0; round++) {
    if (round > 0 && round % 4 === 0) {
      // Stay under the restart intensity limit (5 in 60 s): a fresh tree starts a fresh history.
      await stopCharter(c);
      c = await startCharter({ dataDir });
    }
    const gateway = lockOf(c.dataDir).workers.gateway as number;
    const claimant = `gateway#${gateway}`;
    const appending = appendEvents(c.dataDir, 3000);
    const held = db.prepare("SELECT id FROM journal WHERE state = 'claimed' AND claimed_by = ?");
    await waitFor("a claim in hand", () => (held.all(claimant).length > 0 ? true : undefined), 5000).catch(() => {});
    // Freeze it; once it is stopped and the engine has taken in any ack already on its way, what it
    // still holds is exactly what it claimed and never acked. Then kill it.
    process.kill(gateway, "SIGSTOP");
    await waitFor("the gateway stopped", () => (processState(gateway) === "T" ? true : undefined));
    await sleep(200);
    const caught = (held.all(claimant) as { id: number }[]).map((r) => r.id);
    process.kill(gateway, "SIGKILL");
    await appending;
    await waitFor("a new gateway", () => (lockOf(c.dataDir).workers.gateway !== gateway ? true : undefined));
    await waitFor("health 200", () => healthy(c.url));
    await waitFor("every entry processed", () => ((unfinished.get() as { n: number }).n === 0 ? true : undefined), 20_000);
    // Every entry it held unacked was delivered again, exactly once.
    for (const id of caught) assert.equal((attempts.get(id) as { attempts: number }).attempts, 2, `entry ${id} was delivered again exactly once`);
    redelivered += caught.length;
  }
  assert.ok(redelivered > 0, "entries a dead gateway held were delivered again");
  assert.equal((db.prepare("SELECT count(*) AS n FROM journal WHERE attempts > 2").get() as { n: number }).n, 0, "no entry delivered more than twice");
  db.close();
  await stopCharter(c);
  cleanup(c.dataDir);
});

test("kill -9 of the supervisor: the next start takes over the stale lock and loses no journal entry", async () => {
  const dataDir = tempDataDir();
  // An engine-only topic nobody consumes, so the entries stay put across the crash.
  const c = await startCharter({ dataDir });
  const channel = await engine(dataDir);
  const ids = await Promise.all(Array.from({ length: 500 }, (_, i) => channel.request("journal-append", { topic: "parked", payload: { i } })));
  channel.close();
  const old = lockOf(dataDir);
  c.child.kill("SIGKILL");
  await c.exited;
  const next = await startCharter({ dataDir });
  assert.equal(lockOf(dataDir).pid, next.child.pid);
  await waitFor("health 200", () => healthy(next.url));
  for (const pid of Object.values(old.workers)) assert.equal(processAlive(pid), false, `old worker ${pid} is gone`);
  const db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
  const stored = (db.prepare("SELECT id FROM journal WHERE topic = 'parked' ORDER BY id").all() as { id: number }[]).map((r) => r.id);
  assert.deepEqual(stored, ids.map((r) => r.id).sort((a, b) => a - b));
  db.close();
  await stopCharter(next);
  cleanup(dataDir);
});

test("a worker that fails on every start: after the intensity limit the supervisor exits non-zero naming it", async () => {
  const dataDir = tempDataDir();
  mkdirSync(join(dataDir, "charter.db")); // the store path is a directory: the engine cannot open it
  const c = spawnCharter(["serve", "--data", dataDir, "--listen", "127.0.0.1:0"]);
  const { code } = await c.exited;
  assert.equal(code, 1);
  assert.match(c.stderr, /worker engine keeps failing \(restarted 5 times within 60 s\); shutting down/);
  await sleep(10);
  // --restart-limit sets the limit.
  const strict = spawnCharter(["serve", "--data", dataDir, "--listen", "127.0.0.1:0", "--restart-limit", "1"]);
  assert.equal((await strict.exited).code, 1);
  assert.match(strict.stderr, /worker engine keeps failing \(restarted 1 time within 60 s\); shutting down/);
  await sleep(10);
  cleanup(dataDir);
});
