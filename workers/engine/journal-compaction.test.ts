import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ManualClock } from "../../shared/clock.ts";
import { Journal } from "../../shared/journal.ts";
import { silentLogger } from "../../shared/log.ts";
import { COMPACT_AFTER_MS, HOOK_TOPIC, MAIL_TOPIC } from "../../shared/protocol/outbox.ts";
import { migrate } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { compactJournal } from "./journal-compaction.ts";

test("a pass compacts the deliveries and messages done before the retention, a window of entries per write-path turn", async () => {
  const dir = mkdtempSync(join(tmpdir(), "charter-compaction-"));
  const db = openDatabase(join(dir, "charter.db"));
  try {
    migrate(db);
    const clock = new ManualClock(Date.parse("2026-11-01T00:00:00Z"));
    const journal = new Journal(db, clock);
    const hooks = Array.from({ length: 1_100 }, (_, i) => ({ topic: HOOK_TOPIC, key: `github:${i}`, payload: { source: "github", delivery: String(i), body: "{}".padEnd(2_000, " ") } }));
    const mails = Array.from({ length: 20 }, (_, i) => ({ topic: MAIL_TOPIC, key: `a:1:${i}`, payload: { account: "a", uid: i, text: "Dear Ada, ".repeat(200) } }));
    journal.appendMany([...hooks, ...mails]);
    for (const topic of [HOOK_TOPIC, MAIL_TOPIC]) {
      const claimed = journal.claim("gw", [topic], 5_000);
      journal.complete("gw", claimed.map((e) => ({ id: e.id, result: { outcome: "done" } })));
    }
    const size = () => Number((db.prepare("SELECT sum(length(payload)) AS n FROM journal").get() as { n: number }).n);
    const full = size();
    let turns = 0;
    const exclusive = async <T>(fn: () => T): Promise<T> => {
      turns += 1;
      return fn();
    };
    // Within the retention nothing goes.
    assert.equal(await compactJournal({ journal, exclusive, now: () => clock.now() + COMPACT_AFTER_MS - 1, log: silentLogger }), 0);
    assert.equal(size(), full);
    turns = 0;
    assert.equal(await compactJournal({ journal, exclusive, now: () => clock.now() + COMPACT_AFTER_MS + 1, log: silentLogger }), 1_120);
    assert.equal(turns, 3 + 3, "each topic's pass looks at the 1,120 entries a window of 500 at a time");
    assert.ok(size() < full / 10, `${size()} of ${full} bytes left`);
    const entry = journal.get(MAIL_TOPIC, journal.append(MAIL_TOPIC, {}, { key: "a:1:3" }));
    assert.deepEqual([(entry?.payload as { text: string }).text, entry?.state, entry?.result], ["", "done", { outcome: "done" }]);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
