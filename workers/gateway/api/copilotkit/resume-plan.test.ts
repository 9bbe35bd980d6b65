import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { answerOf, planResume } from "./resume-plan.ts";

const ACTION = { kind: "action", subject: "task-1", args: { title: "Draft", notes: "", priority: 0 } } as const;
const QUERY = { kind: "query", subject: "", args: { limit: 20 } } as const;
const NOW = Date.parse("2026-05-01T12:00:00Z");

function approval(status: "waiting" | "approved" | "denied" | "expired", expiresAt: string | null = "2026-05-02T12:00:00.000Z") {
  return { id: "apv-1", status, expiresAt };
}

describe("what an AG-UI resume entry answers", () => {
  it("resolved {approved} approves or denies; cancelled denies, whatever its payload", () => {
    assert.deepEqual(answerOf({ interruptId: "apv-1", status: "resolved", payload: { approved: true } }, ACTION), { ok: true, answer: { approve: true, edited: null } });
    assert.deepEqual(answerOf({ interruptId: "apv-1", status: "resolved", payload: { approved: false } }, ACTION), { ok: true, answer: { approve: false, edited: null } });
    assert.deepEqual(answerOf({ interruptId: "apv-1", status: "cancelled", payload: { approved: true } }, ACTION), { ok: true, answer: { approve: false, edited: null } });
    assert.deepEqual(answerOf({ interruptId: "apv-1", status: "resolved", payload: { approve: true } }, ACTION), { ok: true, answer: { approve: true, edited: null } }, "/api/approvals' spelling is read too");
  });

  it("editedArgs replace the proposed arguments they name, with a yes to an action only; the subject stays", () => {
    assert.deepEqual(answerOf({ interruptId: "apv-1", status: "resolved", payload: { approved: true, editedArgs: { title: "x" } } }, ACTION), { ok: true, answer: { approve: true, edited: { title: "x", notes: "", priority: 0 } } });
    const whole = answerOf({ interruptId: "apv-1", status: "resolved", payload: { approved: true, editedArgs: { subject: "task-1", title: "y", priority: 2 } } }, ACTION);
    assert.deepEqual(whole, { ok: true, answer: { approve: true, edited: { title: "y", notes: "", priority: 2 } } }, "the call's arguments in full, as the model gave them");
    for (const [payload, command] of [
      [{ approved: false, editedArgs: { title: "x" } }, ACTION],
      [{ approved: true, editedArgs: { limit: 3 } }, QUERY],
      [{ approved: true, editedArgs: ["x"] }, ACTION],
      [{ approved: true, editedArgs: "x" }, ACTION],
      [{ approved: true, editedArgs: { subject: "task-2" } }, ACTION],
    ] as const) {
      const read = answerOf({ interruptId: "apv-1", status: "resolved", payload }, command);
      assert.equal(read.ok, false, JSON.stringify(payload));
      assert.equal(!read.ok && read.refusal.code, "interrupt-malformed");
    }
  });

  it("a resolved entry without a yes or no the node can read is malformed", () => {
    for (const payload of [undefined, null, "yes", [true], {}, { approved: "yes" }, { approved: true, approve: false }]) {
      const read = answerOf({ interruptId: "apv-1", status: "resolved", payload }, ACTION);
      assert.equal(read.ok, false, JSON.stringify(payload));
      assert.match(!read.ok ? read.refusal.message : "", /apv-1/);
    }
  });
});

describe("what a resume does to the approval it answers", () => {
  it("a waiting approval is decided, unless it has expired", () => {
    assert.deepEqual(planResume(approval("waiting"), true, NOW), { kind: "decide" });
    assert.deepEqual(planResume(approval("waiting", null), false, NOW), { kind: "decide" });
    const late = planResume(approval("waiting", "2026-05-01T11:59:59.000Z"), true, NOW);
    assert.equal(late.kind === "refused" && late.code, "interrupt-expired");
    assert.equal(planResume(approval("expired"), false, NOW).kind, "refused");
  });

  it("an approval decided the same way is not decided again; decided the other way, the resume is late", () => {
    assert.deepEqual(planResume(approval("approved"), true, NOW), { kind: "decided" });
    assert.deepEqual(planResume(approval("denied"), false, NOW), { kind: "decided" });
    const deny = planResume(approval("approved"), false, NOW);
    assert.equal(deny.kind === "refused" && deny.code, "interrupt-decided");
    assert.match(deny.kind === "refused" ? deny.message : "", /approved already/);
    const approve = planResume(approval("denied"), true, NOW);
    assert.equal(approve.kind === "refused" && approve.code, "interrupt-decided");
  });
});
