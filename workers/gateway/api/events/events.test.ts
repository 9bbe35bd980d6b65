import assert from "node:assert/strict";
import { test } from "node:test";
import { sessionCheckMs } from "./events.ts";

test("the session re-check period comes from CHARTER_EVENTS_SESSION_CHECK_MS, else 10 s", () => {
  assert.equal(sessionCheckMs({}), 10_000);
  assert.equal(sessionCheckMs({ CHARTER_EVENTS_SESSION_CHECK_MS: "250" }), 250);
  for (const bad of ["", "0", "-5", "1.5", "soon"]) assert.equal(sessionCheckMs({ CHARTER_EVENTS_SESSION_CHECK_MS: bad }), 10_000, bad);
});
