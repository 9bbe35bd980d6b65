import assert from "node:assert/strict";
import { test } from "node:test";
import { FOLLOW_UP_CHARS, MAX_FOLLOW_UPS, parseFollowUps } from "./suggestions.ts";

test("a model's follow-ups: one a line, bullets, numbers and quotes taken off, blanks and repeats left out", () => {
  assert.deepEqual(parseFollowUps('1. What is due today?\n\n- Add oat milk\n* "Plan my week"\n2) What is due today?\n'), ["What is due today?", "Add oat milk", "Plan my week"]);
  assert.deepEqual(parseFollowUps("“Remind me at six”\r\n• Call mum"), ["Remind me at six", "Call mum"]);
});

test("at most three, each at most 200 characters, control characters removed", () => {
  const many = Array.from({ length: 10 }, (_, i) => `Suggestion ${i}`).join("\n");
  assert.equal(parseFollowUps(many).length, MAX_FOLLOW_UPS);
  const [long] = parseFollowUps(`${"word ".repeat(200)}\nnext`);
  assert.ok(long !== undefined && long.length <= FOLLOW_UP_CHARS, String(long?.length));
  assert.deepEqual(parseFollowUps("Ring\u0007 the bell"), ["Ring the bell"]);
  assert.deepEqual(parseFollowUps(""), []);
  assert.deepEqual(parseFollowUps("   \n - \n"), []);
});

test("an answer of any size is read only so far", () => {
  const huge = `${"x".repeat(1_000_000)}\nfine`;
  const parsed = parseFollowUps(huge);
  assert.equal(parsed.length, 1, "the one line within the part read");
  assert.ok(parsed[0]!.length <= FOLLOW_UP_CHARS);
});
