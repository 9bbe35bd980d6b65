/**
 * @module The Workbench page's completion lists are the language service's: the page cannot import
 * `contracts/` (it is bundled for the browser), so this test compares the two.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CONTEXT as SERVICE_CONTEXT, EFFECTS as SERVICE_EFFECTS, MODES as SERVICE_MODES, STAGES as SERVICE_STAGES } from "../contracts/language-service/meanings.ts";
import { CONTEXT, EFFECTS, MODES, STAGES } from "./components/records-completion.ts";

test("the page completes the stages, modes, effects and context fields the language service knows", () => {
  assert.deepEqual(STAGES, Object.keys(SERVICE_STAGES));
  assert.deepEqual(EFFECTS, Object.keys(SERVICE_EFFECTS));
  assert.deepEqual(CONTEXT, Object.keys(SERVICE_CONTEXT));
  assert.deepEqual(Object.fromEntries(Object.entries(MODES).map(([k, v]) => [k, [...v]])), Object.fromEntries(Object.entries(SERVICE_MODES).map(([k, v]) => [k, Object.keys(v)])));
});
