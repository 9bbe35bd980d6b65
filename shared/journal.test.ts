import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { ManualClock } from "./clock.ts";
import { Journal } from "./journal.ts";
import { migrate } from "./store/migrations.ts";
import { openDatabase } from "./store/open.ts";

function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "charter-journal-"));
  const path = join(dir, "charter.db");
  const db = openDatabase(path);
  migrate(db);
  return { dir, path, db };
}

test("append, claim, ack: an acked entry is never delivered again", () => {
  const { dir, db } = fresh();
  const clock = new ManualClock(1000);
  const j = new Journal(db, clock);
  const a = j.append("effect", { n: 1 });
  const b = j.append("effect", { n: 2 });
  const claimed = j.claim("w1", ["effect"], 10);
  assert.deepEqual(claimed.map((e) => e.id), [a, b]);
  assert.deepEqual(claimed[0]?.payload, { n: 1 });
  assert.deepEqual(j.ack("w1", [a]), [a]);
  clock.advance(60_000);
  assert.deepEqual(j.claim("w2", ["effect"], 10).map((e) => e.id), [b], "only the unacked entry comes back after its lease");
  assert.deepEqual(j.ack("w1", [b]), [], "the old holder's ack is stale");
  db.close();
  rmSync(dir, { recursive: true });
});

test("a key makes appends idempotent", () => {
  const { dir, db } = fresh();
  const j = new Journal(db, new ManualClock());
  const first = j.append("mail", { to: "a" }, { key: "k1" });
  assert.equal(j.append("mail", { to: "a" }, { key: "k1" }), first);
  assert.equal(j.stats().ready, 1);
  db.close();
  rmSync(dir, { recursive: true });
});

test("failures back off exponentially and dead-letter with the last error", () => {
  const { dir, db } = fresh();
  const clock = new ManualClock(0);
  const j = new Journal(db, clock, { maxAttempts: 3, backoffBaseMs: 100 });
  const id = j.append("effect", {});
  assert.equal(j.claim("w", ["effect"], 1).length, 1);
  assert.equal(j.fail("w", id, "timeout 1"), "retry");
  assert.equal(j.claim("w", ["effect"], 1).length, 0, "not due before its back-off");
  clock.advance(100);
  assert.equal(j.claim("w", ["effect"], 1)[0]?.attempts, 2);
  assert.equal(j.fail("w", id, "timeout 2"), "retry");
  clock.advance(199);
  assert.equal(j.claim("w", ["effect"], 1).length, 0);
  clock.advance(1);
  assert.equal(j.claim("w", ["effect"], 1).length, 1);
  assert.equal(j.fail("w", id, "timeout 3"), "dead");
  const row = db.prepare("SELECT state, last_error FROM journal WHERE id = ?").get(id) as { state: string; last_error: string };
  assert.deepEqual({ ...row }, { state: "dead", last_error: "timeout 3" });
  assert.equal(j.fail("w", id, "again"), "stale");
  db.close();
  rmSync(dir, { recursive: true });
});

test("release hands a dead holder's claims back at once; an entry that kills every holder is dead-lettered", () => {
  const { dir, db } = fresh();
  const j = new Journal(db, new ManualClock(), { maxAttempts: 2 });
  const id = j.append("effect", {});
  j.claim("w#1", ["effect"], 1);
  assert.equal(j.release("w#1"), 1);
  assert.equal(j.claim("w#2", ["effect"], 1)[0]?.id, id);
  j.release("w#2");
  assert.equal(j.claim("w#3", ["effect"], 1).length, 0);
  assert.equal(j.stats().dead, 1);
  db.close();
  rmSync(dir, { recursive: true });
});

