import assert from "node:assert/strict";
import { test } from "node:test";
import { accountNode, current, refusal, setUp, signIn, stepUp, unwrap } from "./account-fixture.ts";
import { checkSession } from "./sessions.ts";
import { isLoopbackAddress } from "./sign-in-off.ts";
import { machineTimeZone } from "../time-zone.ts";

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
  assert.deepEqual(node.account.settings(), { signInRequired: true, sessionDays: 30, idleDays: 7, timeZone: machineTimeZone() });
  for (const [bad, pointer] of [[{ sessionDays: 0 }, "#/sessionDays"], [{ sessionDays: 366 }, "#/sessionDays"], [{ sessionDays: 1.5 }, "#/sessionDays"], [{ idleDays: 31 }, "#/idleDays"], [{ signInRequired: "no" }, "#/signInRequired"], [{ sessionDays: "30" }, "#/sessionDays"]] as const) {
    const e = refusal(node.account.updateSettings(finished.session, bad));
    assert.deepEqual([e.code, e.status], ["bad-settings", 400], JSON.stringify(bad));
    assert.deepEqual(e.errors?.map((f) => f.pointer), [pointer], "the wrong field is named");
  }
  assert.deepEqual(unwrap(node.account.updateSettings(finished.session, { sessionDays: 90, idleDays: 14 })), { signInRequired: true, sessionDays: 90, idleDays: 14, timeZone: machineTimeZone() });
  assert.equal(refusal(node.account.updateSettings(finished.session, { signInRequired: false })).code, "step-up-required");
  const stepped = await stepUp(node, auth, finished.session);
  unwrap(node.account.updateSettings(stepped, { signInRequired: false }));
  assert.deepEqual(node.account.settings(), { signInRequired: false, sessionDays: 90, idleDays: 14, timeZone: machineTimeZone() });
  unwrap(node.account.updateSettings(current(node, stepped), { signInRequired: true }));
});

test("settings: the time zone is the machine's until chosen; an IANA name Intl knows, kept canonical, else 400 and nothing changes", async () => {
  const node = accountNode();
  const { finished } = await setUp(node);
  for (const [bad, pointers] of [[{ timeZone: "Mars/Olympus_Mons" }, ["#/timeZone"]], [{ timeZone: "+01:00" }, ["#/timeZone"]], [{ timeZone: 1 }, ["#/timeZone"]], [{ timeZone: "Europe/Paris", sessionDays: 0 }, ["#/sessionDays"]], [{ timeZone: "Mars", idleDays: 0 }, ["#/idleDays", "#/timeZone"]]] as const) {
    const e = refusal(node.account.updateSettings(finished.session, bad));
    assert.deepEqual([e.code, e.status], ["bad-settings", 400], JSON.stringify(bad));
    assert.deepEqual(e.errors?.map((f) => f.pointer), pointers, "each wrong field is named");
  }
  assert.equal(node.account.settings()?.timeZone, machineTimeZone(), "nothing changed");
  assert.equal(unwrap(node.account.updateSettings(finished.session, { timeZone: "europe/paris" })).timeZone, "Europe/Paris");
  unwrap(node.account.updateSettings(finished.session, { sessionDays: 60 }));
  assert.deepEqual(node.account.settings(), { signInRequired: true, sessionDays: 60, idleDays: 7, timeZone: "Europe/Paris" }, "kept when other settings change");
});

test("sign-in off: only on loopback; then a caller without a session is the person, through one standing session", async () => {
  const remote = accountNode(undefined, { loopback: false });
  const r = await setUp(remote);
  const rStepped = await stepUp(remote, r.auth, r.finished.session);
  const refused = refusal(remote.account.updateSettings(rStepped, { signInRequired: false }));
  assert.equal(refused.code, "bad-settings");
  assert.match(refused.message, /loopback/);
  assert.equal(remote.account.session(null), null);

  const node = accountNode();
  const { auth, finished } = await setUp(node);
  assert.equal(node.account.session(null), null, "sign-in on: no session without a cookie");
  const stepped = await stepUp(node, auth, finished.session);
  unwrap(node.account.updateSettings(stepped, { signInRequired: false }));
  const standing = node.account.session(null);
  assert.ok(standing !== null);
  assert.equal(standing.scope, "full");
  assert.equal(node.account.session("not-a-token")?.id, standing.id, "the same one for every caller without a live session");
  assert.equal(node.account.session(finished.token)?.id, finished.session.id, "a real session stays itself");
  assert.equal(node.account.status(standing).signedIn, true);
  assert.ok(node.account.sessions(standing).some((s) => s.id === standing.id && s.current), "listed, like any session");
  assert.equal(refusal(node.account.recoveryRegenerate(standing)).code, "step-up-required", "sensitive routes still need a passkey");

  node.account.signOut(standing);
  const next = node.account.session(null);
  assert.ok(next !== null && next.id !== standing.id, "signing out ends it; the next caller gets a new one");

  unwrap(node.account.updateSettings(current(node, stepped), { signInRequired: true }));
  assert.equal(node.account.session(null), null, "sign-in on again: no session without a cookie");
  assert.notEqual(node.store.session(next.id)?.endedAt ?? null, null, "the standing session ended with it");
});

test("loopback addresses: 127.0.0.0/8, ::1, IPv4-mapped loopback; nothing else", () => {
  for (const a of ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "::ffff:127.0.0.1", "localhost"]) assert.equal(isLoopbackAddress(a), true, a);
  for (const a of ["0.0.0.0", "::", "192.168.1.4", "10.0.0.1", "::ffff:10.0.0.1", "128.0.0.1", "127.0.0.1.example"]) assert.equal(isLoopbackAddress(a), false, a);
});
