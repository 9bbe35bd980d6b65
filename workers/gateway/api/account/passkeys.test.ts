import assert from "node:assert/strict";
import { test } from "node:test";
import { SoftAuthenticator } from "../../../../test/helpers/soft-authenticator.ts";
import { accountNode, refusal, setUp, signIn, stepUp, unwrap } from "./account-fixture.ts";

test("adding a passkey needs a step-up; the new one signs in, and the options exclude the ones registered", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  const needs = refusal(await node.account.passkeyAddBegin(finished.session));
  assert.deepEqual([needs.code, needs.status], ["step-up-required", 403]);

  const session = await stepUp(node, auth, finished.session);
  const { options } = unwrap(await node.account.passkeyAddBegin(session));
  assert.deepEqual(
    options.excludeCredentials?.map((c) => c.id),
    auth.credentialIds,
  );
  const laptop = new SoftAuthenticator();
  const { passkey, sessionEnded } = unwrap(await node.account.passkeyAddFinish(session, { response: laptop.create(options, node.origin), label: "  laptop  " }));
  assert.equal(passkey.label, "laptop");
  assert.equal(sessionEnded, false);
  assert.deepEqual(
    node.account.passkeys().map((p) => p.label),
    ["first passkey", "laptop"],
  );
  unwrap(await signIn(node, laptop));
});

test("passkey-add finish checks the step-up again, the challenge's session, and the attestation's origin", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  const session = await stepUp(node, auth, finished.session);
  const laptop = new SoftAuthenticator();

  node.clock.advance(4 * 60_000);
  const slow = unwrap(await node.account.passkeyAddBegin(session));
  node.clock.advance(60_000);
  assert.equal(refusal(await node.account.passkeyAddFinish(session, { response: laptop.create(slow.options, node.origin) })).code, "step-up-required");

  const again = await stepUp(node, auth, session);
  const other = await stepUp(node, auth, unwrap(await signIn(node, auth)).session);
  const mine = unwrap(await node.account.passkeyAddBegin(again));
  assert.equal(refusal(await node.account.passkeyAddFinish(other, { response: laptop.create(mine.options, node.origin) })).code, "bad-challenge");

  const phished = unwrap(await node.account.passkeyAddBegin(again));
  assert.equal(refusal(await node.account.passkeyAddFinish(again, { response: laptop.create(phished.options, "https://evil.test") })).code, "unauthenticated");
  assert.equal(node.store.passkeyCount(), 1);
});

test("removing a passkey needs a step-up; the last one is refused with 409 last-passkey; an unknown id is 404", async () => {
  const node = accountNode();
  const { auth, finished } = await setUp(node);
  const [first] = auth.credentialIds;
  assert.equal(refusal(node.account.passkeyRemove(finished.session, first!)).code, "step-up-required");
  const session = await stepUp(node, auth, finished.session);
  const last = refusal(node.account.passkeyRemove(session, first!));
  assert.deepEqual([last.code, last.status], ["last-passkey", 409]);
  assert.deepEqual([refusal(node.account.passkeyRemove(session, "nope")).code, refusal(node.account.passkeyRemove(session, "nope")).status], ["not-found", 404]);

  const { options } = unwrap(await node.account.passkeyAddBegin(session));
  const laptop = new SoftAuthenticator();
  unwrap(await node.account.passkeyAddFinish(session, { response: laptop.create(options, node.origin) }));
  unwrap(node.account.passkeyRemove(session, first!));
  assert.equal(refusal(await signIn(node, auth)).code, "unauthenticated", "a removed passkey no longer signs in");
  assert.equal(refusal(node.account.passkeyRemove(session, laptop.credentialIds[0]!)).code, "last-passkey");
});
