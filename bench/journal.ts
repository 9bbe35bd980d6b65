/**
 * @module Benchmark: journal entries through append → claim → ack per second, in batches of 64,
 * on a file store with synchronous=FULL. Baseline in the same run: the same number of plain
 * INSERTs in batches of 64 into a table of the same shape (the least any durable queue must do).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Journal } from "../shared/journal.ts";
import { migrate } from "../shared/store/migrations.ts";
import { openDatabase, transaction } from "../shared/store/open.ts";
import { report } from "./lib.ts";

const N = 50_000;
const BATCH = 64;
const dir = mkdtempSync(join(tmpdir(), "charter-bench-journal-"));
const db = openDatabase(join(dir, "charter.db"));
migrate(db);
const journal = new Journal(db);

let started = performance.now();
for (let done = 0; done < N; done += BATCH) {
  transaction(db, () => {
    for (let i = 0; i < BATCH; i++) journal.append("bench", { i: done + i });
  });
  const claimed = journal.claim("bench#1", ["bench"], BATCH);
  journal.ack("bench#1", claimed.map((e) => e.id));
}
const journalPerS = N / ((performance.now() - started) / 1000);

db.exec("CREATE TABLE plain (id INTEGER PRIMARY KEY, topic TEXT, payload TEXT, created_at INTEGER)");
const insert = db.prepare("INSERT INTO plain (topic, payload, created_at) VALUES (?, ?, ?)");
started = performance.now();
for (let done = 0; done < N; done += BATCH) {
  transaction(db, () => {
    for (let i = 0; i < BATCH; i++) insert.run("bench", JSON.stringify({ i: done + i }), Date.now());
  });
}
const insertPerS = N / ((performance.now() - started) / 1000);
db.close();
rmSync(dir, { recursive: true, force: true });
report("journal.append_claim_ack_per_s", journalPerS, "entries/s", { label: "plain batched INSERT", value: insertPerS, higherIsBetter: true, target: ">= 20000/s" });
