import assert from "node:assert/strict";
import { test } from "node:test";
import { SoftAuthenticator } from "../../../../test/helpers/soft-authenticator.ts";
import { accountNode, refusal, setUp, signIn, unwrap } from "./account-fixture.ts";
import { checkSession } from "./sessions.ts";

test("sign-in: a passkey of the account starts a full session; the token is shown once and stored hashed", async () => {
  const node = accountNode();
  const { auth } = await setUp(node);
  const { options } = unwrap(await node.account.signInBegin());
  assert.equal(options.rpId, "home.example.org");
  assert.deepEqual(options.allowCredentials, [], "passkeys are discoverable: the options name none");
  const signedIn = unwrap(await node.account.signInFinish({ response: auth.get(options, node.origin) }, "Safari"));
  assert.match(signedIn.token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(signedIn.session.userAgent, "Safari");
  assert.equal(checkSession(node.store, signedIn.token, node.clock.now())?.id, signedIn.session.id);
  const stored = node.db.prepare("SELECT token_hash FROM account_sessions WHERE id = ?").get(signedIn.session.id) as { token_hash: Uint8Array };
  assert.equal(stored.token_hash.length, 32);
  assert.equal(JSON.stringify(node.db.prepare("SELECT * FROM account_sessions").all()).includes(signedIn.token), false, "the token itself is nowhere");
  const passkey = node.account.passkeys()[0];
  assert.equal(passkey?.lastUsedAt, node.clock.now());
});

test("a wrong origin is 401 unauthenticated", async () => {
  const node = accountNode();
  const { auth } = await setUp(node);
  const e = refusal(await signIn(node, auth, {}, "https://home.example.org:8443"));
  assert.deepEqual([e.code, e.status], ["unauthenticated", 401]);
  assert.match(e.reason ?? "", /origin/);
});

test("a replayed challenge is 400 bad-challenge, and so is an expired one", async () => {
  const node = accountNode();
  const { auth } = await setUp(node);
  const { options } = unwrap(await node.account.signInBegin());
  const response = auth.get(options, node.origin);
  unwrap(await node.account.signInFinish({ response }, "ua"));
  const replayed = refusal(await node.account.signInFinish({ response }, "ua"));
  assert.deepEqual([replayed.code, replayed.status], ["bad-challenge", 400]);

  const late = unwrap(await node.account.signInBegin());
  node.clock.advance(5 * 60_000 - 1);
  unwrap(await node.account.signInFinish({ response: auth.get(late.options, node.origin) }, "ua"));
  const expired = unwrap(await node.account.signInBegin());
  node.clock.advance(5 * 60_000);
  assert.equal(refusal(await node.account.signInFinish({ response: auth.get(expired.options, node.origin) }, "ua")).code, "bad-challenge");
});

test("a failed check still uses the challenge up: a corrected retry needs a new begin", async () => {
  const node = accountNode();
  const { auth } = await setUp(node);
  const { options } = unwrap(await node.account.signInBegin());
  assert.equal(refusal(await node.account.signInFinish({ response: auth.get(options, node.origin, { tamperClientData: true }) }, "ua")).code, "unauthenticated");
  assert.equal(refusal(await node.account.signInFinish({ response: auth.get(options, node.origin) }, "ua")).code, "bad-challenge");
});

test("a counter that does not grow is 401 (a cloned authenticator); one that stays 0 is a synced passkey and fine", async () => {
  const node = accountNode();
  const { auth } = await setUp(node);
  unwrap(await signIn(node, auth));
  const e = refusal(await signIn(node, auth, { staleCounter: true }));
  assert.equal(e.code, "unauthenticated");
  assert.match(e.reason ?? "", /counter/);
  unwrap(await signIn(node, auth));

  const synced = accountNode();
  const phone = new SoftAuthenticator({ zeroCounter: true });
  await setUp(synced, phone);
  unwrap(await signIn(synced, phone));
  unwrap(await signIn(synced, phone));
});

test("an unknown credential is 401; so are tampered client data and a missing user verification", async () => {
  const node = accountNode();
  const { auth } = await setUp(node);
  const unknown = refusal(await signIn(node, auth, { unknownCredential: true }));
  assert.deepEqual([unknown.code, unknown.reason], ["unauthenticated", "unknown credential"]);
  const stranger = refusal(await signIn(node, await setUp(accountNode()).then((s) => s.auth)));
  assert.equal(stranger.code, "unauthenticated", "a passkey of another node's account");
  const tampered = refusal(await signIn(node, auth, { tamperClientData: true }));
  assert.equal(tampered.code, "unauthenticated");
  assert.match(tampered.reason ?? "", /signature/);
  assert.equal(refusal(await signIn(node, auth, { noUserVerification: true })).code, "unauthenticated");
});

test("a challenge made for another step, a malformed response, a node not set up", async () => {
  const node = accountNode();
  assert.deepEqual([refusal(await node.account.signInBegin()).code, refusal(await node.account.signInBegin()).status], ["not-set-up", 409]);
  const { auth, finished } = await setUp(node);
  const stepUp = unwrap(await node.account.stepUpBegin(finished.session));
  const wrongStep = refusal(await node.account.signInFinish({ response: auth.get(stepUp.options, node.origin) }, "ua"));
  assert.equal(wrongStep.code, "bad-challenge", "a step-up challenge does not sign in");
  for (const response of [undefined, {}, { id: "x", rawId: "x", type: "public-key", response: { clientDataJSON: "e30" } }]) {
    assert.equal(refusal(await node.account.signInFinish({ response }, "ua")).code, "bad-response");
  }
});
