// Unit tests of the Raft core's step function (issue #7); the cluster-level properties are
// checked by the simulation in test/raft/.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Effect, NodeState, PersistentState, RaftEvent } from "./index.ts";
import { applyPersist, EMPTY_STORAGE, raftConfig, restore, status, step } from "./index.ts";

function drive(state: NodeState, events: RaftEvent[]): { state: NodeState; effects: Effect[] } {
  const effects: Effect[] = [];
  for (const e of events) {
    const r = step(state, e);
    state = r.state;
    effects.push(...r.effects);
  }
  return { state, effects };
}

const only = <T extends Effect["type"]>(effects: readonly Effect[], type: T) => effects.filter((e): e is Extract<Effect, { type: T }> => e.type === type);

test("one voter elects itself on its first tick and commits only after its own fsync", () => {
  let s = restore(raftConfig("a", ["a"]), EMPTY_STORAGE, { seed: 1 });
  let r = drive(s, [{ type: "tick" }]);
  s = r.state;
  assert.equal(s.role, "leader");
  assert.equal(s.term, 1);
  const [write] = only(r.effects, "persist");
  assert.ok(write);
  assert.equal(s.commit, 0, "nothing commits before the write is durable");
  r = drive(s, [{ type: "propose", id: "p1", data: "hello" }]);
  s = r.state;
  assert.deepEqual(only(r.effects, "proposed"), [{ type: "proposed", id: "p1", index: 2, term: 1 }]);
  const writes = only(r.effects, "persist");
  r = drive(s, [{ type: "persisted", id: writes[0]!.id }]);
  s = r.state;
  assert.equal(s.commit, 2);
  const applied = only(r.effects, "apply").flatMap((a) => a.entries.map((e) => e.index));
  assert.deepEqual(applied, [1, 2]);
});

test("a vote is sent only after it is durable", () => {
  const s = restore(raftConfig("b", ["a", "b", "c"]), EMPTY_STORAGE, { seed: 2 });
  let r = step(s, { type: "message", message: { type: "request-vote", from: "a", to: "b", term: 1, lastIndex: 0, lastTerm: 0 } });
  assert.equal(only(r.effects, "send").length, 0, "the reply waits for the write");
  const [write] = only(r.effects, "persist");
  assert.equal(write?.votedFor, "a");
  r = step(r.state, { type: "persisted", id: write!.id });
  const [reply] = only(r.effects, "send");
  assert.equal(reply?.message.type, "request-vote-reply");
  assert.ok(reply?.message.type === "request-vote-reply" && reply.message.granted);
});

test("step never changes the state it is given", () => {
  const freeze = <T>(v: T): T => {
    if (v && typeof v === "object" && !Object.isFrozen(v)) {
      Object.freeze(v);
      for (const x of Object.values(v)) freeze(x);
    }
    return v;
  };
  let s = restore(raftConfig("a", ["a"]), EMPTY_STORAGE, { seed: 3 });
  for (const e of [{ type: "tick" }, { type: "propose", id: "x", data: "d" }, { type: "persisted", id: 2 }, { type: "read-index", id: "r" }, { type: "applied", index: 2 }, { type: "snapshot-taken", index: 2, data: "img" }] as RaftEvent[]) {
    s = step(freeze(s), e).state;
  }
  assert.equal(s.snapshot.lastIndex, 2);
});

test("a read on one voter is ready once an entry of its term is committed and applied", () => {
  let s = restore(raftConfig("a", ["a"]), EMPTY_STORAGE, { seed: 4 });
  let r = drive(s, [{ type: "tick" }, { type: "read-index", id: "r1" }]);
  assert.equal(only(r.effects, "read-ready").length, 0);
  r = drive(r.state, [{ type: "persisted", id: 1 }]);
  assert.equal(only(r.effects, "read-ready").length, 0, "waits for the state machine");
  r = drive(r.state, [{ type: "applied", index: 1 }]);
  assert.deepEqual(only(r.effects, "read-ready"), [{ type: "read-ready", id: "r1", index: 1 }]);
  s = r.state;
  assert.equal(status(s).role, "leader");
});

test("followers reject proposals and reads, naming the leader they know", () => {
  const s = restore(raftConfig("b", ["a", "b", "c"]), EMPTY_STORAGE, { seed: 5 });
  const r = drive(s, [
    { type: "propose", id: "p", data: "d" },
    { type: "read-index", id: "r" },
  ]);
  assert.deepEqual(
    only(r.effects, "rejected").map((e) => e.request),
    ["propose", "read-index"],
  );
});

test("the writes asked for rebuild the same state after a restart", () => {
  let disk: PersistentState = EMPTY_STORAGE;
  let s = restore(raftConfig("a", ["a"]), disk, { seed: 6 });
  const events: RaftEvent[] = [{ type: "tick" }, { type: "propose", id: "1", data: "one" }, { type: "propose", id: "2", data: "two" }];
  for (const e of events) {
    const r = step(s, e);
    s = r.state;
    for (const w of only(r.effects, "persist")) disk = applyPersist(disk, w);
  }
  const again = restore(raftConfig("a", ["a"]), disk, { seed: 7 });
  assert.deepEqual(again.log, s.log);
  assert.equal(again.term, s.term);
  assert.equal(again.votedFor, "a");
});
