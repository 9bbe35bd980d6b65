import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { askId, askView, checkAnswer } from "./asks.ts";

describe("an ask's id, view and answers", () => {
  const row = { status: "Open", turn: "turn-0abc-123", question: "Which?", labels: ["Tea", "Coffee", "Water"], descriptions: ["", "strong", ""], multiple: false, allow_other: false, expires_at: 2_000, opened_at: 1_000, choices: [], text: "", session: "" };

  it("names an ask after its call's place in the turn", () => {
    assert.equal(askId("turn-0abc-123", 2, 0), "ask-0abc-123-2-0");
  });

  it("shows an open ask past its time as expired, and an answer with its labels", () => {
    assert.equal(askView("a", row, 1_500).status, "open");
    assert.equal(askView("a", row, 2_000).status, "expired");
    const answered = askView("a", { ...row, status: "Answered", choices: [2], text: "", answered_at: 1_800 }, 5_000);
    assert.equal(answered.status, "answered");
    assert.deepEqual(answered.answer, { choices: [2], labels: ["Water"], text: "" });
    assert.deepEqual(answered.options[1], { label: "Coffee", description: "strong" });
  });

  it("checks an answer against its ask, naming each field it gets wrong", () => {
    const single = { options: askView("a", row, 0).options, multiple: false, allowOther: false };
    assert.deepEqual(checkAnswer(single, { choices: [1] }), { ok: true, choices: [1], text: "" });
    const pointers = (body: { choices?: unknown; text?: unknown }, ask = single) => {
      const checked = checkAnswer(ask, body);
      assert.ok(!checked.ok, JSON.stringify(body));
      return checked.errors.map((e) => e.pointer);
    };
    assert.deepEqual(pointers({ choices: [3] }), ["#/choices/0"]);
    assert.deepEqual(pointers({ choices: [-1] }), ["#/choices/0"]);
    assert.deepEqual(pointers({ choices: [0, 1] }), ["#/choices"]);
    assert.deepEqual(pointers({ choices: "0" }), ["#/choices"]);
    assert.deepEqual(pointers({ choices: [0.5] }), ["#/choices"]);
    assert.deepEqual(pointers({ choices: [] }), ["#/choices"]);
    assert.deepEqual(pointers({}), ["#/choices"]);
    assert.deepEqual(pointers({ text: "my own" }), ["#/text"]);
    assert.deepEqual(pointers({ choices: [0], text: 7 }), ["#/text"]);
    const several = { ...single, multiple: true, allowOther: true };
    assert.deepEqual(checkAnswer(several, { choices: [2, 0], text: " also milk " }), { ok: true, choices: [2, 0], text: "also milk" });
    assert.deepEqual(checkAnswer(several, { text: "neither" }), { ok: true, choices: [], text: "neither" });
    assert.deepEqual(pointers({ choices: [1, 1] }, several), ["#/choices/1"]);
    assert.deepEqual(pointers({ text: "x".repeat(1001) }, several), ["#/text"]);
    assert.deepEqual(pointers({ choices: Array.from({ length: 9 }, () => 0) }, several), ["#/choices"]);
  });
});
