import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { applyPersist, EMPTY_STORAGE, type LogEntry, type PersistentState, type PersistRecord } from "../raft/index.ts";
import { RaftStorage } from "./raft-storage.ts";
import { seededRandom } from "../../../shared/random.ts";


const lastOf = (s: PersistentState) => s.log.at(-1)?.index ?? s.snapshot.lastIndex;

/** A random but well-formed persist record against `s` (what a core could ask for). */
function randomRecord(s: PersistentState, next: () => number): PersistRecord {
  const term = s.term + (next() < 0.2 ? 1 : 0);
  const votedFor = next() < 0.5 ? s.votedFor : next() < 0.5 ? null : "b";
  const last = lastOf(s);
  let snapshot: PersistRecord["snapshot"];
  if (next() < 0.15 && last > s.snapshot.lastIndex) {
    const at = s.snapshot.lastIndex + 1 + Math.floor(next() * (last - s.snapshot.lastIndex));
    const entry = s.log.find((e) => e.index === at);
    // Sometimes a snapshot from a leader whose term at that index differs (the log must go).
    snapshot = { lastIndex: at, lastTerm: next() < 0.7 ? (entry?.term ?? term) : term + 1, data: `image-${at}` };
  }
  const base = snapshot?.lastIndex ?? s.snapshot.lastIndex;
  const lastAfterSnapshot = snapshot !== undefined && s.log.find((e) => e.index === snapshot.lastIndex)?.term !== snapshot.lastTerm ? base : Math.max(base, last);
  const fromIndex = Math.max(base + 1, lastAfterSnapshot + 1 - Math.floor(next() * 3));
  const count = Math.floor(next() * 4);
  const entries: LogEntry[] = [];
  for (let i = 0; i < count; i++) {
    const index = fromIndex + i;
    entries.push(next() < 0.2 ? { type: "no-op", index, term } : { type: "command", index, term, data: JSON.stringify({ i: index, r: next() }) });
  }
  return { term, votedFor, recovering: next() < 0.1, ...(snapshot ? { snapshot } : {}), fromIndex, entries };
}

test("raft.db holds what applyPersist computes, across reopenings and grouped writes", () => {
  const dir = mkdtempSync(join(tmpdir(), "charter-raft-storage-"));
  try {
    for (let seed = 1; seed <= 30; seed++) {
      const path = join(dir, `raft-${seed}.db`);
      const next = seededRandom(seed);
      let expected: PersistentState = EMPTY_STORAGE;
      let storage = new RaftStorage(path);
      assert.equal(storage.existed, false);
      for (let round = 0; round < 40; round++) {
        const group: PersistRecord[] = [];
        const n = 1 + Math.floor(next() * 3);
        for (let k = 0; k < n; k++) {
          const r = randomRecord(expected, next);
          group.push(r);
          expected = applyPersist(expected, r);
        }
        storage.write(group);
        if (next() < 0.2) {
          storage.close();
          storage = new RaftStorage(path);
          assert.equal(storage.existed, true);
        }
        assert.deepEqual(storage.load(), { ...expected, log: [...expected.log] }, `seed ${seed} round ${round}`);
      }
      storage.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
