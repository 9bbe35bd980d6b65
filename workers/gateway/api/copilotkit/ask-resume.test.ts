import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AskView } from "../assistant-host/asks.ts";
import { planAskResume } from "./ask-resume.ts";

const ASK: AskView = {
  id: "ask-0abc-1-0",
  turn: "turn-0abc",
  question: "Which?",
  options: [
    { label: "Tea", description: "" },
    { label: "Coffee", description: "" },
  ],
  multiple: false,
  allowOther: true,
  status: "open",
  expiresAt: "2026-05-02T09:00:00.000Z",
  openedAt: "2026-05-01T09:00:00.000Z",
  answer: null,
  answeredAt: null,
  session: null,
};
const resolved = (payload: unknown) => ({ interruptId: ASK.id, status: "resolved" as const, payload });

describe("an AG-UI resume of an ask", () => {
  it("answers an open ask with the checked answer", () => {
    assert.deepEqual(planAskResume(resolved({ choices: [1] }), ASK), { kind: "answer", choices: [1], text: "" });
    assert.deepEqual(planAskResume(resolved({ text: " neither " }), ASK), { kind: "answer", choices: [], text: "neither" });
  });

  it("refuses a payload the ask does not take, naming the field", () => {
    const code = (entry: Parameters<typeof planAskResume>[0]) => {
      const plan = planAskResume(entry, ASK);
      return plan.kind === "refused" ? `${plan.code} ${plan.message}` : plan.kind;
    };
    assert.match(code(resolved({ choices: [2] })), /^interrupt-malformed .*payload\.choices\.0/);
    assert.match(code(resolved({ choices: [0, 1] })), /^interrupt-malformed .*one choice/);
    assert.match(code(resolved({ approved: true })), /^interrupt-malformed .*payload\.approved/);
    assert.match(code(resolved("Tea")), /^interrupt-malformed/);
    assert.match(code({ interruptId: ASK.id, status: "cancelled" }), /^interrupt-malformed .*resolved/);
  });

  it("needs nothing more for an ask answered the same way, and refuses one answered otherwise, expired or withdrawn", () => {
    const answered: AskView = { ...ASK, status: "answered", answer: { choices: [1], labels: ["Coffee"], text: "" } };
    assert.deepEqual(planAskResume(resolved({ choices: [1] }), answered), { kind: "answered" });
    assert.equal((planAskResume(resolved({ choices: [0] }), answered) as { code: string }).code, "interrupt-decided");
    assert.equal((planAskResume(resolved({ choices: [0] }), { ...ASK, status: "expired" }) as { code: string }).code, "interrupt-expired");
    assert.equal((planAskResume(resolved({ choices: [0] }), { ...ASK, status: "cancelled" }) as { code: string }).code, "interrupt-decided");
  });
});
