/**
 * `nearest` ranked in memory (vector-cache.ts) answers exactly the rows and distances of the SQL
 * path — under each metric, with ties, zero and unset vectors, subjects outside the BMP, `where`
 * stages before `nearest` and later stages after it, rows changed after the cache was loaded, and
 * tenants loaded in several chunks.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { it } from "node:test";
import { compileContract } from "../contracts/compile.ts";
import { deriveTables, StateTable } from "../workers/engine/state-table.ts";
import { runQuery } from "../workers/gateway/reads/run-query.ts";
import { compareSubjects, setVectorCacheLimitMb, vectorCacheBytes, vectorCacheLimitMb, vectorCacheRankings } from "../workers/gateway/reads/vector-cache.ts";
import { seededRandom } from "../shared/random.ts";

const CONTRACT = `# Vectors
\`\`\`charter
namespace acme.vectors
version 1.0.0

record Near { subject: Text(len=128), distance: Float }
record NearN { subject: Text(len=128), n: Int, distance: Float }

aggregate P {
  public a: Vector(dim=4)
  public b: Vector(dim=4)
  public c: Vector(dim=4)
  public n: Int

  index by_a vector(a, l2)
  index by_b vector(b, cosine)
  index by_c vector(c, dot)

  action Set(a: Vector(dim=4), n: Int) {
    authorize anyone
    apply {
      state.a = a
      state.b = a
      state.c = a
      state.n = n
    }
  }
}

query NL2(v: Vector(dim=4), k: Int) returns List<Near> pipe
  P
  | nearest a to $v take $k
  | select subject, distance

query NCos(v: Vector(dim=4), k: Int) returns List<NearN> pipe
  P
  | nearest b to $v take $k
  | where n > 1
  | sort n desc
  | select subject, n, distance

query NWhere(v: Vector(dim=4), k: Int, min: Int) returns List<NearN> pipe
  P
  | where n >= $min and subject != "a-1"
  | nearest a to $v take $k
  | select subject, n, distance

query NDot(v: Vector(dim=4), k: Int) returns List<Near> pipe
  P
  | nearest c to $v take 7
  | drop 2
  | take $k
  | select subject, distance
\`\`\`
`;


it("orders subjects as SQLite does (code points of UTF-8)", () => {
  const db = new DatabaseSync(":memory:");
  const subjects = ["a", "b", "é", "\uFFFD", "\u{1D4B3}", "ab", "", "\uE000"];
  const sqlite = (db.prepare(`SELECT value FROM json_each(?) ORDER BY value`).all(JSON.stringify(subjects)) as { value: string }[]).map((r) => r.value);
  assert.deepEqual([...subjects].sort(compareSubjects), sqlite);
  db.close();
});

it("answers the rows and distances of the SQL path, also after later changes", () => {
  const compiled = compileContract(CONTRACT);
  assert.ok(compiled.artifact, JSON.stringify(compiled.diagnostics));
  const schema = compiled.artifact.schema;
  const db = new DatabaseSync(":memory:");
  deriveTables(db, schema);
  const table = new StateTable(db, schema, "P");
  const rnd = seededRandom(7);
  const names = ["a", "b", "é", "\uFFFD", "\u{1D4B3}", "z", "\uE000"];
  const subject = (i: number) => `${names[i % names.length] as string}-${i % 13}`;
  const vector = () => (rnd() < 0.1 ? null : rnd() < 0.1 ? [0, 0, 0, 0] : Array.from({ length: 4 }, () => Math.floor(rnd() * 5) - 2 + (rnd() < 0.3 ? 0.25 : 0)));
  let seq = 0;
  const write = (n: number) => {
    for (let i = 0; i < n; i++) {
      const a = vector();
      table.write("acme", subject(Math.floor(rnd() * 60)), "art", ++seq, { a, b: a, c: a, n: Math.floor(rnd() * 4) });
    }
    table.write("other", "x-1", "art", ++seq, { a: [1, 1, 1, 1], b: [1, 1, 1, 1], c: [1, 1, 1, 1], n: 3 });
  };
  const limit = vectorCacheLimitMb();
  const both = (query: string, params: Record<string, unknown>) => {
    const ranked = vectorCacheRankings();
    const fast = runQuery(db, schema, query, "acme", params);
    assert.equal(vectorCacheRankings(), ranked + 1, `${query} ranks in memory`);
    setVectorCacheLimitMb(0);
    const slow = runQuery(db, schema, query, "acme", params);
    setVectorCacheLimitMb(limit);
    assert.ok(fast.ok && slow.ok);
    assert.deepEqual(fast.rows, slow.rows, `${query} ${JSON.stringify(params)}`);
  };
  try {
    for (let round = 0; round < 6; round++) {
      write(40);
      for (let q = 0; q < 10; q++) {
        const v = rnd() < 0.1 ? [0, 0, 0, 0] : Array.from({ length: 4 }, () => Math.floor(rnd() * 5) - 2);
        const k = Math.floor(rnd() * 12);
        for (const query of ["NL2", "NCos", "NDot"]) both(query, { v, k });
        both("NWhere", { v, k, min: Math.floor(rnd() * 5) });
      }
    }
    assert.ok(vectorCacheBytes() > 0);
  } finally {
    setVectorCacheLimitMb(limit);
    db.close();
  }
});

it("loads a tenant of many subjects in chunks, exactly", () => {
  const compiled = compileContract(CONTRACT);
  assert.ok(compiled.artifact, JSON.stringify(compiled.diagnostics));
  const schema = compiled.artifact.schema;
  const db = new DatabaseSync(":memory:");
  deriveTables(db, schema);
  const table = new StateTable(db, schema, "P");
  const rnd = seededRandom(11);
  db.exec("BEGIN");
  // More subjects than one chunk holds (2,048), some unset, some zero, and several whose byte order differs from UTF-16's.
  for (let i = 0; i < 5000; i++) {
    const a = i % 17 === 0 ? null : i % 23 === 0 ? [0, 0, 0, 0] : Array.from({ length: 4 }, () => Math.round((rnd() * 4 - 2) * 8) / 8);
    const subject = i % 101 === 0 ? `\u{1D4B3}-${i}` : i % 103 === 0 ? `\uFFFD-${i}` : `s-${String(i).padStart(5, "0")}`;
    table.write("acme", subject, "art", i + 1, { a, b: a, c: a, n: i % 5 });
    if (i % 10 === 0) table.write("other", `o-${i}`, "art", 10_000 + i, { a: [1, 1, 1, 1], b: [1, 1, 1, 1], c: [1, 1, 1, 1], n: 1 });
  }
  db.exec("COMMIT");
  const limit = vectorCacheLimitMb();
  try {
    for (let q = 0; q < 8; q++) {
      const v = Array.from({ length: 4 }, () => Math.round((rnd() * 4 - 2) * 4) / 4);
      for (const [query, params] of [
        ["NL2", { v, k: 25 }],
        ["NCos", { v, k: 40 }],
        ["NWhere", { v, k: 30, min: 3 }],
      ] as const) {
        const ranked = vectorCacheRankings();
        const fast = runQuery(db, schema, query, "acme", params);
        assert.equal(vectorCacheRankings(), ranked + 1);
        setVectorCacheLimitMb(0);
        const slow = runQuery(db, schema, query, "acme", params);
        setVectorCacheLimitMb(limit);
        assert.ok(fast.ok && slow.ok);
        assert.ok(fast.rows.length > 0 && fast.rows.length <= params.k);
        assert.deepEqual(fast.rows, slow.rows, `${query} ${JSON.stringify(params)}`);
      }
    }
  } finally {
    setVectorCacheLimitMb(limit);
    db.close();
  }
});
