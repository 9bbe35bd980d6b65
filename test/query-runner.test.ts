/**
 * Issue 5, what the query runner answers beyond the planner's SQL: values read on its short path
 * (an Int beyond ±2^53 is a decimal string, Bools and lists converted), and full-text search with
 * BM25 statistics of the tenant's own — another tenant's documents change no score — including a
 * store written before per-tenant FTS5 tables (one shared table), whose rows a tenant's next write
 * moves into its own table, or all at once at a start (moveSharedFulltext).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Schema } from "../contracts/schema.ts";
import { columnName, quote } from "../contracts/storage/columns.ts";
import { ftsIds, ftsTable, sharedFtsTable } from "../contracts/storage/read-indexes.ts";
import { moveSharedFulltext, tableExists } from "../workers/engine/read-indexes.ts";
import { StateTable } from "../workers/engine/state-table.ts";
import { type QueryStore, queryStore } from "./helpers/query-store.ts";

const NS = "acme.notes";
const CONTRACT = `# Notes
\`\`\`charter
namespace acme.notes
version 1.0.0

record Hit { subject: Text(len=128), score: Float }
record Big { subject: Text(len=128), n: Int, flag: Bool, tags: List<Int>(cap=4) }

aggregate Note {
  public body: Text(len=400)
  public n: Int
  public flag: Bool
  public tags: List<Int>(cap=4)

  index by_body fulltext(body)

  action Write(body: Text(len=400), n: Int, flag: Bool, tags: List<Int>(cap=4)) {
    authorize anyone
    apply {
      state.body = body
      state.n = n
      state.flag = flag
      state.tags = tags
    }
  }
}

query Find(text: Text(len=100)) returns List<Hit> api public pipe
  Note
  | search $text in body
  | select subject, score

query Numbers() returns List<Big> api public pipe
  Note
  | sort n
  | select subject, n, flag, tags
\`\`\`
`;

const note = (body: string, n: number | string = 1, flag = false, tags: (number | string)[] = []) => ({ body, n, flag, tags });
let s: QueryStore;
let schema: Schema;

before(async () => {
  s = await queryStore(["acme", "globex"]);
  schema = s.install("acme", CONTRACT).schema;
  s.install("globex", CONTRACT);
  s.commit("acme", NS, "Note", "a-1", note("red apple", 1, true, [1, 2]));
  s.commit("acme", NS, "Note", "a-2", note("red red cherry", "9007199254740993", false, ["9007199254740993"]));
  s.commit("acme", NS, "Note", "a-3", note("green pear", -5));
});
after(() => s.close());

describe("the runner's short path", () => {
  it("answers Ints beyond ±2^53 as decimal strings, Bools as booleans and lists as lists", () => {
    assert.deepEqual(s.rows("acme", NS, "Numbers").slice(0, 3), [
      { subject: "a-3", n: -5, flag: false, tags: [] },
      { subject: "a-1", n: 1, flag: true, tags: [1, 2] },
      { subject: "a-2", n: "9007199254740993", flag: false, tags: ["9007199254740993"] },
    ]);
  });
});

describe("search statistics per tenant", () => {
  it("gives each tenant its own FTS5 table, created on its first write", () => {
    assert.ok(tableExists(s.db, ftsTable(schema, "Note", "by_body", "acme")));
    assert.ok(!tableExists(s.db, ftsTable(schema, "Note", "by_body", "globex")));
    assert.deepEqual(s.rows("globex", NS, "Find", { text: "red" }), []);
  });

  it("scores a tenant's documents the same whatever another tenant holds", () => {
    // Eleven documents, two with "red": a rare term for acme, with a positive inverse document frequency.
    for (let i = 0; i < 8; i++) s.commit("acme", NS, "Note", `f-${i}`, note(`filler ${i}`, 100 + i));
    const before = s.rows("acme", NS, "Find", { text: "red" });
    assert.ok((before[1]?.score as number) > 0.1);
    assert.deepEqual(before.map((r) => r.subject), ["a-2", "a-1"]);
    // Another tenant with many documents holding the term (it would make "red" common, lowering its weight).
    s.db.exec("BEGIN");
    for (let i = 0; i < 200; i++) s.commit("globex", NS, "Note", `g-${i}`, note(i % 2 === 0 ? "red red red" : "red"));
    s.db.exec("COMMIT");
    assert.deepEqual(s.rows("acme", NS, "Find", { text: "red" }), before);
    assert.equal(s.rows("globex", NS, "Find", { text: "red" }).length, 200);
    assert.deepEqual(s.rows("globex", NS, "Find", { text: "apple" }), []);
  });
});

describe("a subject's search text", () => {
  it("is indexed once when the subject is new and replaced, not added to, when it is written again", () => {
    s.commit("acme", NS, "Note", "r-1", note("walnut orchard"));
    assert.deepEqual(s.rows("acme", NS, "Find", { text: "walnut" }).map((r) => r.subject), ["r-1"]);
    s.commit("acme", NS, "Note", "r-1", note("hazel grove"));
    s.commit("acme", NS, "Note", "r-1", note("hazel grove again"));
    assert.deepEqual(s.rows("acme", NS, "Find", { text: "walnut" }), []);
    assert.deepEqual(s.rows("acme", NS, "Find", { text: "hazel" }).map((r) => r.subject), ["r-1"]);
    const fts = quote(ftsTable(schema, "Note", "by_body", "acme"));
    const ids = quote(ftsIds(schema, "Note", "by_body"));
    const rows = s.db.prepare(`SELECT count(*) AS n FROM ${fts} WHERE rowid = (SELECT id FROM ${ids} WHERE tenant = 'acme' AND subject = 'r-1')`).get() as { n: number };
    assert.equal(rows.n, 1);
  });
});

describe("a subject written again with the same search text", () => {
  it("leaves its FTS5 row as it is; new text replaces it", () => {
    const fts = ftsTable(schema, "Note", "by_body", "acme");
    const index = () => (s.db.prepare(`SELECT group_concat(hex(block), '') AS blocks FROM ${quote(`${fts}_data`)}`).get() as { blocks: string }).blocks;
    s.commit("acme", NS, "Note", "r-2", note("cedar shingles"));
    const written = index();
    s.commit("acme", NS, "Note", "r-2", { ...note("cedar shingles"), n: 7, flag: true });
    assert.equal(index(), written, "the index is untouched when only other fields change");
    assert.deepEqual(s.rows("acme", NS, "Find", { text: "cedar" }).map((r) => r.subject), ["r-2"]);
    s.commit("acme", NS, "Note", "r-2", note("pine boards"));
    assert.notEqual(index(), written);
    assert.deepEqual(s.rows("acme", NS, "Find", { text: "cedar" }), []);
    assert.deepEqual(s.rows("acme", NS, "Find", { text: "pine" }).map((r) => r.subject), ["r-2"]);
  });
});

describe("a store written before per-tenant FTS5 tables", () => {
  it("is searched in its shared table until the tenant's next write moves its rows", async () => {
    const t = await queryStore(["acme", "globex"]);
    try {
      const sch = t.install("acme", CONTRACT).schema;
      t.install("globex", CONTRACT);
      // As the earlier layout kept it: one FTS5 table for every tenant, rowids from the subject map.
      const shared = quote(sharedFtsTable(sch, "Note", "by_body"));
      const ids = quote(ftsIds(sch, "Note", "by_body"));
      t.db.exec(`CREATE VIRTUAL TABLE ${shared} USING fts5(${quote(columnName("body"))}, tokenize = 'unicode61 remove_diacritics 2')`);
      const table = quote(`${ftsTable(sch, "Note", "by_body", "x").replace(/__fts_by_body__t_x$/, "")}`);
      const put = (tenant: string, subject: string, body: string) => {
        t.db.prepare(`INSERT INTO ${table} (tenant, subject, artifact, seq, f_body, f_n, f_flag, f_tags) VALUES (?, ?, 'art', 1, ?, 1, 0, '[]')`).run(tenant, subject, body);
        const { id } = t.db.prepare(`INSERT INTO ${ids} (tenant, subject) VALUES (?, ?) RETURNING id`).get(tenant, subject) as { id: number };
        t.db.prepare(`INSERT INTO ${shared} (rowid, f_body) VALUES (?, ?)`).run(id, body);
      };
      put("acme", "a-1", "red apple");
      put("acme", "a-2", "blue sky");
      put("globex", "g-1", "red wine");
      assert.deepEqual(t.rows("acme", NS, "Find", { text: "red" }).map((r) => r.subject), ["a-1"]);
      assert.deepEqual(t.rows("globex", NS, "Find", { text: "red" }).map((r) => r.subject), ["g-1"]);

      t.commit("acme", NS, "Note", "a-3", note("red car"));
      assert.ok(tableExists(t.db, ftsTable(sch, "Note", "by_body", "acme")));
      assert.deepEqual(t.rows("acme", NS, "Find", { text: "red" }).map((r) => r.subject).sort(), ["a-1", "a-3"]);
      assert.deepEqual(t.rows("acme", NS, "Find", { text: "sky" }).map((r) => r.subject), ["a-2"]);
      // Only globex's rows are left in the shared table, and it still answers from there.
      assert.deepEqual(t.db.prepare(`SELECT rowid FROM ${shared}`).all().length, 1);
      assert.deepEqual(t.rows("globex", NS, "Find", { text: "red" }).map((r) => r.subject), ["g-1"]);

      // At a start, everything left moves at once and the shared table goes.
      t.db.exec("BEGIN");
      assert.equal(moveSharedFulltext(t.db), 1);
      t.db.exec("COMMIT");
      assert.ok(!tableExists(t.db, sharedFtsTable(sch, "Note", "by_body")));
      assert.ok(tableExists(t.db, ftsTable(sch, "Note", "by_body", "globex")));
      assert.deepEqual(t.rows("globex", NS, "Find", { text: "red" }).map((r) => r.subject), ["g-1"]);
      assert.deepEqual(t.rows("acme", NS, "Find", { text: "red" }).map((r) => r.subject).sort(), ["a-1", "a-3"]);
    } finally {
      t.close();
    }
  });
});

describe("a tenant's FTS5 table created in a transaction rolled back", () => {
  it("is created again by the tenant's next write", async () => {
    const t = await queryStore(["acme"]);
    try {
      const sch = t.install("acme", CONTRACT).schema;
      const table = new StateTable(t.db, sch, "Note");
      t.db.exec("BEGIN");
      table.write("acme", "a-1", "art", 1, note("lost words"));
      assert.ok(tableExists(t.db, ftsTable(sch, "Note", "by_body", "acme")));
      t.db.exec("ROLLBACK");
      assert.ok(!tableExists(t.db, ftsTable(sch, "Note", "by_body", "acme")));
      // The same writer, whose statements name the table that went away, writes again.
      table.write("acme", "a-2", "art", 2, note("kept words"));
      assert.deepEqual(t.rows("acme", NS, "Find", { text: "words" }).map((r) => r.subject), ["a-2"]);
      t.commit("acme", NS, "Note", "a-3", note("more words"));
      assert.deepEqual(t.rows("acme", NS, "Find", { text: "words" }).map((r) => r.subject).sort(), ["a-2", "a-3"]);
    } finally {
      t.close();
    }
  });
});
