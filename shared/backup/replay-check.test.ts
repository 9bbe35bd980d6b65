import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openDatabase } from "../store/open.ts";
import { cleanup, tempDataDir } from "../../test/helpers/charter-process.ts";
import { writeIncrements } from "../../test/helpers/history-store.ts";
import { example, seed } from "../../test/helpers/seed.ts";
import { replayCheck } from "./replay-check.ts";

let dir: string;
before(async () => {
  dir = tempDataDir("charter-replay-");
  const s = await seed(dir, { contracts: [example("counter.charter.md")] });
  writeIncrements(dir, { artifact: s.artifacts["acme.counter"] as string, signer: s.members[0]?.did as string, count: 300, subjects: 7 });
});
after(() => cleanup(dir));

const all = { subjects: 1000, entriesPerSubject: 1000 };

/** Runs `change` on a copy-like writer connection, checks, then rolls it back. */
function withChange(change: string, params: (string | number)[] = []) {
  const db = openDatabase(join(dir, "charter.db"));
  db.exec("BEGIN");
  try {
    db.prepare(change).run(...params);
    return replayCheck(db, all);
  } finally {
    db.exec("ROLLBACK");
    db.close();
  }
}

test("a sound store replays: every subject, every entry", () => {
  const db = openDatabase(join(dir, "charter.db"), { readOnly: true });
  try {
    assert.deepEqual(replayCheck(db, all), { ok: true, subjects: 7, entries: 300 });
    const sampled = replayCheck(db, { subjects: 3, entriesPerSubject: 1000 });
    assert.ok(sampled.ok && sampled.subjects === 3 && sampled.entries < 300);
    // Subjects with more entries than the limit are passed over, not half-checked.
    assert.deepEqual(replayCheck(db, { subjects: 1000, entriesPerSubject: 10 }), { ok: true, subjects: 0, entries: 0 });
  } finally {
    db.close();
  }
});

test("a changed record, a lost entry, a changed entry or a lost artifact is found", () => {
  const table = (openDatabase(join(dir, "charter.db"), { readOnly: true }).prepare("SELECT name FROM sqlite_master WHERE name LIKE 'st_acme_counter_%__Tally'").get() as { name: string }).name;
  const stored = withChange(`UPDATE "${table}" SET f_count = f_count + 1 WHERE subject = 'tally-3'`);
  assert.deepEqual(stored, { ok: false, message: "acme/acme.counter/Tally 'tally-3': its stored record is not the state its history replays to" });
  const lost = withChange("DELETE FROM history WHERE seq = 100");
  assert.equal(lost.ok, false);
  assert.match((lost as { message: string }).message, /starts from a state that the entry before it did not leave/);
  const changed = withChange("UPDATE history SET after_digest = before_digest WHERE seq = 50");
  assert.match((changed as { message: string }).message, /the state after history entry 50 does not match its digest/);
  const artifact = withChange("UPDATE history SET artifact = 'art_gone' WHERE seq = 20");
  assert.match((artifact as { message: string }).message, /history entry 20 names artifact art_gone, which the store does not hold/);
});
