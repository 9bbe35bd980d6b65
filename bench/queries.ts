/**
 * @module Query benchmarks: with `--records N` records (default 1,000,000) in one
 * tenant's table, the planned query through `runQuery` (parameter checks, the one statement,
 * value conversion) against the same query hand-written in SQL — or, for `nearest`, a tight loop
 * over the vectors already in memory — in the same run:
 *
 * - equality + sort + take 50 (served by the derived composite index), target p50 < 2 ms;
 * - `summarize … by` over all records;
 * - full-text search over `--docs` documents (default 100,000), target p50 < 20 ms;
 * - exact `nearest` over `--vectors` 384-dimension vectors (default 100,000), target < 150 ms.
 *
 * Each prints p50 and the ratio baseline/ours (target ≥ 0.8). Run alone: `node bench/queries.ts`;
 * `--only nearest` (or `equality`, `summarize`, `search`, comma-separated) runs and loads only those.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileContract } from "../contracts/compile.ts";
import { generateKeyPair } from "../shared/identity/index.ts";
import { columnName, quote, tableName } from "../contracts/storage/columns.ts";
import { migrate } from "../shared/store/migrations.ts";
import { openDatabase } from "../shared/store/open.ts";
import { ftsIds, ftsTable } from "../contracts/storage/read-indexes.ts";
import { installArtifact } from "../workers/engine/install.ts";
import { StateTable } from "../workers/engine/state-table.ts";
import { createTenant } from "../workers/engine/tenants.ts";
import { runQuery } from "../workers/gateway/reads/run-query.ts";
import { distance } from "../workers/gateway/reads/vector-distance.ts";
import { percentile, report } from "./lib.ts";
import { seededRandom } from "../shared/random.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const RECORDS = arg("records", 1_000_000);
const DOCS = arg("docs", 100_000);
const VECTORS = arg("vectors", 100_000);
const onlyAt = process.argv.indexOf("--only");
const ONLY = onlyAt >= 0 ? new Set((process.argv[onlyAt + 1] ?? "").split(",")) : null;
const runs = (part: "equality" | "summarize" | "search" | "nearest") => ONLY === null || ONLY.has(part);
const DIM = 384;

const CONTRACT = `# Bench
\`\`\`charter
namespace bench.queries
version 1.0.0

record Row { subject: Text(len=128), price: Int }
record Total { category: Text(len=20), n: Int, total: Int }
record Hit { subject: Text(len=128), score: Float }
record Near { subject: Text(len=128), distance: Float }

aggregate Item {
  public category: Text(len=20)
  public price: Int
  public name: Text(len=40)

  action Put(category: Text(len=20), price: Int, name: Text(len=40)) {
    authorize anyone
    apply {
      state.category = category
      state.price = price
      state.name = name
    }
  }
}

aggregate Doc {
  public body: Text(len=2000)

  index by_body fulltext(body)

  action Write(body: Text(len=2000)) {
    authorize anyone
    apply {
      state.body = body
    }
  }
}

aggregate Vec {
  public embedding: Vector(dim=${DIM})

  index by_embedding vector(embedding, cosine)

  action Set(embedding: Vector(dim=${DIM})) {
    authorize anyone
    apply {
      state.embedding = embedding
    }
  }
}

query Cheapest(category: Text(len=20)) returns List<Row> pipe
  Item
  | where category == $category
  | sort price
  | take 50
  | select subject, price

query Totals() returns List<Total> pipe
  Item
  | summarize count() as n, sum(price) as total by category

query Find(text: Text(len=100)) returns List<Hit> pipe
  Doc
  | search $text in body
  | take 20
  | select subject, score

query Nearest(v: Vector(dim=${DIM})) returns List<Near> pipe
  Vec
  | nearest embedding to $v take 10
  | select subject, distance
\`\`\`
`;


/** p50 in ms of `ours` and `base`, warmed up once each and then measured alternately (same cache, same load). */
function compare(runs: number, ours: (i: number) => unknown, base: (i: number) => unknown): [number, number] {
  ours(0);
  base(0);
  const a: number[] = [];
  const b: number[] = [];
  const once = (fn: (i: number) => unknown, i: number, into: number[]) => {
    const t = process.hrtime.bigint();
    fn(i);
    into.push(Number(process.hrtime.bigint() - t) / 1e6);
  };
  for (let i = 0; i < runs; i++) {
    once(ours, i, a);
    once(base, i, b);
  }
  return [percentile(a.sort((x, y) => x - y), 50), percentile(b.sort((x, y) => x - y), 50)];
}

