import assert from "node:assert/strict";
import { test } from "node:test";
import { SoftAuthenticator } from "../../../../test/helpers/soft-authenticator.ts";
import { accountNode, refusal, setUp, signIn, stepUp, unwrap } from "./account-fixture.ts";
import { checkSession } from "./sessions.ts";

test("recovery codes: ten at set-up, 80 bits each, counted as they are used; each works once", async () => {
  const node = accountNode();
  const { finished } = await setUp(node);
  for (const code of finished.recoveryCodes) assert.match(code, /^([2-9A-HJ-NP-Z]{4}-){3}[2-9A-HJ-NP-Z]{4}$/);
  assert.deepEqual(node.account.recoveryStatus(), { codesLeft: 10, createdAt: node.clock.now() });
  const [code] = finished.recoveryCodes;
  const used = unwrap(node.account.recoveryUse({ code: code!.toLowerCase().replaceAll("-", " ") }, "Lost phone"));
  assert.equal(used.session.scope, "recovery");
  assert.equal(used.maxAgeSeconds, 15 * 60);
  assert.equal(node.account.recoveryStatus().codesLeft, 9);
  const again = refusal(node.account.recoveryUse({ code }, "ua"));
  assert.deepEqual([again.code, again.status], ["bad-recovery-code", 403]);
  const stored = JSON.stringify(node.db.prepare("SELECT hex(code_hash) AS h FROM account_recovery_codes").all());
  assert.equal(stored.includes(code!.replaceAll("-", "")), false, "codes are kept as hashes");
});

test("a recovery sign-in may only add a passkey, needs no step-up for it, and ends once the passkey is added", async () => {
  const node = accountNode();
  const { finished } = await setUp(node);
  const { token, session } = unwrap(node.account.recoveryUse({ code: finished.recoveryCodes[3] }, "new phone"));
  assert.equal(refusal(await node.account.stepUpBegin(session)).code, "limited-session");
  assert.equal(refusal(node.account.pairIssue(session)).code, "limited-session");
  assert.equal(refusal(node.account.recoveryRegenerate(session)).code, "limited-session");
  assert.equal(refusal(node.account.passkeyRemove(session, "x")).code, "limited-session");
  assert.equal(refusal(node.account.updateSettings(session, { sessionDays: 10 })).code, "limited-session");

  const phone = new SoftAuthenticator();
  const { options } = unwrap(await node.account.passkeyAddBegin(session));
  const { sessionEnded } = unwrap(await node.account.passkeyAddFinish(session, { response: phone.create(options, node.origin), label: "new phone" }));
  assert.equal(sessionEnded, true);
  assert.equal(checkSession(node.store, token, node.clock.now()), null, "the one-time sign-in is over");
  unwrap(await signIn(node, phone));
});

test("a recovery sign-in lasts fifteen minutes", async () => {
  const node = accountNode();
  const { finished } = await setUp(node);
  const { token } = unwrap(node.account.recoveryUse({ code: finished.recoveryCodes[0] }, "ua"));
  node.clock.advance(15 * 60_000 - 1);
  assert.notEqual(checkSession(node.store, token, node.clock.now()), null);
  node.clock.advance(1);
  assert.equal(checkSession(node.store, token, node.clock.now()), null);
});

test("regenerating needs a step-up and retires the old codes", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  assert.equal(refusal(node.account.recoveryRegenerate(finished.session)).code, "step-up-required");
  node.clock.advance(60_000);
  const session = await stepUp(node, auth, finished.session);
  const { codes } = unwrap(node.account.recoveryRegenerate(session));
  assert.equal(codes.length, 10);
  assert.deepEqual(node.account.recoveryStatus(), { codesLeft: 10, createdAt: node.clock.now() });
  assert.equal(refusal(node.account.recoveryUse({ code: finished.recoveryCodes[0] }, "ua")).code, "bad-recovery-code");
  unwrap(node.account.recoveryUse({ code: codes[0] }, "ua"));
});

test("wrong recovery codes count towards the guessing limit: the sixth try within ten minutes is 429", async () => {
  const node = accountNode();
  const { finished } = await setUp(node);
  for (let i = 0; i < 5; i++) assert.equal(refusal(node.account.recoveryUse({ code: `WRONG${i}` }, "ua")).code, "bad-recovery-code");
  const locked = refusal(node.account.recoveryUse({ code: finished.recoveryCodes[0] }, "ua"));
  assert.deepEqual([locked.code, locked.status], ["rate-limited", 429]);
  node.clock.advance(10 * 60_000);
  unwrap(node.account.recoveryUse({ code: finished.recoveryCodes[0] }, "ua"));
});

test("no recovery before set-up", () => {
  const node = accountNode();
  assert.equal(refusal(node.account.recoveryUse({ code: "AAAA-AAAA-AAAA-AAAA" }, "ua")).code, "not-set-up");
});
