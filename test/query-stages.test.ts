/**
 * Issue 5, "every stage has tests with exact expected rows": each stage of the query language
 * planned into SQL and run on a real store (installed through the engine, records committed the
 * way the engine commits them), including ties in sort, empty inputs, take 0, totals over nothing,
 * explode of empty lists, asof before the first record, shortest with no path, cycles in traverse.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type QueryStore, queryStore } from "./helpers/query-store.ts";

const NS = "acme.stages";
let s: QueryStore;
const q = (query: string, params: Record<string, unknown> = {}) => s.rows("acme", NS, query, params);
const subjects = (rows: Record<string, unknown>[]) => rows.map((r) => r.subject ?? r.id);

const item = (title: string, kind: string, units: number, tags: string[], nums: number[], embedding: number[] | null) => ({
  title,
  kind,
  units,
  tags,
  nums,
  embedding,
  direction: embedding,
  weights: embedding,
  secret: "x",
});

before(async () => {
  s = await queryStore(["acme", "other"]);
  const source = readFileSync(new URL("./fixtures/stages.charter.md", import.meta.url), "utf8");
  s.install("acme", source);
  s.install("other", source);
  s.commit("acme", NS, "Item", "i-1", item("Red hammer", "tool", 3, ["a", "b"], [1, 2], [1, 0, 0]), 1000);
  s.commit("acme", NS, "Item", "i-2", item("Blue nails box", "part", 10, [], [], [0, 1, 0]), 1001);
  s.commit("acme", NS, "Item", "i-3", item("red nails", "part", 3, ["b"], [5], [1, 1, 0]), 1002);
  s.commit("acme", NS, "Item", "i-4", item("Saw", "tool", 0, ["c", "a", "c"], [-1], [0, 0, 1]), 1003);
  s.commit("acme", NS, "Item", "i-5", item("hammer hammer hammer", "skip", 7, [], [], null), 1004);
  // A later version of i-1: the state tables hold it, history keeps the first.
  s.commit("acme", NS, "Item", "i-1", item("Red hammer", "tool", 99, ["a", "b"], [1, 2], [1, 0, 0]), 2000);
  s.commit("acme", NS, "Old", "old-1", { title: "red relic", kind: "tool", units: 50 }, 1005);
  s.commit("other", NS, "Item", "x-1", item("red hammer elsewhere", "tool", 1000, ["a"], [7], [1, 0, 0]), 1000);
  for (const [subject, parent] of [["a", "b"], ["b", "c"], ["c", "a"], ["d", "a"], ["e", null], ["f", "zzz"]] as const) {
    s.commit("acme", NS, "Node", subject, { label: subject.toUpperCase(), parent }, 1100);
  }
});
after(() => s.close());

describe("sort, take, drop", () => {
  it("sorts stably: ties keep subject order, also under desc", () => {
    assert.deepEqual(q("Kinds"), [
      { subject: "i-2", kind: "part" },
      { subject: "i-3", kind: "part" },
      { subject: "i-5", kind: "skip" },
      { subject: "i-1", kind: "tool" },
      { subject: "i-4", kind: "tool" },
    ]);
    assert.deepEqual(subjects(q("KindsDesc", { n: 2, skip: 1 })), ["i-4", "i-5"]);
    assert.deepEqual(subjects(q("KindsDesc", { n: 0, skip: 0 })), []);
    assert.deepEqual(subjects(q("KindsDesc", { n: 10, skip: 5 })), []);
  });

  it("answers take 0 with no rows", () => {
    assert.deepEqual(q("None"), []);
  });
});

describe("summarize", () => {
  it("totals every row into one row", () => {
    assert.deepEqual(q("Totals", { min: 0 }), [{ n: 5, units: 119, lo: 0, hi: 99, mean: 23.8 }]);
  });

  it("totals over nothing: count 0, sum 0, min/max/avg unset", () => {
    assert.deepEqual(q("Totals", { min: 1000 }), [{ n: 0, units: 0, lo: null, hi: null, mean: null }]);
  });

  it("groups by a column, ordered by it; no group over nothing", () => {
    assert.deepEqual(q("ByKind", { min: 0 }), [
      { kind: "part", n: 2, units: 13 },
      { kind: "skip", n: 1, units: 7 },
      { kind: "tool", n: 2, units: 99 },
    ]);
    assert.deepEqual(q("ByKind", { min: 1000 }), []);
  });

  it("filters and sorts the groups after summarizing", () => {
    assert.deepEqual(q("BigKinds"), [
      { kind: "tool", n: 2, units: 99 },
      { kind: "part", n: 2, units: 13 },
    ]);
  });
});

describe("explode and let", () => {
  it("gives one row per element, in element order; an empty list gives none", () => {
    assert.deepEqual(q("Tags"), [
      { subject: "i-1", tag: "a" },
      { subject: "i-1", tag: "b" },
      { subject: "i-3", tag: "b" },
      { subject: "i-4", tag: "c" },
      { subject: "i-4", tag: "a" },
      { subject: "i-4", tag: "c" },
    ]);
  });

  it("explodes Int lists and summarizes the elements", () => {
    assert.deepEqual(q("NumTotals"), [
      { subject: "i-1", total: 3, n: 2 },
      { subject: "i-3", total: 5, n: 1 },
      { subject: "i-4", total: -1, n: 1 },
    ]);
  });

  it("adds a computed column a later where reads", () => {
    assert.deepEqual(q("Doubles", { over: 5 }), [
      { subject: "i-1", double: 198 },
      { subject: "i-2", double: 20 },
      { subject: "i-3", double: 6 },
      { subject: "i-5", double: 14 },
    ]);
  });
});

describe("search", () => {
  it("ranks by BM25, best first, ties by subject, within the tenant only", () => {
    const red = q("Search", { text: "red" });
    assert.deepEqual(subjects(red), ["i-1", "i-3"]);
    assert.ok((red[0]?.score as number) > 0 && red[0]?.score === red[1]?.score);
    assert.deepEqual(subjects(q("Search", { text: "nails" })), ["i-3", "i-2"]);
    assert.deepEqual(subjects(q("Search", { text: "HAMMER" })), ["i-5", "i-1"]);
  });

  it("requires every word, ignores punctuation and never fails on FTS5 syntax", () => {
    assert.deepEqual(subjects(q("Search", { text: "red nails" })), ["i-3"]);
    assert.deepEqual(subjects(q("Search", { text: 'Red!! "hammer' })), ["i-1"]);
    assert.deepEqual(subjects(q("Search", { text: "NEAR(x OR y) *" })), []);
    assert.deepEqual(subjects(q("Search", { text: "" })), []);
  });

  it("searches each source of a union in its own index", () => {
    const rows = q("SearchBoth", { text: "red" });
    assert.deepEqual(new Set(subjects(rows)), new Set(["i-1", "i-3", "old-1"]));
    for (let i = 1; i < rows.length; i++) assert.ok((rows[i - 1]?.score as number) >= (rows[i]?.score as number));
  });

  it("follows the state: a changed text leaves the index in the same transaction", async () => {
    const t = await queryStore();
    t.install("acme", readFileSync(new URL("./fixtures/stages.charter.md", import.meta.url), "utf8"));
    t.commit("acme", NS, "Item", "i-1", item("Red hammer", "tool", 1, [], [], null));
    t.commit("acme", NS, "Item", "i-2", item("red saw", "tool", 1, [], [], null));
    t.commit("acme", NS, "Item", "i-1", item("Green hammer", "tool", 1, [], [], null));
    assert.deepEqual(subjects(t.rows("acme", NS, "Search", { text: "red" })), ["i-2"]);
    assert.deepEqual(subjects(t.rows("acme", NS, "Search", { text: "green" })), ["i-1"]);
    t.close();
  });
});

describe("nearest", () => {
  it("l2: exact distances, nearest first, unset vectors skipped, ties by subject", () => {
    assert.deepEqual(q("NearL2", { v: [1, 0, 0], k: 2 }), [
      { subject: "i-1", distance: 0 },
      { subject: "i-3", distance: 1 },
    ]);
    assert.deepEqual(q("NearL2", { v: [1, 0, 0], k: 10 }), [
      { subject: "i-1", distance: 0 },
      { subject: "i-3", distance: 1 },
      { subject: "i-2", distance: Math.SQRT2 },
      { subject: "i-4", distance: Math.SQRT2 },
    ]);
    assert.deepEqual(q("NearL2", { v: [1, 0, 0], k: 0 }), []);
  });

  it("cosine and dot use their own metric", () => {
    assert.deepEqual(q("NearCos", { v: [2, 0, 0], k: 3 }), [
      { subject: "i-1", distance: 0 },
      { subject: "i-3", distance: 1 - 2 / Math.sqrt(2 * 4) },
      { subject: "i-2", distance: 1 },
    ]);
    assert.deepEqual(q("NearDot", { v: [1, 2, 3], k: 3 }), [
      { subject: "i-3", distance: -3 },
      { subject: "i-4", distance: -3 },
      { subject: "i-2", distance: -2 },
    ]);
  });
});

describe("asof and latest", () => {
  it("answers nothing before the first record", () => {
    assert.deepEqual(q("At", { t: 999 }), []);
    assert.deepEqual(q("OnDay", { d: "1970-01-01" }), []);
  });

  it("answers the state each subject had at that time, inclusive", () => {
    assert.deepEqual(q("At", { t: 1000 }), [{ id: "i-1", units: 3, kind: "tool" }]);
    assert.deepEqual(q("At", { t: 1999 }), [
      { id: "i-1", units: 3, kind: "tool" },
      { id: "i-2", units: 10, kind: "part" },
      { id: "i-3", units: 3, kind: "part" },
      { id: "i-4", units: 0, kind: "tool" },
      { id: "i-5", units: 7, kind: "skip" },
    ]);
    assert.deepEqual(q("At", { t: 2000 })[0], { id: "i-1", units: 99, kind: "tool" });
    assert.deepEqual(q("OnDay", { d: "1970-01-02" }), q("Newest"));
  });

  it("latest is the state tables", () => {
    assert.deepEqual(q("Newest")[0], { id: "i-1", units: 99, kind: "tool" });
  });
});

describe("union", () => {
  it("reads sources of one shape as one, sorted together", () => {
    assert.deepEqual(q("Both"), [
      { subject: "i-1", units: 99 },
      { subject: "old-1", units: 50 },
      { subject: "i-2", units: 10 },
      { subject: "i-5", units: 7 },
      { subject: "i-3", units: 3 },
      { subject: "i-4", units: 0 },
    ]);
  });
});

describe("traverse", () => {
  const labels = (rows: Record<string, unknown>[]) => rows.map((r) => `${String(r.subject)}>${String(r.parent)}`);
  it("follows references to every reached record once, through cycles", () => {
    assert.deepEqual(labels(q("Reach", { start: "d" })), ["a>b", "b>c", "c>a"]);
    assert.deepEqual(labels(q("Reach", { start: "a" })), ["a>b", "b>c", "c>a"]);
    assert.deepEqual(q("Reach", { start: "d" })[0], { subject: "a", key: "a", label: "A", parent: "b" });
  });

  it("reaches nothing from a record without a reference or with a dangling one", () => {
    assert.deepEqual(q("Reach", { start: "e" }), []);
    assert.deepEqual(q("Reach", { start: "f" }), []);
    assert.deepEqual(q("Reach", { start: "nobody" }), []);
  });

  it("stops after depth hops", () => {
    assert.deepEqual(labels(q("ReachWithin", { start: "d", depth: 2 })), ["a>b", "b>c"]);
    assert.deepEqual(q("ReachWithin", { start: "d", depth: 0 }), []);
    assert.deepEqual(labels(q("ReachWithin", { start: "d", depth: 1_000_000 })), ["a>b", "b>c", "c>a"]);
  });
});

describe("shortest", () => {
  const path = (rows: Record<string, unknown>[]) => rows.map((r) => r.subject).join(">");
  it("answers the chain from the start to the target, inclusive", () => {
    assert.equal(path(q("ChainFrom", { start: "d", target: "c" })), "d>a>b>c");
    assert.equal(path(q("ChainFrom", { start: "b", target: "a" })), "b>c>a");
    assert.equal(path(q("ChainFrom", { start: "a", target: "a" })), "a");
  });

  it("picks the nearest start", () => {
    assert.equal(path(q("Chain", { target: "c" })), "c");
  });

  it("answers no rows without a path or without the target record", () => {
    assert.deepEqual(q("ChainFrom", { start: "e", target: "c" }), []);
    assert.deepEqual(q("ChainFrom", { start: "f", target: "zzz" }), []);
    assert.deepEqual(q("ChainFrom", { start: "d", target: "e" }), []);
  });
});

describe("parameters", () => {
  it("lists each bad parameter", () => {
    const out = s.run("acme", NS, "NearL2", { v: [1, 0], k: "two" });
    assert.equal(out.ok, false);
    assert.deepEqual(!out.ok && out.errors, [
      { pointer: "#/params/v", detail: "must be a list of 3 numbers" },
      { pointer: "#/params/k", detail: "must be a 64-bit integer (a number, or a decimal string beyond 2^53)" },
    ]);
  });
});
