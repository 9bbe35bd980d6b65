/**
 * Issue 9: the live source follows the data directory within a second of a change — a commit
 * (through `PRAGMA data_version`), a log line, a node starting and stopping — and sits idle
 * between changes instead of polling the CPU busy.
 */
import assert from "node:assert/strict";
import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { cleanup, sleep, tempDataDir, waitFor } from "../test/helpers/charter-process.ts";
import { prepareConsoleData } from "../test/helpers/console-data.ts";
import { openDatabase } from "../shared/store/open.ts";
import { LiveSource } from "./live-source.ts";
import type { Snapshot } from "./snapshot.ts";

let dataDir: string;
before(async () => {
  dataDir = tempDataDir("charter-tui-live-");
  await prepareConsoleData(dataDir);
});
after(() => cleanup(dataDir));

/** Waits for `check` on the source's snapshots and returns how long it took. */
async function within(source: LiveSource, what: string, check: (s: Snapshot) => boolean, change: () => void): Promise<number> {
  const started = performance.now();
  change();
  await waitFor(what, () => (check(source.current()) ? true : undefined), 3000);
  return performance.now() - started;
}

test("a node starting, its commits and log lines, and its stop reach the snapshot within 1 s", async () => {
  const source = new LiveSource(dataDir, { probeEveryMs: 60_000 });
  await source.refresh();
  source.start();
  const lock = join(dataDir, "charter.lock");
  try {
    assert.equal(source.current().store.mode, "immutable");
    const started = await within(source, "the node to be seen running", (s) => s.node.running && s.store.mode === "live", () =>
      writeFileSync(lock, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), workers: { engine: process.pid } })),
    );
    assert.ok(started < 1000, `seen running after ${started} ms`);

    const writer = openDatabase(join(dataDir, "charter.db"));
    const insert = writer.prepare(
      "INSERT INTO history (seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) VALUES (?, 'acme', 'acme.counter', 'Tally', 't-9', 'Increment', 'did:key:z6Mk', 'art', 'accepted', NULL, '{}', 'j', 'b', 'a', 'r', ?)",
    );
    const committed = await within(source, "the commit in Activity", (s) => s.activity.entries[0]?.seq === 7, () => insert.run(7, Date.now()));
    assert.ok(committed < 1000, `commit seen after ${committed} ms`);
    writer.close();

    const line = { t: new Date().toISOString(), level: "error", component: "engine", msg: "disk full" };
    const logged = await within(source, "the log line", (s) => s.logs.at(-1)?.msg === "disk full", () => appendFileSync(join(dataDir, "logs", "charter.log"), `${JSON.stringify(line)}\n`));
    assert.ok(logged < 1000, `log line seen after ${logged} ms`);

    const stopped = await within(source, "the node to be seen stopped", (s) => !s.node.running && s.store.mode !== "live", () => rmSync(lock));
    assert.ok(stopped < 1000, `seen stopped after ${stopped} ms`);
    assert.equal(source.current().activity.entries[0]?.seq, 7, "the store still reads after the switch");
  } finally {
    source.close();
    rmSync(lock, { force: true });
  }
});

test("idle, the source costs next to no CPU", async () => {
  const source = new LiveSource(dataDir, { probeEveryMs: 60_000 });
  await source.refresh();
  source.start();
  try {
    await sleep(200);
    const before = process.cpuUsage();
    await sleep(3000);
    const used = process.cpuUsage(before);
    const ms = (used.user + used.system) / 1000;
    // A busy poll would burn most of the 3 s; the 1 s fallback tick costs a few stats each time.
    assert.ok(ms < 150, `used ${ms.toFixed(1)} ms of CPU in 3 s idle`);
  } finally {
    source.close();
  }
});
