/**
 * Issue 5: `traverse` and `shortest` over a `union(…)` of sources with a `Ref` field (aggregates of
 * one name in two contracts). A reference leads within the source its row came from, so each
 * source is its own graph; rows reached in both are distinct rows, ordered by subject then source.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type QueryStore, queryStore } from "./helpers/query-store.ts";

const OTHER = `# Other graph
\`\`\`charter
namespace acme.other
version 1.0.0

aggregate Node {
  public label: Text(len=20)
  public parent: Ref<Node>

  action Link(label: Text(len=20), parent: Ref<Node>) {
    authorize anyone
    apply {
      state.label = label
      state.parent = parent
    }
  }
}
\`\`\`
`;

const GRAPH = `# Graph
\`\`\`charter
namespace acme.graph
version 1.0.0

record Row { subject: Text(len=128), label: Text(len=20) }

aggregate Node {
  public label: Text(len=20)
  public parent: Ref<Node>

  action Link(label: Text(len=20), parent: Ref<Node>) {
    authorize anyone
    apply {
      state.label = label
      state.parent = parent
    }
  }
}

query Reach(start: Text(len=128)) returns List<Row> api public pipe
  union(Node, acme.other.Node)
  | where subject == $start
  | traverse parent
  | select subject, label

query ReachWithin(start: Text(len=128), depth: Int) returns List<Row> api public pipe
  union(Node, acme.other.Node)
  | where subject == $start
  | traverse parent depth $depth
  | select subject, label

query Chain(start: Text(len=128), target: Text(len=128)) returns List<Row> api public pipe
  union(Node, acme.other.Node)
  | where subject == $start
  | shortest parent to $target
  | select subject, label

query ChainAny(target: Text(len=128)) returns List<Row> api public pipe
  union(Node, acme.other.Node)
  | sort label desc
  | shortest parent to $target
  | select subject, label
\`\`\`
`;

let s: QueryStore;
const q = (query: string, params: Record<string, unknown>) => s.rows("acme", "acme.graph", query, params).map((r) => `${String(r.subject)}:${String(r.label)}`);

before(async () => {
  s = await queryStore();
  s.install("acme", OTHER);
  s.install("acme", GRAPH);
  // Own: a → b → c → a (a cycle), d → a.   Other: a → x → y, b → y, d → b; no record c there.
  for (const [subject, parent] of [["a", "b"], ["b", "c"], ["c", "a"], ["d", "a"]] as const) s.commit("acme", "acme.graph", "Node", subject, { label: `own-${subject}`, parent });
  for (const [subject, parent] of [["a", "x"], ["x", "y"], ["y", null], ["b", "y"], ["d", "b"], ["e", "c"]] as const) s.commit("acme", "acme.other", "Node", subject, { label: `other-${subject}`, parent });
});
after(() => s.close());

describe("traverse over a union", () => {
  it("follows each reference within the source of its row, each reached row once, by subject then source", () => {
    assert.deepEqual(q("Reach", { start: "a" }), ["a:own-a", "b:own-b", "c:own-c", "x:other-x", "y:other-y"]);
    assert.deepEqual(q("Reach", { start: "d" }), ["a:own-a", "b:own-b", "b:other-b", "c:own-c", "y:other-y"]);
  });

  it("leads nowhere from a reference to a subject without a record in that source", () => {
    assert.deepEqual(q("Reach", { start: "e" }), []);
    assert.deepEqual(q("Reach", { start: "y" }), []);
  });

  it("stops after depth hops", () => {
    assert.deepEqual(q("ReachWithin", { start: "d", depth: 1 }), ["a:own-a", "b:other-b"]);
    assert.deepEqual(q("ReachWithin", { start: "d", depth: 2 }), ["a:own-a", "b:own-b", "b:other-b", "y:other-y"]);
    assert.deepEqual(q("ReachWithin", { start: "d", depth: 0 }), []);
  });
});

describe("shortest over a union", () => {
  it("answers the fewest-hop chain over every source, start to target inclusive", () => {
    // Own: d → a → b (2 hops); other: d → b (1 hop).
    assert.deepEqual(q("Chain", { start: "d", target: "b" }), ["d:other-d", "b:other-b"]);
    // Only the own graph reaches c from a; the other has no record c.
    assert.deepEqual(q("Chain", { start: "a", target: "c" }), ["a:own-a", "b:own-b", "c:own-c"]);
    assert.deepEqual(q("Chain", { start: "a", target: "y" }), ["a:other-a", "x:other-x", "y:other-y"]);
  });

  it("answers no rows without a chain", () => {
    assert.deepEqual(q("Chain", { start: "y", target: "a" }), []);
    assert.deepEqual(q("Chain", { start: "e", target: "c" }), []);
  });

  it("breaks ties between starts by the order so far", () => {
    // Only the other source has a record y: the chain of zero hops from it.
    assert.deepEqual(q("ChainAny", { target: "y" }), ["y:other-y"]);
    // Both sources have b, each zero hops from itself: `sort label desc` puts own-b first.
    assert.deepEqual(q("ChainAny", { target: "b" }), ["b:own-b"]);
  });
});
