/**
 * `std.tasks`, the node's contract of the person's tasks, in a store without a node: its declared
 * queries answer from the indexes the engine derives from their `where` and `sort` (the agenda's
 * range, the overdue, the repeating, the count of tasks due, the status lists), and the range query
 * finds exactly the tasks due in it.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { SQLInputValue } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { bindings, compileQuery, queryPlan } from "../contracts/query/query-sql.ts";
import { queryRunner } from "../workers/gateway/reads/run-query.ts";
import { type QueryStore, queryStore } from "./helpers/query-store.ts";

const COUNT = 3000;
let s: QueryStore;
const dueOn = (i: number) => new Date(Date.UTC(2030, 0, 1) + (i % 365) * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  s = await queryStore(["me"]);
  s.install("me", readFileSync(new URL("../contracts/std/node/tasks.charter.md", import.meta.url), "utf8"));
  s.db.exec("BEGIN");
  for (let i = 0; i < COUNT; i++) {
    s.commit("me", "std.tasks", "Task", `task-${String(i).padStart(5, "0")}`, {
      title: `task ${i}`,
      status: i % 5 === 0 ? "Done" : "Open",
      has_due: i % 7 !== 0,
      due_on: i % 7 !== 0 ? dueOn(i) : "1970-01-01",
      repeats: i % 11 === 0,
      repeat: i % 11 === 0 ? "Weekly" : "None",
      created_at: 1,
    });
  }
  s.db.exec("COMMIT");
});
after(() => s.close());

describe("std.tasks", () => {
  it("answers every query the routes use from a derived index, in the index's order", () => {
    const { schema } = s.schemas.get("std.tasks") ?? assert.fail();
    const runner = queryRunner(s.db);
    const cases: [string, [string, SQLInputValue][], RegExp][] = [
      ["Due", [["from", "2030-03-01"], ["to", "2030-03-31"], ["limit", 100]], /USING INDEX \S+__ix_[0-9a-f]+ \(tenant=\? AND f_status=\? AND f_has_due=\? AND f_due_on>\? AND f_due_on<\?\)/],
      ["Overdue", [["before", "2030-03-01"], ["limit", 100]], /USING INDEX \S+__ix_[0-9a-f]+ \(tenant=\? AND f_status=\? AND f_has_due=\? AND f_due_on<\?\)/],
      ["DueCount", [["before", "2030-03-01"]], /USING COVERING INDEX \S+__ix_[0-9a-f]+ \(tenant=\? AND f_status=\? AND f_has_due=\? AND f_due_on<\?\)/],
      ["Repeating", [["to", "2030-03-31"], ["limit", 100]], /USING INDEX \S+__ix_[0-9a-f]+ \(tenant=\? AND f_status=\? AND f_repeats=\? AND f_due_on<\?\)/],
      ["Open", [["after", ""], ["limit", 50]], /USING INDEX \S+__ix_[0-9a-f]+ \(tenant=\? AND f_status=\? AND subject>\?\)/],
      ["Done", [["after", ""], ["limit", 50]], /USING INDEX \S+__ix_[0-9a-f]+ \(tenant=\? AND f_status=\? AND subject>\?\)/],
    ];
    for (const [name, params, expected] of cases) {
      const compiled = compileQuery(schema, queryPlan(schema, name) ?? assert.fail(name), { resolve: (n) => runner.resolve("me", n) });
      const plan = s.db.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(bindings(compiled, "me", new Map(params))) as { detail: string }[];
      const details = plan.map((p) => p.detail).join(" | ");
      assert.match(details, expected, name);
      assert.doesNotMatch(details, /TEMP B-TREE/, `${name}: the index gives the order`);
    }
  });

  it("Due answers the open tasks due in the range, by due date; DueCount counts those due before a day", () => {
    const rows = s.rows("me", "std.tasks", "Due", { from: "2030-03-01", to: "2030-03-31", limit: 1000 });
    const expected = Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 5 !== 0 && i % 7 !== 0 && dueOn(i) >= "2030-03-01" && dueOn(i) <= "2030-03-31");
    assert.equal(rows.length, expected.length);
    const days = rows.map((r) => r.due_on as string);
    assert.deepEqual(days, [...days].sort(), "by due date");
    const before = Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 5 !== 0 && i % 7 !== 0 && dueOn(i) < "2030-03-01").length;
    assert.deepEqual(s.rows("me", "std.tasks", "DueCount", { before: "2030-03-01" }), [{ tasks: before }]);
    assert.equal(s.rows("me", "std.tasks", "Due", { from: "2030-03-01", to: "2030-03-31", limit: 10 }).length, 10, "take $limit");
  });
});
