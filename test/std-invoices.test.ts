/**
 * Issue 5, "Sources": the standard library's `std.invoices` is installed in every tenant and read
 * by a tenant's own contract — the specification's example query pages through 10,000 invoices
 * without a gap or a repeat, served by the composite index derived at install.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { compileContract } from "../contracts/compile.ts";
import { generateKeyPair } from "../shared/identity/index.ts";
import { bindings, compileQuery, queryPlan } from "../contracts/query/query-sql.ts";
import { queryRunner } from "../workers/gateway/reads/run-query.ts";
import { type QueryStore, queryStore } from "./helpers/query-store.ts";

const ada = generateKeyPair();
const bob = generateKeyPair();
const COUNT = 10_000;
let s: QueryStore;
let notVoid = 0;

const invoice = (i: number, owner: string) => ({
  reference: `REF-${i}`,
  supplier: `Supplier ${i % 7}`,
  number: `N${i}`,
  amount_minor: 100 + i,
  currency: "EUR",
  issued_on: "2026-01-01",
  due_on: "2026-02-01",
  status: i % 10 === 0 ? "Void" : "Open",
  source: "mail",
  digest: `d${i}`,
  note: "",
  payment_reference: "",
  owner,
});

before(async () => {
  s = await queryStore(["acme", "globex"]);
  s.install("acme", readFileSync(new URL("./fixtures/payables.charter.md", import.meta.url), "utf8"));
  s.db.exec("BEGIN");
  // Ada's invoices interleaved with Bob's, subjects not in insertion order.
  for (let i = 0; i < COUNT; i++) {
    const n = (i * 7919) % COUNT;
    s.commit("acme", "std.invoices", "Invoice", `inv-${String(n).padStart(5, "0")}`, invoice(n, ada.did));
    notVoid += n % 10 === 0 ? 0 : 1;
    if (i % 4 === 0) {
      s.commit("acme", "std.invoices", "Invoice", `inv-${String(n).padStart(5, "0")}-b`, invoice(n, bob.did));
      notVoid += n % 10 === 0 ? 0 : 1;
    }
  }
  s.commit("globex", "std.invoices", "Invoice", "inv-00001", invoice(1, ada.did));
  s.db.exec("COMMIT");
});
after(() => s.close());

describe("std.invoices", () => {
  it("is installed in every tenant", () => {
    const rows = s.db.prepare("SELECT tenant FROM installs WHERE namespace = 'std.invoices' AND status = 'active' ORDER BY tenant").all();
    assert.deepEqual(rows.map((r) => r.tenant), ["acme", "globex"]);
  });

  it("pages through 10,000 invoices with the specification's query: no gap, no repeat", () => {
    const seen: string[] = [];
    let afterKey = "";
    for (;;) {
      const page = s.rows("acme", "acme.payables", "OpenInvoices", { owner: ada.did, after: afterKey });
      if (page.length === 0) break;
      assert.ok(page.length <= 50);
      for (const row of page) seen.push(row.id as string);
      afterKey = page.at(-1)?.id as string;
    }
    const expected = Array.from({ length: COUNT }, (_, n) => `inv-${String(n).padStart(5, "0")}`);
    assert.equal(seen.length, COUNT);
    assert.deepEqual(seen, expected);
    const first = s.rows("acme", "acme.payables", "OpenInvoices", { owner: ada.did, after: "" })[0];
    assert.deepEqual(first, {
      id: "inv-00000",
      reference: "REF-0",
      supplier: "Supplier 0",
      number: "N0",
      amount_minor: 100,
      currency: "EUR",
      issued_on: "2026-01-01",
      due_on: "2026-02-01",
      status: "Void",
      source: "mail",
      digest: "d0",
      note: "",
      payment_reference: "",
    });
  });

  it("is served by the composite index (owner, subject) derived when std.invoices was installed", () => {
    const { schema } = s.schemas.get("acme.payables") ?? assert.fail();
    const runner = queryRunner(s.db);
    const compiled = compileQuery(schema, queryPlan(schema, "OpenInvoices") ?? assert.fail(), { resolve: (name) => runner.resolve("acme", name) });
    const plan = s.db.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(bindings(compiled, "acme", new Map([["owner", ada.did], ["after", ""]]))) as { detail: string }[];
    const details = plan.map((p) => p.detail).join(" | ");
    assert.match(details, /SEARCH t0 USING INDEX \S+__ix_[0-9a-f]+ \(tenant=\? AND f_owner=\? AND subject>\?\)/);
    assert.doesNotMatch(details, /TEMP B-TREE/, "the index gives the order: no sort");
  });

  it("summarizes another contract's collection, next to the contract's own aggregates", () => {
    const spend = s.rows("acme", "acme.payables", "SpendBySupplier");
    assert.equal(spend.length, 7);
    assert.equal(spend.reduce((n, r) => n + (r.n as number), 0), notVoid);
    assert.deepEqual(s.rows("acme", "acme.payables", "Budgets"), []);
  });

  it("rejects at compile time a query over a collection the tenant does not have", () => {
    const source = readFileSync(new URL("./fixtures/payables.charter.md", import.meta.url), "utf8").replaceAll("std.invoices", "std.receipts");
    const compiled = compileContract(source, { resolveCollection: () => null });
    assert.equal(compiled.artifact, undefined);
    assert.match(compiled.diagnostics[0]?.message ?? "", /std\.receipts/);
  });
});
