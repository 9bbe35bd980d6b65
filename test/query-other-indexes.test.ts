/**
 * Issue 5, "storage for reads" for queries over another contract's collection: the indexes such a
 * query needs are derived on the other contract's tables — when the reading contract is installed,
 * and again on a new version of the other contract installed later (an upgrade) — and the planner
 * names them, so `explain query plan` shows them used.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Schema } from "../contracts/schema.ts";
import { tableName } from "../contracts/storage/columns.ts";
import { queryIndexName } from "../contracts/storage/read-indexes.ts";
import { bindings, type CompiledQuery } from "../contracts/query/query-sql.ts";
import { queryRunner } from "../workers/gateway/reads/run-query.ts";
import { type QueryStore, queryStore } from "./helpers/query-store.ts";

const billing = (version: string, upgrades: string | null) => `# Billing
\`\`\`charter
namespace acme.billing
version ${version}
${upgrades === null ? "" : `upgrades ${upgrades}`}

aggregate Invoice {
  public supplier: Text(len=40)
  public amount: Int
  public parent: Ref<Invoice>
${upgrades === null ? "" : "  public memo: Text(len=20)\n"}
  action Put(supplier: Text(len=40), amount: Int, parent: Ref<Invoice>) {
    authorize anyone
    apply {
      state.supplier = supplier
      state.amount = amount
      state.parent = parent
    }
  }
}
${upgrades === null ? "" : 'migrate Invoice {\n  state.memo = "v2"\n}\n'}\`\`\`
`;

const PAYABLES = `# Payables
\`\`\`charter
namespace acme.payables
version 1.0.0

record Row { subject: Text(len=128), amount: Int }

aggregate Note {
  public text: Text(len=20)

  action Set(text: Text(len=20)) {
    authorize anyone
    apply {
      state.text = text
    }
  }
}

query BySupplier(supplier: Text(len=40)) returns List<Row> api public pipe
  acme.billing.Invoice
  | where supplier == $supplier
  | sort amount desc
  | take 3
  | select subject, amount

query Chain(start: Text(len=128), target: Text(len=128)) returns List<Row> api public pipe
  acme.billing.Invoice
  | where subject == $start
  | shortest parent to $target
  | select subject, amount
\`\`\`
`;

let s: QueryStore;
let v1: { artifact: string; schema: Schema };
let payables: { artifact: string; schema: Schema };

const indexes = (table: string) => (s.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").all(table) as { name: string }[]).map((r) => r.name);
const explain = (compiled: CompiledQuery, params: Map<string, unknown>) =>
  (s.db.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(bindings(compiled, "acme", params as never)) as { detail: string }[]).map((r) => r.detail).join(" | ");
const statement = (query: string) => {
  const c = queryRunner(s.db).compiled(payables.schema, query, "acme", payables.artifact);
  assert.ok(c !== undefined && "sql" in c);
  return c;
};

before(async () => {
  s = await queryStore(["acme", "globex"]);
  v1 = s.install("acme", billing("1.0.0", null));
  payables = s.install("acme", PAYABLES);
  for (let i = 0; i < 20; i++) s.commit("acme", "acme.billing", "Invoice", `inv-${String(i).padStart(2, "0")}`, { supplier: `s${i % 3}`, amount: i * 10, parent: i === 0 ? null : `inv-${String(i - 1).padStart(2, "0")}` });
});
after(() => s.close());

describe("indexes for a query over another contract's collection", () => {
  it("are derived on that contract's table when the reading contract is installed", () => {
    const table = tableName(v1.schema, "Invoice");
    const names = indexes(table);
    assert.ok(names.includes(queryIndexName(v1.schema, "Invoice", 'tenant, "f_supplier", "f_amount" DESC, subject')), names.join(", "));
    assert.ok(names.includes(queryIndexName(v1.schema, "Invoice", 'tenant, "f_parent"')), names.join(", "));
  });

  it("are named by the planner and used", () => {
    const by = statement("BySupplier");
    assert.match(by.sql, /INDEXED BY/);
    assert.match(explain(by, new Map([["supplier", "s1"]])), /USING (COVERING )?INDEX \S+__ix_[0-9a-f]{12} \(tenant=\? AND f_supplier=\?\)/);
    assert.match(explain(statement("Chain"), new Map([["start", "inv-05"], ["target", "inv-02"]])), /USING (COVERING )?INDEX \S+__ix_[0-9a-f]{12} \(tenant=\? AND f_parent=\?\)/);
    assert.deepEqual(s.rows("acme", "acme.payables", "Chain", { start: "inv-05", target: "inv-02" }).map((r) => r.subject), ["inv-05", "inv-04", "inv-03", "inv-02"]);
    assert.deepEqual(s.rows("acme", "acme.payables", "BySupplier", { supplier: "s1" }), [
      { subject: "inv-19", amount: 190 },
      { subject: "inv-16", amount: 160 },
      { subject: "inv-13", amount: 130 },
    ]);
  });

  it("are derived on a new version of that contract installed later", () => {
    const v2 = s.install("acme", billing("1.1.0", v1.artifact));
    const names = indexes(tableName(v2.schema, "Invoice"));
    assert.ok(names.includes(queryIndexName(v2.schema, "Invoice", 'tenant, "f_supplier", "f_amount" DESC, subject')), names.join(", "));
    assert.ok(names.includes(queryIndexName(v2.schema, "Invoice", 'tenant, "f_parent"')), names.join(", "));
    assert.match(explain(statement("BySupplier"), new Map([["supplier", "s1"]])), new RegExp(`USING (COVERING )?INDEX ${tableName(v2.schema, "Invoice")}__ix_[0-9a-f]{12} \\(tenant=\\? AND f_supplier=\\?\\)`));
    assert.deepEqual(s.rows("acme", "acme.payables", "BySupplier", { supplier: "s2" }).map((r) => r.subject), ["inv-17", "inv-14", "inv-11"]);
  });

  it("are derived on every version of that contract another tenant has active", () => {
    // globex keeps billing 1.0.0 and installs payables now: 1.0.0's table already has them; nothing fails.
    s.install("globex", billing("1.0.0", null));
    s.install("globex", PAYABLES);
    assert.deepEqual(s.rows("globex", "acme.payables", "BySupplier", { supplier: "s1" }), []);
  });
});
