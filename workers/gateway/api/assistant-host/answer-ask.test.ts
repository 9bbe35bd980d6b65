import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpProblem } from "../../../../shared/problem.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWrite, PersonWriter } from "../personal/person-writer.ts";
import { answerAsk } from "./answer-ask.ts";
import { handleAskCall } from "./ask-tool.ts";
import type { AskView } from "./asks.ts";

/** Asks and turns in memory, written by the actions answering and ending asks sign. */
function world(now: { t: number }, turnStatus = "WaitingAsk") {
  const records = new Map<string, Record<string, unknown>>([
    ["Turn turn-1", { status: turnStatus, conversation: "main", message: "msg-1", origin: "person" }],
    ["Ask ask-1-0-0", { status: "Open", turn: "turn-1", question: "Which?", labels: ["Tea", "Coffee"], descriptions: ["", ""], multiple: false, allow_other: false, expires_at: 1_000, opened_at: 1, choices: [], text: "" }],
  ]);
  const writes: PersonWrite[] = [];
  const reader = {
    record: (_t: unknown, _ns: string, aggregate: string, subject: string) => {
      const state = records.get(`${aggregate} ${subject}`);
      return state === undefined ? null : { state };
    },
    query: (_t: unknown, _ns: string, query: string, params: Record<string, unknown>) => {
      assert.equal(query, "OfTurn");
      const rows = [...records].filter(([k, s]) => k.startsWith("Ask ") && s.turn === params.turn).map(([k, s]) => ({ ...s, id: k.slice(4) }));
      return { rows };
    },
  } as unknown as PersonReader;
  const writer = {
    act: (write: PersonWrite) => {
      writes.push(write);
      const state = records.get(`Ask ${write.subject}`);
      const accept = (change: Record<string, unknown>) => {
        if (state === undefined || state.status !== "Open") return { kind: "receipt", outcome: "refused", jws: "x" };
        Object.assign(state, change);
        return { kind: "receipt", outcome: "accepted", replayed: false, jws: "x" };
      };
      if (write.action === "Expire") return Promise.resolve(accept({ status: "Expired" }));
      if (write.action === "Withdraw") return Promise.resolve(accept({ status: "Cancelled" }));
      throw new Error(`unexpected ${write.action}`);
    },
  } as unknown as PersonWriter;
  const heard: AskView[] = [];
  const enqueued: string[] = [];
  const deps = { reader, writer, now: () => now.t, onAsk: (a: AskView) => heard.push(a), turns: { enqueue: (_turn: string, key: string) => Promise.resolve(void enqueued.push(key)) }, askMs: 1_000 };
  return { deps, writes, heard, enqueued, records };
}

async function problemOf(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof HttpProblem);
    return error.problem;
  }
  assert.fail("no problem");
}

describe("an ask past its time, or whose turn ended", () => {
  it("answered after its time: Expire is recorded once and heard, the answer is 409, nothing is queued", async () => {
    const w = world({ t: 1_000 });
    const p = await problemOf(answerAsk(w.deps, "ask-1-0-0", { choices: [0] }, "s-1"));
    assert.deepEqual([p.status, p.code], [409, "ask-closed"]);
    assert.deepEqual(w.writes.map((x) => [x.action, x.idempotencyKey]), [["Expire", "ask-1-0-0:expire"]]);
    assert.deepEqual(w.heard.map((a) => a.status), ["expired"]);
    assert.deepEqual(w.enqueued, []);
  });

  it("the turn resumed after its time is told it expired, and Expire is recorded", async () => {
    const w = world({ t: 5_000 });
    const outcome = await handleAskCall(w.deps, { turn: "turn-1", step: 0, index: 0, call: { id: "call_1", name: "ask_person", argumentsJson: "{}" } });
    assert.equal(outcome.kind, "result");
    assert.ok(outcome.kind === "result" && outcome.isError && /expired/.test(outcome.content));
    assert.equal(w.records.get("Ask ask-1-0-0")?.status, "Expired");
  });

  it("still open: the resumed call waits again, and nothing is written", async () => {
    const w = world({ t: 500 });
    assert.deepEqual(await handleAskCall(w.deps, { turn: "turn-1", step: 0, index: 0, call: { id: "call_1", name: "ask_person", argumentsJson: "{}" } }), { kind: "ask", ask: "ask-1-0-0" });
    assert.deepEqual(w.writes, []);
  });

  it("an ask whose turn ended without it is withdrawn when answered: 409", async () => {
    const w = world({ t: 500 }, "Cancelled");
    const p = await problemOf(answerAsk(w.deps, "ask-1-0-0", { choices: [0] }, "s-1"));
    assert.deepEqual([p.status, p.code], [409, "ask-closed"]);
    assert.deepEqual(w.writes.map((x) => x.action), ["Withdraw"]);
    assert.deepEqual(w.heard.map((a) => a.status), ["cancelled"]);
  });

  it("an unknown ask is 404 before anything else", async () => {
    const w = world({ t: 500 });
    assert.equal((await problemOf(answerAsk(w.deps, "ask-none", { choices: [0] }, "s-1"))).status, 404);
  });
});
