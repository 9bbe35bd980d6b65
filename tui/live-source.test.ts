/**
 * Issue 9: the live source follows the data directory — a commit (through `PRAGMA data_version`),
 * a log line, a node starting and stopping. How fast (target: within 1 s) and how little CPU it
 * uses idle are measured by bench/tui.ts; these tests assert what it sees.
 */
import assert from "node:assert/strict";
import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { cleanup, tempDataDir, waitFor } from "../test/helpers/charter-process.ts";
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

/** Makes a change and waits until the source's snapshot shows it. */
async function sees(source: LiveSource, what: string, check: (s: Snapshot) => boolean, change: () => void): Promise<void> {
  change();
  await waitFor(what, () => (check(source.current()) ? true : undefined), 10_000);
}

test("a node starting, its commits and log lines, and its stop reach the snapshot", async () => {
  const source = new LiveSource(dataDir, { probeEveryMs: 60_000 });
  await source.refresh();
  source.start();
  const lock = join(dataDir, "charter.lock");
  try {
    assert.equal(source.current().store.mode, "immutable");
    await sees(source, "the node to be seen running", (s) => s.node.running && s.store.mode === "live", () =>
      writeFileSync(lock, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), workers: { engine: process.pid } })),
    );

    const writer = openDatabase(join(dataDir, "charter.db"));
    const insert = writer.prepare(
      "INSERT INTO history (seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) VALUES (?, 'acme', 'acme.counter', 'Tally', 't-9', 'Increment', 'did:key:z6Mk', 'art', 'accepted', NULL, '{}', 'j', 'b', 'a', 'r', ?)",
    );
    await sees(source, "the commit in Activity", (s) => s.activity.entries[0]?.seq === 7, () => insert.run(7, Date.now()));
    writer.close();

    const line = { t: new Date().toISOString(), level: "error", component: "engine", msg: "disk full" };
    await sees(source, "the log line", (s) => s.logs.at(-1)?.msg === "disk full", () => appendFileSync(join(dataDir, "logs", "charter.log"), `${JSON.stringify(line)}\n`));

    await sees(source, "the node to be seen stopped", (s) => !s.node.running && s.store.mode !== "live", () => rmSync(lock));
    assert.equal(source.current().activity.entries[0]?.seq, 7, "the store still reads after the switch");
  } finally {
    source.close();
    rmSync(lock, { force: true });
  }
});
