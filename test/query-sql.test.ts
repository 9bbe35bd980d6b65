/**
 * Compiling query plans to SQL (issue 4, item 5 "Reads"): the statement's shape and bindings,
 * what it answers on a real state table, and that the tenant filter is served by the primary key.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";
import { compileContract } from "../contracts/compile.ts";
import type { Schema } from "../contracts/schema.ts";
import { tableName, toColumn } from "../contracts/storage/columns.ts";
// The engine derives the tables; using its function keeps this test on the real layout.
import { deriveTables, StateTable } from "../workers/engine/state-table.ts";
import { QueryArithmeticError, registerIntFunctions } from "../workers/gateway/reads/int-functions.ts";
import { bindings, compileQuery, queryPlan } from "../contracts/query/query-sql.ts";
import { UnsupportedQuery } from "../contracts/query/sql-expr.ts";

function schemaOf(file: string): Schema {
  const compiled = compileContract(readFileSync(new URL(`../contracts/examples/${file}`, import.meta.url), "utf8"));
  assert.ok(compiled.artifact, JSON.stringify(compiled.diagnostics));
  return compiled.artifact.schema;
}

const shipping = schemaOf("shipping.charter.md");
const inventory = schemaOf("inventory.charter.md");
const compile = (schema: Schema, name: string) => compileQuery(schema, queryPlan(schema, name) ?? assert.fail(`no query ${name}`));
/** The statement without the INDEXED BY of its derived index (asserted on its own). */
const unindexed = (sql: string) => sql.replace(/ INDEXED BY "[^"]+__ix_[0-9a-f]{12}"/, "");

function storeWith(schema: Schema): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  deriveTables(db, schema);
  registerIntFunctions(db);
  return db;
}

function run(db: DatabaseSync, schema: Schema, query: string, tenant: string, params: Record<string, unknown>): Record<string, unknown>[] {
  const compiled = compile(schema, query);
  const plan = queryPlan(schema, query);
  const values = new Map(plan?.params.map((p) => [p.name, toColumn(p.type, params[p.name])]) ?? []);
  return db.prepare(compiled.sql).all(bindings(compiled, tenant, values)) as Record<string, unknown>[];
}

describe("compileQuery", () => {
  it("compiles ByStatus into one statement with the tenant, the parameter and the count bound", () => {
    const q = compile(shipping, "ByStatus");
    const columns = ["subject", "key", "status", "customer", "destination", "units", "crates", "crates_checked", "paid", "credit_terms", "requested_by", "confirmed_by"];
    const select = columns.map((c) => (c === "subject" || c === "key" ? `"t0".subject AS "${c}"` : `"t0"."f_${c}" AS "${c}"`)).join(", ");
    assert.match(q.sql, /INDEXED BY "st_acme_shipping_[0-9a-f]{12}__Order__ix_[0-9a-f]{12}"/);
    assert.equal(unindexed(q.sql), `SELECT ${select} FROM "${tableName(shipping, "Order")}" AS "t0" WHERE "t0".tenant = :tenant AND ("t0"."f_status" = :p_status) ORDER BY "t0".subject LIMIT +:v0`);
    assert.deepEqual(q.literals, { v0: 100n });
    assert.deepEqual(q.params, ["status"]);
    assert.deepEqual([...q.counts], []);
    assert.deepEqual(q.columns.map((c) => c.name), columns);
    assert.deepEqual(bindings(q, "acme", new Map([["status", "Requested"]])), { v0: 100n, tenant: "acme", p_status: "Requested" });
  });

  it("folds where, sort desc, drop, take and select into one SELECT; enum literals and counts are bound, never spliced", () => {
    const q = compile(inventory, "PriceList");
    assert.equal(
      unindexed(q.sql),
      `SELECT "t0".subject AS "id", "t0"."f_name" AS "name", charter_int('*', "t0"."f_stock", "t0"."f_price") AS "value" FROM "${tableName(inventory, "Item")}" AS "t0" ` +
        `WHERE "t0".tenant = :tenant AND (("t0"."f_stock" >= :p_min_stock) AND ("t0"."f_kind" <> :v0)) ORDER BY "t0"."f_price" DESC, "t0".subject LIMIT +:p_count OFFSET +:p_skip`,
    );
    assert.deepEqual(q.literals, { v0: "Kit" });
    assert.deepEqual([...q.counts].sort(), ["count", "skip"]);
  });

  it("compares identities with IS (unset values compare equal only to unset) and sorts by several keys", () => {
    const q = compile(inventory, "AddedBy");
    assert.match(q.sql, /\("t0"."f_added_by" IS :p_who\) AND \("t0"."f_added" >= :p_since\)/);
    assert.match(q.sql, /ORDER BY "t0"."f_added" DESC, "t0"."f_name", "t0".subject$/);
  });

  it("reads the rows left after paging through a subquery that carries its order", () => {
    const q = compile(inventory, "CheapestInStock");
    assert.match(unindexed(q.sql), /^SELECT "q1"\."key" AS "id", "q1"\."name" AS "name", "q1"\."price" AS "value" FROM \(SELECT .* "t0"."f_price" AS "#o0", "t0".subject AS "#o1" FROM "st_acme_inventory_[0-9a-f]{12}__Item" AS "t0" WHERE "t0".tenant = :tenant ORDER BY "t0"."f_price", "t0".subject LIMIT \+:p_n\) AS "q1" WHERE \("q1"\."stock" > :v0\) ORDER BY "q1"\."#o0", "q1"\."#o1"$/);
  });

  it("refuses a source that is not installed, naming it", () => {
    const plan = { ...(queryPlan(shipping, "ByStatus") ?? assert.fail()), source: { kind: "Collection", name: { name: "acme.billing.Invoice" } } } as never;
    assert.throws(() => compileQuery(shipping, plan), (e: unknown) => e instanceof UnsupportedQuery && /acme\.billing\.Invoice/.test(e.feature));
  });
});