type Op =
  | { t: "append" }
  | { t: "claim"; w: number; n: number }
  | { t: "ack"; w: number; pick: number }
  | { t: "fail"; w: number; pick: number }
  | { t: "crash"; w: number; release: boolean }
  | { t: "restart" }
  | { t: "tick"; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ t: "append" as const }),
  fc.record({ t: fc.constant("claim" as const), w: fc.nat(2), n: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ t: fc.constant("ack" as const), w: fc.nat(2), pick: fc.nat(7) }),
  fc.record({ t: fc.constant("fail" as const), w: fc.nat(2), pick: fc.nat(7) }),
  fc.record({ t: fc.constant("crash" as const), w: fc.nat(2), release: fc.boolean() }),
  fc.constant({ t: "restart" as const }),
  fc.record({ t: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
);

test("property: random append/claim/ack/fail/crash/restart interleavings lose nothing and never re-deliver an acked entry", () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
      const { dir, path } = fresh();
      let db = openDatabase(path);
      const clock = new ManualClock(0);
      const options = { leaseMs: 30_000, maxAttempts: 5, backoffBaseMs: 10 };
      let j = new Journal(db, clock, options);
      const appended = new Set<number>();
      const acked = new Set<number>();
      // What each worker holds, with when its lease runs out.
      const held: Map<number, number>[] = [new Map(), new Map(), new Map()];
      const generation = [0, 0, 0];
      const name = (w: number) => `w${w}#${generation[w]}`;
      try {
        for (const o of ops) {
          switch (o.t) {
            case "append":
              appended.add(j.append("t", { at: clock.now() }));
              break;
            case "claim":
              for (const e of j.claim(name(o.w), ["t"], o.n)) {
                assert.ok(!acked.has(e.id), `acked entry ${e.id} delivered again`);
                for (const h of held) h.delete(e.id);
                held[o.w]?.set(e.id, clock.now() + options.leaseMs);
              }
              break;
            case "ack": {
              const ids = [...(held[o.w]?.keys() ?? [])];
              const id = ids[o.pick % Math.max(1, ids.length)];
              if (id === undefined) break;
              const live = (held[o.w]?.get(id) ?? 0) > clock.now();
              const done = j.ack(name(o.w), [id]);
              if (live) assert.deepEqual(done, [id], "the holder of a live claim can always ack");
              if (done.length === 1) acked.add(id);
              held[o.w]?.delete(id);
              break;
            }
            case "fail": {
              const ids = [...(held[o.w]?.keys() ?? [])];
              const id = ids[o.pick % Math.max(1, ids.length)];
              if (id === undefined) break;
              const live = (held[o.w]?.get(id) ?? 0) > clock.now();
              const result = j.fail(name(o.w), id, "boom");
              if (live) assert.notEqual(result, "stale");
              held[o.w]?.delete(id);
              break;
            }
            case "crash":
              if (o.release) j.release(name(o.w));
              held[o.w]?.clear();
              generation[o.w] = (generation[o.w] ?? 0) + 1;
              break;
            case "restart":
              db.close();
              db = openDatabase(path);
              j = new Journal(db, clock, options);
              for (let w = 0; w < 3; w++) {
                held[w]?.clear();
                generation[w] = (generation[w] ?? 0) + 1;
              }
              break;
            case "tick":
              clock.advance(o.ms);
              break;
          }
        }
        // Drain: every entry not acked or dead-lettered must still be deliverable.
        for (let round = 0; round < 20; round++) {
          clock.advance(120_000);
          const batch = j.claim("drain", ["t"], 1000);
          for (const e of batch) assert.ok(!acked.has(e.id), `acked entry ${e.id} delivered again in drain`);
          for (const id of j.ack("drain", batch.map((e) => e.id))) acked.add(id);
        }
        const rows = db.prepare("SELECT id, state FROM journal").all() as { id: number; state: string }[];
        assert.equal(rows.length, appended.size, "no entry lost");
        for (const r of rows) {
          assert.ok(r.state === "done" || r.state === "dead", `entry ${r.id} left in ${r.state}`);
          assert.equal(r.state === "done", acked.has(r.id), `entry ${r.id}: done iff acked`);
        }
      } finally {
        db.close();
        rmSync(dir, { recursive: true });
      }
    }),
    { numRuns: 150 },
  );
});

test("compact empties a member of done entries past their time, and keeps the entry, its key and its result", () => {
  const { dir, db } = fresh();
  const clock = new ManualClock(1_000);
  const j = new Journal(db, clock, { maxAttempts: 1 });
  const body = "x".repeat(10_000);
  const old = j.append("hook", { source: "github", delivery: "d1", body }, { key: "github:d1" });
  const dead = j.append("hook", { source: "github", delivery: "d2", body }, { key: "github:d2" });
  const pending = j.append("hook", { source: "github", delivery: "d3", body }, { key: "github:d3", maxAttempts: 5 });
  const other = j.append("effect", { body }, { key: "e1" });
  j.claim("w", ["hook", "effect"], 2 + 1 + 1);
  assert.deepEqual(j.complete("w", [{ id: old, result: { outcome: "done" } }, { id: other, result: { ok: true } }]), [old, other]);
  assert.equal(j.fail("w", dead, "no mapping", { permanent: true }), "dead");
  assert.equal(j.fail("w", pending, "try later", { retryInMs: 1 }), "retry");
  clock.advance(10_000);
  const recent = j.append("hook", { source: "github", delivery: "d4", body }, { key: "github:d4" });
  j.claim("w", ["hook"], 10);
  j.complete("w", [{ id: recent, result: { outcome: "done" } }]);

  // Only what was done before the cut: d1 (the effect's topic is another's, d4 too new).
  const all = [0, Number.MAX_SAFE_INTEGER] as const;
  assert.equal(j.compact("hook", "body", 5_000, ...all), 1);
  const got = j.get("hook", old);
  assert.deepEqual(got?.payload, { source: "github", delivery: "d1", body: "", compactedAt: 11_000 });
  assert.deepEqual([got?.state, got?.result], ["done", { outcome: "done" }]);
  assert.equal((j.get("hook", dead)?.payload as { body: string }).body, body, "a dead entry may be revived: kept whole");
  assert.equal((j.get("hook", pending)?.payload as { body: string }).body, body);
  assert.equal((j.get("hook", recent)?.payload as { body: string }).body, body);
  assert.equal((j.get("effect", other)?.payload as { body: string }).body, body);
  // Compacted once; the key still admits the delivery once.
  assert.equal(j.compact("hook", "body", 5_000, ...all), 0);
  assert.equal(j.append("hook", { source: "github", delivery: "d1", body }, { key: "github:d1" }), old);
  // Later, d4 too, but only within the range of entries a call is given.
  clock.advance(10_000);
  assert.equal(j.compact("hook", "body", clock.now(), recent, Number.MAX_SAFE_INTEGER), 0);
  assert.equal(j.compact("hook", "body", clock.now(), 0, recent - 1), 0);
  assert.equal(j.compact("hook", "body", clock.now(), old, recent), 1);
  assert.throws(() => j.compact("hook", "body') --", 0, 0, 1), /not a payload member/);
  db.close();
  rmSync(dir, { recursive: true });
});
