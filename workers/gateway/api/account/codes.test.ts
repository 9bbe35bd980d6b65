import assert from "node:assert/strict";
import { test } from "node:test";
import { afterFailure, defaultAttemptPolicy, lockedFor, noAttempts } from "./attempt-limit.ts";
import { CODE_ALPHABET, codeHash, newCode, normalizeCode, sameSecret } from "./codes.ts";

test("the code alphabet has 32 characters and none that look alike", () => {
  assert.equal(new Set(CODE_ALPHABET).size, 32);
  for (const ch of "01IO") assert.equal(CODE_ALPHABET.includes(ch), false, ch);
});

test("codes are grouped by four and use five bits of each random byte", () => {
  const bytes = Uint8Array.from({ length: 16 }, (_, i) => i * 33);
  const code = newCode((n) => bytes.slice(0, n), 16);
  assert.match(code, /^[2-9A-HJ-NP-Z]{4}(-[2-9A-HJ-NP-Z]{4}){3}$/);
  assert.equal(code.replaceAll("-", "")[1], CODE_ALPHABET[33 & 31]);
  assert.equal(newCode((n) => new Uint8Array(n).fill(255), 8), "ZZZZ-ZZZZ");
});

test("what a person types is normalised: case, dashes and spaces do not matter; anything else is not a code", () => {
  assert.equal(normalizeCode("abcd-efgh", 8), "ABCDEFGH");
  assert.equal(normalizeCode(" ABCD EFGH ", 8), "ABCDEFGH");
  for (const typed of ["ABCD-EFG", "ABCD-EFGH-J", "ABCD-EFG0", "ABCD-EFGI", 12345678, null, "A".repeat(100)]) {
    assert.equal(normalizeCode(typed, 8), null, String(typed));
  }
  assert.deepEqual(codeHash("abcd-efgh"), codeHash("ABCDEFGH"));
});

test("secrets compare equal only when equal, whatever their lengths", () => {
  assert.equal(sameSecret("ABCDEFGH", "ABCDEFGH"), true);
  assert.equal(sameSecret("ABCDEFGH", "ABCDEFGJ"), false);
  assert.equal(sameSecret("ABCDEFGH", "ABCDEFGHJ"), false);
});

test("the guessing limit: the fifth failure within the window locks for lockMs; old failures fall out", () => {
  const minute = 60_000;
  let state = noAttempts;
  for (let i = 0; i < 4; i++) state = afterFailure(state, i * minute);
  assert.equal(lockedFor(state, 4 * minute), 0);
  state = afterFailure(state, 4 * minute);
  assert.equal(lockedFor(state, 4 * minute), defaultAttemptPolicy.lockMs);
  assert.equal(lockedFor(state, 14 * minute), 0);
  assert.deepEqual(state.failures, [], "a lock starts a new count");

  let spread = noAttempts;
  for (let i = 0; i < 20; i++) spread = afterFailure(spread, i * 3 * minute);
  assert.equal(lockedFor(spread, 60 * minute), 0, "four failures at most in any ten minutes");
  assert.ok(spread.failures.length <= 4);
});
