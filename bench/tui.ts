/**
 * @module Benchmark: how soon the console's live source shows a change (target: within 1 s) and
 * what it costs idle. Baseline in the same run: the same change noticed by a plain 1-second poll
 * of the database file (what the console would cost and lag without file watching).
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { cleanup, tempDataDir, waitFor } from "../test/helpers/charter-process.ts";
import { prepareConsoleData } from "../test/helpers/console-data.ts";
import { openDatabase } from "../shared/store/open.ts";
import { LiveSource } from "../tui/live-source.ts";
import { percentile, report } from "./lib.ts";

const dataDir = tempDataDir("charter-bench-tui-");
await prepareConsoleData(dataDir);
const source = new LiveSource(dataDir, { probeEveryMs: 60_000 });
await source.refresh();
source.start();
const writer = openDatabase(join(dataDir, "charter.db"));
const insert = writer.prepare(
  "INSERT INTO history (seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) VALUES (?, 'acme', 'acme.counter', 'Tally', 't', 'Increment', 'did:key:z6Mk', 'art', 'accepted', NULL, '{}', 'j', 'b', 'a', 'r', ?)",
);
const maxSeq = (writer.prepare("SELECT max(seq) AS s FROM history").get() as { s: number }).s;

// The baseline, running alongside: a reader polling PRAGMA data_version once a second.
const reader = openDatabase(join(dataDir, "charter.db"), { readOnly: true });
const version = reader.prepare("PRAGMA data_version");
let lastVersion = (version.get() as { data_version: number }).data_version;
let pollNoticed = 0;
const poller = setInterval(() => {
  const v = (version.get() as { data_version: number }).data_version;
  if (v !== lastVersion) {
    lastVersion = v;
    pollNoticed = performance.now();
  }
}, 1000);

// Latency: commit, then wait until the source's snapshot shows it (and until the poll notices).
const seen: number[] = [];
const polled: number[] = [];
for (let i = 1; i <= 10; i++) {
  const seq = maxSeq + i;
  await new Promise((r) => setTimeout(r, 150 + Math.random() * 400));
  const t0 = performance.now();
  pollNoticed = 0;
  insert.run(seq, Date.now());
  await waitFor("the commit", () => (source.current().activity.entries[0]?.seq === seq ? true : undefined), 10_000);
  seen.push(performance.now() - t0);
  await waitFor("the poll", () => (pollNoticed > 0 ? true : undefined), 10_000);
  polled.push(pollNoticed - t0);
}
clearInterval(poller);
reader.close();
seen.sort((a, b) => a - b);
polled.sort((a, b) => a - b);

// Idle cost over 3 s.
const before = process.cpuUsage();
await new Promise((r) => setTimeout(r, 3000));
const used = process.cpuUsage(before);
const idleMs = (used.user + used.system) / 1000;
source.close();

const pollBefore = process.cpuUsage();
const db = join(dataDir, "charter.db");
const timer = setInterval(() => statSync(db), 1000);
await new Promise((r) => setTimeout(r, 3000));
clearInterval(timer);
const pollUsed = process.cpuUsage(pollBefore);
writer.close();
cleanup(dataDir);

report("tui.change_seen_p50_ms", percentile(seen, 50), "ms", { label: "1 s poll", value: percentile(polled, 50), higherIsBetter: false, target: "< 1000 ms" });
report("tui.change_seen_max_ms", seen.at(-1) as number, "ms", { label: "1 s poll", value: polled.at(-1) as number, higherIsBetter: false, target: "< 1000 ms" });
report("tui.idle_cpu_ms_per_3s", idleMs, "ms", { label: "bare 1 s stat poll", value: (pollUsed.user + pollUsed.system) / 1000, higherIsBetter: false });
