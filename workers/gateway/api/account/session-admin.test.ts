import assert from "node:assert/strict";
import { test } from "node:test";
import { accountNode, current, refusal, setUp, signIn, stepUp, unwrap } from "./account-fixture.ts";
import { checkSession } from "./sessions.ts";

test("the sessions list marks the caller's, most recently seen first, and leaves ended ones out", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  node.clock.advance(60_000);
  const phone = unwrap(await signIn(node, auth));
  node.clock.advance(60_000);
  const gone = unwrap(await signIn(node, auth));
  node.account.signOut(gone.session);
  const items = node.account.sessions(finished.session);
  assert.deepEqual(
    items.map((s) => [s.id, s.current]),
    [
      [phone.session.id, false],
      [finished.session.id, true],
    ],
  );
  assert.equal(items[1]?.userAgent, "test browser");
});

test("ending one's own session needs nothing; ending another needs a step-up; an unknown id is 404", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  const phone = unwrap(await signIn(node, auth));
  const needs = refusal(node.account.endSession(finished.session, phone.session.id));
  assert.deepEqual([needs.code, needs.status], ["step-up-required", 403]);
  const stepped = await stepUp(node, auth, finished.session);
  unwrap(node.account.endSession(stepped, phone.session.id));
  assert.equal(checkSession(node.store, phone.token, node.clock.now()), null);
  assert.equal(refusal(node.account.endSession(stepped, phone.session.id)).code, "not-found");
  unwrap(node.account.endSession(stepped, stepped.id));
  assert.equal(checkSession(node.store, finished.token, node.clock.now()), null);
});

test("settings: defaults, validated changes, and turning sign-in off needs a step-up", async () => {
  const node = accountNode();
  assert.equal(node.account.settings(), null);
  const { auth, finished } = await setUp(node);
  assert.deepEqual(node.account.settings(), { signInRequired: true, sessionDays: 30, idleDays: 7 });
  for (const bad of [{ sessionDays: 0 }, { sessionDays: 366 }, { sessionDays: 1.5 }, { idleDays: 31 }, { signInRequired: "no" }, { sessionDays: "30" }]) {
    const e = refusal(node.account.updateSettings(finished.session, bad));
    assert.deepEqual([e.code, e.status], ["bad-settings", 400], JSON.stringify(bad));
  }
  assert.deepEqual(unwrap(node.account.updateSettings(finished.session, { sessionDays: 90, idleDays: 14 })), { signInRequired: true, sessionDays: 90, idleDays: 14 });
  assert.equal(refusal(node.account.updateSettings(finished.session, { signInRequired: false })).code, "step-up-required");
  const stepped = await stepUp(node, auth, finished.session);
  unwrap(node.account.updateSettings(stepped, { signInRequired: false }));
  assert.deepEqual(node.account.settings(), { signInRequired: false, sessionDays: 90, idleDays: 14 });
  unwrap(node.account.updateSettings(current(node, stepped), { signInRequired: true }));
});
