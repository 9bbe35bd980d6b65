import assert from "node:assert/strict";
import { test } from "node:test";
import { SoftAuthenticator } from "../../../../test/helpers/soft-authenticator.ts";
import { type AccountNode, accountNode, refusal, setUp, signIn, stepUp, unwrap } from "./account-fixture.ts";
import type { SessionRecord } from "./account-store.ts";
import { checkSession } from "./sessions.ts";

/** A set-up node and a stepped-up session on it. */
async function pairingNode(): Promise<{ node: AccountNode; auth: SoftAuthenticator; session: SessionRecord }> {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  return { node, auth, session: await stepUp(node, auth, finished.session) };
}

test("pairing: a code from a stepped-up session → the new device registers its own passkey and is signed in", async () => {
  const { node, session } = await pairingNode();
  const { code, expiresAt } = unwrap(node.account.pairIssue(session));
  assert.match(code, /^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
  assert.equal(expiresAt, node.clock.now() + 10 * 60_000);

  const tablet = new SoftAuthenticator();
  const { options } = unwrap(await node.account.pairBegin({ code: code.replace("-", "").toLowerCase() }));
  const signedIn = unwrap(await node.account.pairFinish({ response: tablet.create(options, node.origin) }, "tablet"));
  assert.equal(signedIn.session.scope, "full");
  assert.notEqual(checkSession(node.store, signedIn.token, node.clock.now()), null);
  assert.deepEqual(
    node.account.passkeys().map((p) => p.label),
    ["first passkey", "paired device"],
  );
  unwrap(await signIn(node, tablet));
});

test("issuing a pairing code needs a step-up", async () => {
  const node = accountNode();
  const { finished } = await setUp(node);
  assert.equal(refusal(node.account.pairIssue(finished.session)).code, "step-up-required");
});

test("a pairing code works once, and not after ten minutes: 403 bad-pairing-code", async () => {
  const { node, session } = await pairingNode();
  const { code } = unwrap(node.account.pairIssue(session));
  unwrap(await node.account.pairBegin({ code }));
  const used = refusal(await node.account.pairBegin({ code }));
  assert.deepEqual([used.code, used.status], ["bad-pairing-code", 403]);

  const late = unwrap(node.account.pairIssue(session)).code;
  node.clock.advance(4 * 60_000);
  const inTime = unwrap(node.account.pairIssue(session)).code;
  node.clock.advance(6 * 60_000);
  assert.equal(refusal(await node.account.pairBegin({ code: late })).code, "bad-pairing-code", "expired");
  unwrap(await node.account.pairBegin({ code: inTime }));
});

test("pairing's guessing limit: five wrong codes in ten minutes lock pairing for ten minutes, even for the right code", async () => {
  const { node, auth, session } = await pairingNode();
  const { code } = unwrap(node.account.pairIssue(session));
  for (const wrong of ["AAAA-AAAA", "BBBB-BBBB", "short", "", "CCCC-CCCC"]) {
    assert.equal(refusal(await node.account.pairBegin({ code: wrong })).code, "bad-pairing-code");
  }
  const locked = refusal(await node.account.pairBegin({ code }));
  assert.deepEqual([locked.code, locked.status, locked.retryAfter], ["rate-limited", 429, 600]);
  node.clock.advance(5 * 60_000);
  assert.equal(refusal(await node.account.pairBegin({ code })).retryAfter, 300);
  node.clock.advance(5 * 60_000);
  const fresh = unwrap(node.account.pairIssue(await stepUp(node, auth, session))).code;
  unwrap(await node.account.pairBegin({ code: fresh }));
});

test("wrong codes spread over more than ten minutes do not lock", async () => {
  const { node, auth, session } = await pairingNode();
  for (let i = 0; i < 8; i++) {
    assert.equal(refusal(await node.account.pairBegin({ code: "AAAA-AAAA" })).code, "bad-pairing-code");
    node.clock.advance(3 * 60_000);
  }
  const { code } = unwrap(node.account.pairIssue(await stepUp(node, auth, session)));
  unwrap(await node.account.pairBegin({ code }));
});

test("a code whose issuing session has ended pairs nothing", async () => {
  const { node, session } = await pairingNode();
  const { code } = unwrap(node.account.pairIssue(session));
  node.account.signOut(session);
  assert.equal(refusal(await node.account.pairBegin({ code })).code, "bad-pairing-code");
});

test("pair finish: the challenge works once and only for a pairing; a wrong origin is 401", async () => {
  const { node, session } = await pairingNode();
  const tablet = new SoftAuthenticator();
  const first = unwrap(await node.account.pairBegin({ code: unwrap(node.account.pairIssue(session)).code }));
  assert.equal(refusal(await node.account.pairFinish({ response: tablet.create(first.options, "https://evil.test") }, "ua")).code, "unauthenticated");
  const second = unwrap(await node.account.pairBegin({ code: unwrap(node.account.pairIssue(session)).code }));
  const response = tablet.create(second.options, node.origin);
  unwrap(await node.account.pairFinish({ response }, "ua"));
  assert.equal(refusal(await node.account.pairFinish({ response }, "ua")).code, "bad-challenge");
  const addOptions = unwrap(await node.account.passkeyAddBegin(session)).options;
  assert.equal(refusal(await node.account.pairFinish({ response: new SoftAuthenticator().create(addOptions, node.origin) }, "ua")).code, "bad-challenge");
});
