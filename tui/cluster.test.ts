import assert from "node:assert/strict";
import { test } from "node:test";
import { clusterFrom } from "./cluster.ts";
import type { Probe } from "./node-probe.ts";

const probe = (health: Record<string, unknown> | null, wellKnown: Record<string, unknown> | null): Probe => ({
  url: "http://127.0.0.1:8787",
  answers: health !== null,
  rttMs: 1,
  status: health === null ? null : 200,
  error: null,
  health,
  wellKnown,
  at: 0,
});

test("one voter leads itself with no lag", () => {
  const c = clusterFrom("did:key:zA", probe({ status: "ok", role: "leader" }, { identity: "did:key:zA", voters: ["did:key:zA"] }));
  assert.deepEqual(c.voters.map((v) => [v.id, v.self, v.role, v.lag]), [["did:key:zA", true, "leader", 0]]);
});

test("three voters from a replicated engine's /health, named by did, the leader mapped from its voter id", () => {
  const health = {
    status: "ok",
    role: "follower",
    consensus: {
      id: "b",
      role: "follower",
      term: 4,
      leader: "a",
      voters: [
        { id: "a", did: "did:key:zA", role: "leader", connected: true },
        { id: "b", did: "did:key:zB", role: "follower", connected: true },
        { id: "c", did: "did:key:zC", role: "follower", connected: false, lag: 12 },
      ],
    },
  };
  const c = clusterFrom("did:key:zB", probe(health, { identity: "did:key:zB", voters: ["did:key:zA", "did:key:zB", "did:key:zC"] }));
  assert.equal(c.leader, "did:key:zA");
  assert.equal(c.term, 4);
  assert.deepEqual(
    c.voters.map((v) => [v.id, v.self, v.role, v.lag]),
    [
      ["did:key:zA", false, "leader", null],
      ["did:key:zB", true, "follower", null],
      ["did:key:zC", false, "follower", 12],
    ],
  );
});
