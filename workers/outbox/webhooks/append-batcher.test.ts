/** Group commit of journal appends, against a real journal on a file store. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Journal } from "../../../shared/journal.ts";
import { migrate } from "../../../shared/store/migrations.ts";
import { openDatabase } from "../../../shared/store/open.ts";
import { AppendBacklogError, AppendBatcher, type Appended } from "./append-batcher.ts";

function store() {
  const dir = mkdtempSync(join(tmpdir(), "charter-batcher-"));
  const db = openDatabase(join(dir, "charter.db"));
  migrate(db);
  return { db, journal: new Journal(db), close: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
}

const entry = (key: string, bytes = 10) => ({ topic: "hook", key, payload: { key }, bytes });

describe("AppendBatcher", () => {
  it("sends what arrives while an append commits as the next one, and answers each entry once it is committed", async () => {
    const s = store();
    const batches: number[] = [];
    let release: (() => void) | null = null;
    const batcher = new AppendBatcher(async (entries) => {
      batches.push(entries.length);
      // The first append is slow: everything that arrives meanwhile waits for the second.
      if (batches.length === 1) await new Promise<void>((r) => (release = r));
      return s.journal.appendMany(entries);
    });
    const first = batcher.append(entry("a"));
    await new Promise((r) => setImmediate(r));
    const rest = Array.from({ length: 20 }, (_, i) => batcher.append(entry(`b${i}`)));
    let answered = false;
    void Promise.all(rest).then(() => (answered = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(answered, false, "nothing is answered before its append commits");
    (release as unknown as () => void)();
    const answers = await Promise.all([first, ...rest]);
    assert.deepEqual(batches, [1, 20]);
    assert.ok(answers.every((a) => a.added));
    assert.equal(new Set(answers.map((a) => a.id)).size, 21);
    assert.equal((s.db.prepare("SELECT count(*) AS n FROM journal WHERE topic = 'hook'").get() as { n: number }).n, 21);
    s.close();
  });

  it("answers a key appended before with its first entry, added: false", async () => {
    const s = store();
    const batcher = new AppendBatcher(async (entries) => s.journal.appendMany(entries));
    const one = await batcher.append(entry("same"));
    const [again, twice] = await Promise.all([batcher.append(entry("same")), batcher.append(entry("same"))]);
    assert.deepEqual(one.added, true);
    assert.deepEqual([again, twice], [{ id: one.id, added: false }, { id: one.id, added: false }]);
    assert.equal((s.db.prepare("SELECT count(*) AS n FROM journal").get() as { n: number }).n, 1);
    s.close();
  });

  it("keeps each append within its entry and byte bounds", async () => {
    const sizes: number[] = [];
    const batcher = new AppendBatcher(
      async (entries) => {
        sizes.push(entries.length);
        return entries.map((_, i): Appended => ({ id: i, added: true }));
      },
      { maxEntries: 4, maxBytes: 100, maxWaiting: 100 },
    );
    await Promise.all([...Array.from({ length: 10 }, (_, i) => batcher.append(entry(`n${i}`))), batcher.append(entry("big", 500)), batcher.append(entry("after"))]);
    assert.deepEqual(sizes, [4, 4, 2, 1, 1], "a large entry goes alone; none is split or dropped");
  });

  it("rejects the entries of a failed append only, and refuses at once past its backlog", async () => {
    let calls = 0;
    const batcher = new AppendBatcher(
      async (entries) => {
        calls++;
        if (calls === 1) throw new Error("engine away");
        return entries.map((_, i) => ({ id: i + 1, added: true }));
      },
      { maxEntries: 10, maxBytes: 1000, maxWaiting: 2 },
    );
    const failed = batcher.append(entry("x"));
    await assert.rejects(failed, /engine away/);
    const waiting = [batcher.append(entry("y")), batcher.append(entry("z"))];
    await assert.rejects(batcher.append(entry("w")), AppendBacklogError);
    assert.deepEqual((await Promise.all(waiting)).map((a) => a.added), [true, true]);
    await batcher.idle();
  });
});
