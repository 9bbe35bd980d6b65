import assert from "node:assert/strict";
import { test } from "node:test";
import { accountNode, setUp, signIn, stepUp, unwrap } from "./account-fixture.ts";
import { checkSession, clearSessionCookie, newSessionToken, sessionCookie, sessionTokenFrom, TOUCH_EVERY_MS } from "./sessions.ts";

const DAY = 86_400_000;

test("a session token is 256 random bits in base64url", () => {
  const seen = new Set<number>();
  const token = newSessionToken((n) => {
    seen.add(n);
    return new Uint8Array(n).fill(7);
  });
  assert.deepEqual([...seen], [32]);
  assert.equal(token, Buffer.alloc(32, 7).toString("base64url"));
  assert.equal(token.length, 43);
});

test("the cookie is HttpOnly, SameSite=Strict, Path=/, with a Max-Age; Secure only for an HTTPS origin", () => {
  assert.equal(sessionCookie("tok", "https://home.example.org", 2_592_000), "charter_session=tok; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000; Secure");
  assert.equal(sessionCookie("tok", "http://localhost:8787", 900), "charter_session=tok; HttpOnly; SameSite=Strict; Path=/; Max-Age=900");
  assert.equal(clearSessionCookie("https://home.example.org"), "charter_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Secure");
  assert.equal(clearSessionCookie("http://localhost:8787"), "charter_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0");
});

test("the token is read from a Cookie header among others", () => {
  assert.equal(sessionTokenFrom("a=1; charter_session=abc; b=2"), "abc");
  assert.equal(sessionTokenFrom("charter_session_x=1; xcharter_session=2"), null);
  assert.equal(sessionTokenFrom(undefined), null);
});

test("a session lives 30 days however active it is", async () => {
  const node = accountNode();
  const { finished } = await setUp(node);
  for (let day = 0; day < 29; day++) {
    node.clock.advance(DAY);
    assert.notEqual(checkSession(node.store, finished.token, node.clock.now()), null, `day ${day + 1}`);
  }
  node.clock.advance(DAY - 1);
  assert.notEqual(checkSession(node.store, finished.token, node.clock.now()), null);
  node.clock.advance(1);
  assert.equal(checkSession(node.store, finished.token, node.clock.now()), null);
});

test("a session idle for 7 days is over; activity keeps it alive", async () => {
  const node = accountNode();
  const { finished } = await setUp(node);
  node.clock.advance(7 * DAY - 1);
  assert.notEqual(checkSession(node.store, finished.token, node.clock.now()), null, "seen just in time");
  node.clock.advance(7 * DAY - 1);
  assert.notEqual(checkSession(node.store, finished.token, node.clock.now()), null, "the last check counted as activity");
  node.clock.advance(7 * DAY);
  assert.equal(checkSession(node.store, finished.token, node.clock.now()), null);
});

test("the lifetime and idle limit follow the settings", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  unwrap(node.account.updateSettings(finished.session, { sessionDays: 2, idleDays: 1 }));
  node.clock.advance(DAY - 1);
  assert.notEqual(checkSession(node.store, finished.token, node.clock.now()), null);
  node.clock.advance(DAY - 1);
  assert.notEqual(checkSession(node.store, finished.token, node.clock.now()), null);
  node.clock.advance(2);
  assert.equal(checkSession(node.store, finished.token, node.clock.now()), null, "two days old");
  const idle = unwrap(await signIn(node, auth));
  node.clock.advance(DAY);
  assert.equal(checkSession(node.store, idle.token, node.clock.now()), null, "idle a day");
});

test("an ended session, an unknown token or a malformed one is refused", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  const other = unwrap(await signIn(node, auth));
  node.account.signOut(finished.session);
  assert.equal(checkSession(node.store, finished.token, node.clock.now()), null);
  assert.notEqual(checkSession(node.store, other.token, node.clock.now()), null, "other sessions go on");
  for (const token of [null, undefined, "", "x", newSessionToken((n) => new Uint8Array(n)), `${other.token}=`, other.token.slice(1)]) {
    assert.equal(checkSession(node.store, token, node.clock.now()), null, String(token));
  }
});

test("lastSeenAt moves at most once a minute, so most checks write nothing", async () => {
  const node = accountNode();
  const { finished } = await setUp(node);
  const start = node.clock.now();
  node.clock.advance(TOUCH_EVERY_MS - 1);
  assert.equal(checkSession(node.store, finished.token, node.clock.now())?.lastSeenAt, start);
  assert.equal(node.store.session(finished.session.id)?.lastSeenAt, start);
  node.clock.advance(1);
  assert.equal(checkSession(node.store, finished.token, node.clock.now())?.lastSeenAt, start + TOUCH_EVERY_MS);
  assert.equal(node.store.session(finished.session.id)?.lastSeenAt, start + TOUCH_EVERY_MS);
});

test("the checked session carries its step-up", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  await stepUp(node, auth, finished.session);
  assert.equal(checkSession(node.store, finished.token, node.clock.now())?.steppedUpUntil, node.clock.now() + 5 * 60_000);
});
