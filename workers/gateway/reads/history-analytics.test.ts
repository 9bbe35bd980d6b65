/** Counting a tenant's history by day, refusal and aggregate on a migrated in-memory store: only its entries, only the range, bounded. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { DatabaseSync } from "node:sqlite";
import { migrate } from "../../../shared/store/migrations.ts";
import { openDatabase } from "../../../shared/store/open.ts";
import { historyAnalytics } from "./history-analytics.ts";

const DAY = 86_400_000;
const START = Date.parse("2026-03-01T00:00:00Z");

interface Entry {
  readonly tenant?: string;
  readonly namespace?: string;
  readonly aggregate?: string;
  readonly action?: string;
  readonly reason?: string | null;
  readonly at: number;
}

/** A store whose history holds `entries`, in seq order. */
function storeWith(entries: readonly Entry[]): DatabaseSync {
  const db = openDatabase(":memory:");
  migrate(db);
  const insert = db.prepare(
    "INSERT INTO history (seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) " +
      "VALUES (?, ?, ?, ?, 's', ?, 'did:key:z', 'art', ?, ?, '{}', 'jws', 'd', 'd', '{}', ?)",
  );
  entries.forEach((e, i) => {
    const reason = e.reason ?? null;
    insert.run(i + 1, e.tenant ?? "ada", e.namespace ?? "std.invoices", e.aggregate ?? "Invoice", e.action ?? "Record", reason === null ? "accepted" : "refused", reason === null ? null : JSON.stringify({ code: reason, condition: null, line: null, message: reason }), e.at);
  });
  return db;
}

describe("historyAnalytics", () => {
  it("counts the tenant's commands per day, its refusals by reason and action, and its busiest aggregates", () => {
    const db = storeWith([
      { at: START - 1 }, // the day before the range
      { at: START },
      { at: START + 5, reason: "condition_failed" },
      { at: START + 10, tenant: "globex", reason: "unauthorized" }, // another tenant
      { at: START + DAY + 1, action: "Pay", reason: "condition_failed" },
      { at: START + DAY + 2, namespace: "std.tasks", aggregate: "Task", action: "Add" },
      { at: START + DAY + 3, namespace: "std.tasks", aggregate: "Task", action: "Add", reason: "text_too_long" },
      { at: START + 3 * DAY }, // the day after the range
    ]);
    const counted = historyAnalytics(db, "ada", START, 2);
    assert.deepEqual(counted, {
      tenant: "ada",
      from: "2026-03-01",
      to: "2026-03-02",
      complete: true,
      countedFrom: null,
      totals: { commands: 5, accepted: 2, refused: 3 },
      days: [
        { date: "2026-03-01", commands: 2, accepted: 1, refused: 1 },
        { date: "2026-03-02", commands: 3, accepted: 1, refused: 2 },
      ],
      refusals: {
        byReason: [
          { code: "condition_failed", count: 2 },
          { code: "text_too_long", count: 1 },
        ],
        byAction: [
          { namespace: "std.invoices", action: "Pay", count: 1 },
          { namespace: "std.invoices", action: "Record", count: 1 },
          { namespace: "std.tasks", action: "Add", count: 1 },
        ],
      },
      busiest: [
        { namespace: "std.invoices", aggregate: "Invoice", commands: 3 },
        { namespace: "std.tasks", aggregate: "Task", commands: 2 },
      ],
    });
  });

  it("answers every day of the range, quiet ones as zeros, on an empty history too", () => {
    const counted = historyAnalytics(storeWith([]), "ada", START, 3);
    assert.deepEqual(counted.days.map((d) => [d.date, d.commands]), [["2026-03-01", 0], ["2026-03-02", 0], ["2026-03-03", 0]]);
    assert.deepEqual(counted.totals, { commands: 0, accepted: 0, refused: 0 });
    assert.equal(counted.complete, true);
  });

  it("reads at most maxEntries entries, the newest of the range, and says from when its counts are complete", () => {
    const entries = Array.from({ length: 40 }, (_, i) => ({ at: START + i * 3_600_000 }));
    const db = storeWith(entries);
    const whole = historyAnalytics(db, "ada", START, 2);
    assert.equal(whole.totals.commands, 40);
    const newest = historyAnalytics(db, "ada", START, 2, { maxEntries: 10 });
    assert.equal(newest.totals.commands, 10);
    assert.equal(newest.complete, false);
    assert.equal(newest.countedFrom, new Date(START + 30 * 3_600_000).toISOString());
    assert.deepEqual(newest.days.map((d) => d.commands), [0, 10]);
  });

  it("finds the range's entries across gaps in seq", () => {
    const db = storeWith(Array.from({ length: 30 }, (_, i) => ({ at: START + i * DAY })));
    db.exec("DELETE FROM history WHERE seq % 3 = 0");
    const counted = historyAnalytics(db, "ada", START + 10 * DAY, 10);
    assert.equal(counted.totals.commands, 10 - 3, "days 10 to 19, less the entries at seq 12, 15 and 18");
  });

  it("refuses a range it does not count", () => {
    const db = storeWith([]);
    assert.throws(() => historyAnalytics(db, "ada", START, 0));
    assert.throws(() => historyAnalytics(db, "ada", START, 367));
    assert.throws(() => historyAnalytics(db, "ada", START + 1, 1));
  });
});
