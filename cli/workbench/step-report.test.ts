import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeStep } from "../commands/workbench.ts";
import { stepReport } from "./step-report.ts";

const heading = { step: 2, action: "Ship", subject: "o-1", signer: "bob" };
const answer = (status: number, body: unknown) => ({ ok: true, pid: 42, stdout: JSON.stringify({ pid: 42, status, body }) }) as const;

describe("stepReport", () => {
  it("reports the receipt: the new state, and the reason of a refusal", () => {
    const state = { status: "shipped" };
    assert.deepEqual(stepReport(heading, answer(200, { receipt: { outcome: "accepted", state, reason: null } }), 1_000), { ...heading, pid: 42, outcome: "accepted", state });
    const reason = { code: "condition_failed", condition: "paid" };
    assert.deepEqual(stepReport(heading, answer(422, { receipt: { outcome: "refused", state, reason } }), 1_000), { ...heading, pid: 42, outcome: "refused", state, reason });
  });

  it("reports a command the node did not take by its problem document", () => {
    const problem = { type: "about:blank", status: 400, detail: "bad args" };
    assert.deepEqual(stepReport(heading, answer(400, problem), 1_000), { ...heading, pid: 42, outcome: "rejected", problem });
  });

  it("reports a step that timed out, failed, or printed no answer in one line", () => {
    const timedOut = stepReport(heading, { ok: false, pid: 7, timedOut: true, error: "did not finish within 5 ms and was stopped" }, 5);
    assert.deepEqual(timedOut, { ...heading, pid: 7, outcome: "timeout", error: "no answer within 5 ms; the step was killed" });
    assert.equal(describeStep(timedOut), "2. Ship o-1 by bob (pid 7): timeout — no answer within 5 ms; the step was killed");
    const killed = stepReport(heading, { ok: false, pid: 7, timedOut: false, error: "was killed by SIGKILL" }, 5);
    assert.equal(describeStep(killed), "2. Ship o-1 by bob (pid 7): failed — the step's process was killed by SIGKILL");
    for (const stdout of ["", "not json", "null", JSON.stringify({ status: 200 })]) {
      assert.deepEqual(stepReport(heading, { ok: true, pid: 7, stdout }, 5), { ...heading, pid: 7, outcome: "failed", error: "the step's process printed no answer" }, stdout);
    }
  });
});