describe("compiled queries on a state table", () => {
  const db = storeWith(inventory);
  const items = new StateTable(db, inventory, "Item");
  const item = (name: string, kind: string, stock: number, price: number, added = "2026-01-01", by: string | null = null) => ({ name, kind, stock, price, added_by: by, added, cost: 1 });
  items.write("acme", "i-1", "art_x", 1, item("hammer", "Tool", 3, 900));
  items.write("acme", "i-2", "art_x", 2, item("nail", "Part", 500, 2));
  items.write("acme", "i-3", "art_x", 3, item("screw", "Part", 0, 2));
  items.write("acme", "i-4", "art_x", 4, item("kit", "Kit", 9, 5000));
  items.write("acme", "i-5", "art_x", 5, item("saw", "Tool", 1, 900));
  items.write("other", "i-9", "art_x", 6, item("foreign", "Tool", 99, 99999));

  it("filters by tenant, orders stably (subject breaks ties) and pages", () => {
    const all = run(db, inventory, "PriceList", "acme", { min_stock: 0, skip: 0, count: 10 });
    assert.deepEqual(all.map((r) => r.id), ["i-1", "i-5", "i-2", "i-3"]);
    assert.deepEqual({ ...all[0] }, { id: "i-1", name: "hammer", value: 2700 });
    assert.deepEqual(run(db, inventory, "PriceList", "acme", { min_stock: 1, skip: 1, count: 2 }).map((r) => r.id), ["i-5", "i-2"]);
    assert.deepEqual(run(db, inventory, "PriceList", "acme", { min_stock: 0, skip: 4, count: 10 }), []);
  });

  it("applies a where after take to the rows the take left", () => {
    // The three cheapest are i-2, i-3 (price 2) and i-1 (900, before i-5 by subject); i-3 has no stock.
    assert.deepEqual(run(db, inventory, "CheapestInStock", "acme", { n: 3 }).map((r) => r.id), ["i-2", "i-1"]);
  });

  it("answers take 0 with no rows", () => {
    assert.deepEqual(run(db, inventory, "Nothing", "acme", {}), []);
  });

  it("short-circuits `and` like an action does: a guarded division never fails", () => {
    assert.match(compile(inventory, "PerUnit").sql, /\(CASE WHEN \("t0"."f_stock" > :v0\) THEN \(charter_int\('\/', "t0"."f_price", "t0"."f_stock"\) <= :p_max\) ELSE 0 END\)/);
    assert.deepEqual(run(db, inventory, "PerUnit", "acme", { max: 600 }), [
      { id: "i-1", name: "hammer", value: 300 },
      { id: "i-2", name: "nail", value: 0 },
      { id: "i-4", name: "kit", value: 555 },
    ].map((row) => Object.assign(Object.create(null), row)));
  });

  it("fails on integer overflow instead of answering a float", () => {
    items.write("acme", "i-6", "art_x", 7, item("gold", "Part", 2 ** 40, 2 ** 40));
    assert.throws(() => run(db, inventory, "Valuation", "acme", {}), (e: unknown) => e instanceof QueryArithmeticError && e.code === "overflow");
  });

  it("finds rows of one tenant through the primary key or a derived index led by the tenant", () => {
    for (const [schema, name] of [[shipping, "ByStatus"], [inventory, "PriceList"], [inventory, "CheapestInStock"]] as const) {
      const store = storeWith(schema);
      const q = compile(schema, name);
      const plan = store.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(bindings(q, "acme", new Map(q.params.map((p) => [p, 1])))) as { detail: string }[];
      assert.ok(plan.some((step) => /SEARCH .* USING (PRIMARY KEY|INDEX \S+__ix_[0-9a-f]+) \(tenant=\?/.test(step.detail)), `${name}: ${plan.map((s) => s.detail).join(" | ")}`);
    }
  });
});