const dir = mkdtempSync(join(tmpdir(), "charter-bench-queries-"));
try {
  const db = openDatabase(join(dir, "charter.db"), { synchronous: "OFF" });
  migrate(db);
  const owner = generateKeyPair();
  const created = await createTenant(db, { handle: "acme", owners: [owner.did], by: null, keysDir: join(dir, "keys"), now: 1 });
  if (!created.ok) throw new Error(created.error.message);
  const compiled = compileContract(CONTRACT);
  if (compiled.artifact === undefined) throw new Error(JSON.stringify(compiled.diagnostics));
  const a = compiled.artifact;
  const schema = a.schema;
  const installed = installArtifact(db, { tenant: "acme", artifact: { id: a.id, schemaJson: new TextDecoder().decode(a.schemaBytes), wasm: a.wasm, source: CONTRACT }, installedBy: owner.did, now: 1 });
  if (!installed.ok) throw new Error(installed.error.message);

  // Load: direct inserts into the derived tables (the engine's write path is measured elsewhere).
  const rnd = seededRandom(42);
  const categories = Array.from({ length: 1000 }, (_, i) => `c${i}`);
  let started = performance.now();
  const items = quote(tableName(schema, "Item"));
  const insertItem = db.prepare(`INSERT INTO ${items} (tenant, subject, artifact, seq, f_category, f_price, f_name) VALUES ('acme', ?, ?, 0, ?, ?, ?)`);
  db.exec("BEGIN");
  for (let i = 0; i < (runs("equality") || runs("summarize") ? RECORDS : 0); i++) insertItem.run(`item-${String(i).padStart(7, "0")}`, a.id, categories[Math.floor(rnd() * categories.length)] as string, Math.floor(rnd() * 100_000), `name ${i}`);
  db.exec("COMMIT");
  if (runs("equality") || runs("summarize")) process.stdout.write(`loaded ${RECORDS} records in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

  started = performance.now();
  const vocabulary = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
  const docs = new StateTable(db, schema, "Doc");
  db.exec("BEGIN");
  for (let i = 0; i < (runs("search") ? DOCS : 0); i++) {
    // Zipf-like word choice: low-numbered words are common.
    const words = Array.from({ length: 30 }, () => vocabulary[Math.floor(vocabulary.length * rnd() ** 3)] as string);
    docs.write("acme", `doc-${i}`, a.id, 0, { body: words.join(" ") });
  }
  db.exec("COMMIT");
  if (runs("search")) process.stdout.write(`loaded ${DOCS} documents (FTS5) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

  started = performance.now();
  const vecs = quote(tableName(schema, "Vec"));
  const insertVec = db.prepare(`INSERT INTO ${vecs} (tenant, subject, artifact, seq, ${quote(columnName("embedding"))}) VALUES ('acme', ?, ?, 0, ?)`);
  const memory: { subject: string; v: Float32Array }[] = [];
  db.exec("BEGIN");
  for (let i = 0; i < (runs("nearest") ? VECTORS : 0); i++) {
    const v = new Float32Array(DIM);
    for (let d = 0; d < DIM; d++) v[d] = rnd() * 2 - 1;
    insertVec.run(`vec-${String(i).padStart(6, "0")}`, a.id, new Uint8Array(v.buffer));
    memory.push({ subject: `vec-${String(i).padStart(6, "0")}`, v });
  }
  db.exec("COMMIT");
  if (runs("nearest")) process.stdout.write(`loaded ${VECTORS} vectors of ${DIM} dimensions in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  db.exec("ANALYZE");
  db.close();

  // Read as the gateway does: a read-only connection.
  const reader = openDatabase(join(dir, "charter.db"), { readOnly: true });
  const run = (query: string, params: Record<string, unknown>) => {
    const out = runQuery(reader, schema, query, "acme", params, a.id);
    if (!out.ok) throw new Error(`${query}: ${out.message}`);
    return out.rows;
  };

  // 1. equality + sort + take 50.
  if (runs("equality")) {
  const hand1 = reader.prepare(`SELECT subject, f_price AS price FROM ${items} WHERE tenant = ? AND f_category = ? ORDER BY f_price, subject LIMIT 50`);
  const category = (i: number) => categories[(i * 7) % categories.length] as string;
  const [ours1, base1] = compare(3000, (i) => run("Cheapest", { category: category(i) }), (i) => hand1.all("acme", category(i)));
  report(`equality + sort + take 50 over ${RECORDS} records p50`, ours1, "ms", { label: "hand-written SQL", value: base1, higherIsBetter: false, target: "p50 < 2 ms, ratio ≥ 0.8" });
  }

  // 2. summarize … by over all records.
  if (runs("summarize")) {
  const hand2 = reader.prepare(`SELECT f_category AS category, count(*) AS n, sum(f_price) AS total FROM ${items} WHERE tenant = ? GROUP BY f_category ORDER BY f_category`);
  const [ours2, base2] = compare(7, () => run("Totals", {}), () => hand2.all("acme"));
  report(`summarize … by over ${RECORDS} records p50`, ours2, "ms", { label: "hand-written SQL", value: base2, higherIsBetter: false, target: "ratio ≥ 0.8" });
  }

  // 3. full-text search.
  if (runs("search")) {
  // The tenant's own FTS5 table (BM25 statistics per tenant), as the query reads it.
  const fts = quote(ftsTable(schema, "Doc", "by_body", "acme"));
  const ids = quote(ftsIds(schema, "Doc", "by_body"));
  const hand3 = reader.prepare(
    `SELECT m.subject AS subject, -bm25(${fts}) AS score FROM ${fts} JOIN ${ids} AS m ON m.id = ${fts}.rowid JOIN ${quote(tableName(schema, "Doc"))} AS d ON d.tenant = m.tenant AND d.subject = m.subject ` +
      `WHERE ${fts} MATCH ? AND m.tenant = ? ORDER BY score DESC, m.subject LIMIT 20`,
  );
  const terms = [vocabulary[40], vocabulary[200], vocabulary[700], vocabulary[1500]] as string[];
  const [ours3, base3] = compare(200, (i) => run("Find", { text: terms[i % terms.length] }), (i) => hand3.all(`{f_body} : ("${terms[i % terms.length]}")`, "acme"));
  report(`search over ${DOCS} documents p50`, ours3, "ms", { label: "hand-written SQL", value: base3, higherIsBetter: false, target: "p50 < 20 ms, ratio ≥ 0.8" });
  }

  // 4. exact nearest: the query against a tight loop over the vectors in memory.
  if (runs("nearest")) {
  const probe = Array.from({ length: DIM }, () => rnd() * 2 - 1);
  const probe32 = Float32Array.from(probe);
  const [ours4, base4] = compare(5, () => run("Nearest", { v: probe }), () => {
    const best: { subject: string; d: number }[] = [];
    for (const { subject, v } of memory) {
      const d = distance("cosine", v, probe32) as number;
      if (best.length < 10 || d < (best[best.length - 1] as { d: number }).d) {
        best.push({ subject, d });
        best.sort((x, y) => x.d - y.d || (x.subject < y.subject ? -1 : 1));
        if (best.length > 10) best.pop();
      }
    }
    return best;
  });
  report(`nearest (exact, cosine) over ${VECTORS} vectors of ${DIM} p50`, ours4, "ms", { label: "tight loop in memory", value: base4, higherIsBetter: false, target: "< 150 ms, ratio ≥ 0.8" });
  }
  reader.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
