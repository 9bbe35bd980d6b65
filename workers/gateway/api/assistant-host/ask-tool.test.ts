import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ASK_TOOL, ASK_TOOL_SPEC, parseAskArguments } from "./ask-tool.ts";

const TWO = [{ label: "Tea" }, { label: "Coffee", description: "strong" }];

function refused(json: string): string {
  const parsed = parseAskArguments(json);
  assert.ok(!parsed.ok, json.slice(0, 80));
  return parsed.error;
}

describe("the ask_person tool's arguments", () => {
  it("reads a question with its options, trimmed, defaults filled in", () => {
    assert.deepEqual(parseAskArguments(JSON.stringify({ question: " Which one? ", options: TWO })), {
      ok: true,
      ask: { question: "Which one?", options: [{ label: "Tea", description: "" }, { label: "Coffee", description: "strong" }], multiple: false, allowOther: false },
    });
    const both = parseAskArguments(JSON.stringify({ question: "Q", options: TWO, multiple: true, allowOther: true }));
    assert.ok(both.ok && both.ask.multiple && both.ask.allowOther);
  });

  it("refuses what its parameters do not allow, saying which", () => {
    assert.match(refused("{not json"), /not JSON/);
    assert.match(refused("[]"), /an object/);
    assert.match(refused(JSON.stringify({ question: "Q", options: TWO, colour: "red" })), /unknown argument "colour"/);
    assert.match(refused(JSON.stringify({ question: "", options: TWO })), /question/);
    assert.match(refused(JSON.stringify({ question: "x".repeat(1001), options: TWO })), /question is a string of 1 to 1000/);
    assert.match(refused(JSON.stringify({ question: "Q", options: [{ label: "One" }] })), /2 to 8 options/);
    assert.match(refused(JSON.stringify({ question: "Q", options: Array.from({ length: 9 }, (_, i) => ({ label: `o${i}` })) })), /2 to 8 options/);
    assert.match(refused(JSON.stringify({ question: "Q", options: [{ label: "A" }, { label: "x".repeat(201) }] })), /options\[1\]\.label/);
    assert.match(refused(JSON.stringify({ question: "Q", options: [{ label: "A" }, { label: "B", description: "d".repeat(501) }] })), /options\[1\]\.description/);
    assert.match(refused(JSON.stringify({ question: "Q", options: [{ label: "A" }, { label: "B", extra: 1 }] })), /options\[1\] is an object/);
    assert.match(refused(JSON.stringify({ question: "Q", options: [{ label: "A" }, { label: " A " }] })), /repeats/);
    assert.match(refused(JSON.stringify({ question: "Q", options: TWO, multiple: "yes" })), /multiple/);
    assert.match(refused(JSON.stringify({ question: "Q", options: TWO, allowOther: 1 })), /allowOther/);
    assert.match(refused(`{"question": "${"x".repeat(20_000)}"}`), /longer than/);
  });

  it("is offered under its own name with bounds the model can read", () => {
    assert.equal(ASK_TOOL_SPEC.name, ASK_TOOL);
    const options = (ASK_TOOL_SPEC.parameters.properties as Record<string, { minItems?: number; maxItems?: number }>).options;
    assert.deepEqual([options?.minItems, options?.maxItems], [2, 8]);
  });
});
