import assert from "node:assert/strict";
import { test } from "node:test";
import { accountNode, current, refusal, setUp, signIn, stepUp, unwrap } from "./account-fixture.ts";

test("step-up: the session may do sensitive things for five minutes, then asks again", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  const session = finished.session;
  const before = refusal(node.account.recoveryRegenerate(session));
  assert.deepEqual([before.code, before.status], ["step-up-required", 403]);

  const { options } = unwrap(await node.account.stepUpBegin(session));
  assert.deepEqual(
    options.allowCredentials?.map((c) => c.id),
    auth.credentialIds,
    "a step-up names the account's passkeys",
  );
  const { until } = unwrap(await node.account.stepUpFinish(session, { response: auth.get(options, node.origin) }));
  assert.equal(until, node.clock.now() + 5 * 60_000);
  const stepped = current(node, session);
  assert.equal(stepped.steppedUpUntil, until);

  node.clock.advance(5 * 60_000 - 1);
  unwrap(node.account.recoveryRegenerate(stepped));
  node.clock.advance(1);
  assert.equal(refusal(node.account.recoveryRegenerate(stepped)).code, "step-up-required", "the window has closed");
});

test("a step-up is for the session that asked: another session cannot use its challenge, nor gains from it", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  const other = unwrap(await signIn(node, auth)).session;
  const { options } = unwrap(await node.account.stepUpBegin(finished.session));
  const stolen = refusal(await node.account.stepUpFinish(other, { response: auth.get(options, node.origin) }));
  assert.equal(stolen.code, "bad-challenge");
  await stepUp(node, auth, finished.session);
  assert.equal(current(node, other).steppedUpUntil, 0);
  assert.equal(refusal(node.account.recoveryRegenerate(current(node, other))).code, "step-up-required");
});

test("step-up refuses a wrong origin, an unknown credential, a stale counter and an expired challenge", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  const session = finished.session;
  const tries = [
    { origin: "http://home.example.org", knobs: {} },
    { origin: node.origin, knobs: { unknownCredential: true } },
    { origin: node.origin, knobs: { tamperClientData: true } },
  ];
  for (const { origin, knobs } of tries) {
    const { options } = unwrap(await node.account.stepUpBegin(session));
    assert.equal(refusal(await node.account.stepUpFinish(session, { response: auth.get(options, origin, knobs) })).code, "unauthenticated");
  }
  await stepUp(node, auth, session);
  const { options } = unwrap(await node.account.stepUpBegin(session));
  assert.equal(refusal(await node.account.stepUpFinish(session, { response: auth.get(options, node.origin, { staleCounter: true }) })).code, "unauthenticated");
  const late = unwrap(await node.account.stepUpBegin(session));
  node.clock.advance(5 * 60_000);
  assert.equal(refusal(await node.account.stepUpFinish(session, { response: auth.get(late.options, node.origin) })).code, "bad-challenge");
});
