/**
 * Issue 5, `asof` across an upgrade: the state as it was at that time, under the schema of that
 * time. A field the entry's version did not have — new in the upgrade, or changed in type, or
 * private then — is unset (null in the answer), and unset as the query language means it: `==`
 * holds only with another unset value, ordering comparisons do not hold. A field kept with its name
 * and type reads as recorded. After the upgrade, the migration's entries hold the migrated state.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type QueryStore, queryStore } from "./helpers/query-store.ts";

const NS = "acme.stock";
const V1 = `# Stock
\`\`\`charter
namespace acme.stock
version 1.0.0

record Row { subject: Text(len=128), name: Text(len=40), size: Int, shelf: Int, grade: Int }

aggregate Item {
  public name: Text(len=40)
  public size: Int
  public shelf: Int
  private grade: Int

  action Put(name: Text(len=40), size: Int, shelf: Int) {
    authorize anyone
    apply {
      state.name = name
      state.size = size
      state.shelf = shelf
    }
  }
}
\`\`\`
`;

/** 1.1.0: \`size\` becomes Text, \`grade\` becomes public, \`bin\` is new. */
const v2 = (upgrades: string) => `# Stock
\`\`\`charter
namespace acme.stock
version 1.1.0
upgrades ${upgrades}

record Row { subject: Text(len=128), name: Text(len=40), size: Text(len=10), shelf: Int, grade: Int, bin: Int }

aggregate Item {
  public name: Text(len=40)
  public size: Text(len=10)
  public shelf: Int
  public grade: Int
  public bin: Int

  action Put(name: Text(len=40), size: Text(len=10), shelf: Int, bin: Int) {
    authorize anyone
    apply {
      state.name = name
      state.size = size
      state.shelf = shelf
      state.bin = bin
    }
  }
}

migrate Item {
  state.size = "was set"
  state.bin = 7
}

query At(t: Int) returns List<Row> api public pipe
  Item
  | asof $t
  | select subject, name, size, shelf, grade, bin

query BinIs(t: Int, bin: Int) returns List<Row> api public pipe
  Item
  | asof $t
  | where bin == $bin
  | select subject, name, size, shelf, grade, bin

query BinIsNot(t: Int, bin: Int) returns List<Row> api public pipe
  Item
  | asof $t
  | where bin != $bin
  | select subject, name, size, shelf, grade, bin

query BinAbove(t: Int, bin: Int) returns List<Row> api public pipe
  Item
  | asof $t
  | where bin > $bin
  | select subject, name, size, shelf, grade, bin

query Bins(t: Int) returns List<Row> api public pipe
  Item
  | asof $t
  | sort bin desc
  | select subject, name, size, shelf, grade, bin

query Now() returns List<Row> api public pipe
  Item
  | select subject, name, size, shelf, grade, bin
\`\`\`
`;

let s: QueryStore;
const q = (query: string, params: Record<string, unknown> = {}) => s.rows("acme", NS, query, params);

before(async () => {
  s = await queryStore();
  const { artifact } = s.install("acme", V1);
  s.commit("acme", NS, "Item", "i-1", { name: "bolt", size: 3, shelf: 1, grade: 9 }, 10);
  s.commit("acme", NS, "Item", "i-2", { name: "nut", size: 4, shelf: 2, grade: 8 }, 11);
  s.install("acme", v2(artifact)); // the migration's entries are committed at the install's time, 1000
  s.commit("acme", NS, "Item", "i-2", { name: "nut", size: "large", shelf: 5, grade: 0, bin: 3 }, 3000);
  s.commit("acme", NS, "Item", "i-3", { name: "washer", size: "small", shelf: 6, grade: 0, bin: 4 }, 3001);
});
after(() => s.close());

describe("asof before an upgrade", () => {
  it("answers the state of that time: kept fields as recorded, new, retyped and then-private fields unset", () => {
    assert.deepEqual(q("At", { t: 11 }), [
      { subject: "i-1", name: "bolt", size: null, shelf: 1, grade: null, bin: null },
      { subject: "i-2", name: "nut", size: null, shelf: 2, grade: null, bin: null },
    ]);
  });

  it("compares unset fields as the language does: == only with unset, ordering comparisons never hold", () => {
    assert.deepEqual(q("BinIs", { t: 11, bin: 7 }), []);
    assert.deepEqual(q("BinIsNot", { t: 11, bin: 7 }).map((r) => r.subject), ["i-1", "i-2"]);
    assert.deepEqual(q("BinAbove", { t: 11, bin: -1 }), []);
    assert.deepEqual(q("BinAbove", { t: 3001, bin: 3 }).map((r) => r.subject), ["i-1", "i-3"]);
    assert.deepEqual(q("Bins", { t: 11 }).map((r) => r.bin), [null, null]);
  });
});

describe("asof after the upgrade", () => {
  it("answers the migrated state from the migration's entries, then later commits", () => {
    assert.deepEqual(q("At", { t: 2999 }), [
      { subject: "i-1", name: "bolt", size: "was set", shelf: 1, grade: 9, bin: 7 },
      { subject: "i-2", name: "nut", size: "was set", shelf: 2, grade: 8, bin: 7 },
    ]);
    assert.deepEqual(q("At", { t: 3001 }), q("Now"));
    assert.deepEqual(q("BinIs", { t: 3001, bin: 7 }).map((r) => r.subject), ["i-1"]);
    assert.deepEqual(q("Bins", { t: 3001 }).map((r) => r.subject), ["i-1", "i-3", "i-2"]);
  });
});
