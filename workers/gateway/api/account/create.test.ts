import assert from "node:assert/strict";
import { test } from "node:test";
import { fail, ok } from "../../../../shared/result.ts";
import { SoftAuthenticator } from "../../../../test/helpers/soft-authenticator.ts";
import { accountNode, PERSON_DID, refusal, setUp, signIn, unwrap } from "./account-fixture.ts";
import { accountError } from "./account-errors.ts";
import { checkSession } from "./sessions.ts";

test("set-up: begin with the printed code, register a passkey, finish with the ticket → account, ten codes, a session", async () => {
  const node = accountNode();
  const code = node.account.setupCode();
  assert.match(code ?? "", /^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
  assert.equal(node.account.setupCode(), code, "the code is made once and kept");
  const auth = new SoftAuthenticator();
  const { options } = unwrap(await node.account.createBegin({ firstName: " Ada ", setupCode: code!.toLowerCase() }));
  assert.equal(options.rp.id, "home.example.org");
  assert.equal(options.user.name, "Ada");
  assert.equal(options.authenticatorSelection?.userVerification, "required");
  const { ticket } = unwrap(await node.account.createRegister({ response: auth.create(options, node.origin) }));
  assert.equal(node.account.status(null).setUp, false, "not set up before finish");
  let plan: unknown;
  const finished = unwrap(
    await node.account.createFinish({ ticket }, "Firefox", async (p) => {
      plan = p;
      return ok({ did: PERSON_DID, tenant: "ada" });
    }),
  );
  assert.deepEqual(plan, { firstName: "Ada" });
  assert.equal(finished.recoveryCodes.length, 10);
  assert.equal(new Set(finished.recoveryCodes).size, 10);
  assert.equal(finished.session.scope, "full");
  assert.equal(finished.maxAgeSeconds, 30 * 86_400);
  assert.deepEqual(checkSession(node.store, finished.token, node.clock.now())?.id, finished.session.id);
  assert.deepEqual(node.account.status(finished.session), { setUp: true, signedIn: true, firstName: "Ada", did: PERSON_DID });
  assert.deepEqual(node.account.status(null), { setUp: true, signedIn: false, firstName: null, did: null });
  assert.equal(node.account.setupCode(), null, "the set-up code is gone once set up");
  assert.equal(unwrap(await signIn(node, auth)).session.scope, "full", "the first passkey signs in");
});

test("a second account creation is refused: 409 already-set-up, at every step", async () => {
  const node = accountNode();
  const { auth } = await setUp(node);
  const begin = refusal(await node.account.createBegin({ firstName: "Mallory", setupCode: "AAAA-AAAA" }));
  assert.deepEqual([begin.code, begin.status], ["already-set-up", 409]);
  const options = { challenge: "x", rp: { id: "home.example.org", name: "x" }, user: { id: "AAAA", name: "m", displayName: "m" }, pubKeyCredParams: [{ alg: -7, type: "public-key" as const }] };
  const register = refusal(await node.account.createRegister({ response: auth.create(options, node.origin) }));
  assert.equal(register.code, "already-set-up");
  const finish = refusal(await node.account.createFinish({ ticket: "x" }, "ua", async () => ok({ did: "did:key:z", tenant: "z" })));
  assert.equal(finish.code, "already-set-up");
});

test("a wrong set-up code is 403 bad-setup-code; five in ten minutes lock set-up (429) for ten minutes", async () => {
  const node = accountNode();
  const code = node.account.setupCode()!;
  for (const wrong of ["AAAA-AAAA", "not a code", 12345678, "BBBB-BBBB", "CCCC-CCCC"]) {
    const e = refusal(await node.account.createBegin({ firstName: "Ada", setupCode: wrong }));
    assert.deepEqual([e.code, e.status], ["bad-setup-code", 403]);
  }
  const locked = refusal(await node.account.createBegin({ firstName: "Ada", setupCode: code }));
  assert.deepEqual([locked.code, locked.status, locked.retryAfter], ["rate-limited", 429, 600]);
  node.clock.advance(10 * 60_000);
  unwrap(await node.account.createBegin({ firstName: "Ada", setupCode: code }));
});

test("a first name must be 1 to 64 characters without control characters: 400 bad-first-name", async () => {
  const node = accountNode();
  const code = node.account.setupCode()!;
  for (const firstName of ["", "   ", "x".repeat(65), "Ada\u0000", 42]) {
    assert.equal(refusal(await node.account.createBegin({ firstName, setupCode: code })).code, "bad-first-name");
  }
});

test("register: a replayed or expired challenge is 400 bad-challenge; a wrong origin 401; a malformed response 400", async () => {
  const node = accountNode();
  const code = node.account.setupCode()!;
  const auth = new SoftAuthenticator();
  const first = unwrap(await node.account.createBegin({ firstName: "Ada", setupCode: code }));
  const response = auth.create(first.options, node.origin);
  unwrap(await node.account.createRegister({ response }));
  const replayed = refusal(await node.account.createRegister({ response }));
  assert.deepEqual([replayed.code, replayed.status], ["bad-challenge", 400]);

  const late = unwrap(await node.account.createBegin({ firstName: "Ada", setupCode: code }));
  node.clock.advance(5 * 60_000);
  assert.equal(refusal(await node.account.createRegister({ response: auth.create(late.options, node.origin) })).code, "bad-challenge");

  const phished = unwrap(await node.account.createBegin({ firstName: "Ada", setupCode: code }));
  const wrongOrigin = refusal(await node.account.createRegister({ response: auth.create(phished.options, "https://home.example.org.evil.test") }));
  assert.deepEqual([wrongOrigin.code, wrongOrigin.status], ["unauthenticated", 401]);

  const noUv = unwrap(await node.account.createBegin({ firstName: "Ada", setupCode: code }));
  assert.equal(refusal(await node.account.createRegister({ response: auth.create(noUv.options, node.origin, { noUserVerification: true }) })).code, "unauthenticated");

  for (const response of [null, "x", { id: "a", rawId: "b", type: "public-key", response: {} }, { id: "a", rawId: "a", type: "public-key", response: { clientDataJSON: "e30", attestationObject: "!" } }]) {
    assert.equal(refusal(await node.account.createRegister({ response })).code, "bad-response");
  }
});

test("finish needs the ticket register gave: anyone else gets 400 bad-challenge, and the ticket works once", async () => {
  const node = accountNode();
  const auth = new SoftAuthenticator();
  const { options } = unwrap(await node.account.createBegin({ firstName: "Ada", setupCode: node.account.setupCode() }));
  const { ticket } = unwrap(await node.account.createRegister({ response: auth.create(options, node.origin) }));
  const made = async () => ok({ did: PERSON_DID, tenant: "ada" });
  for (const guess of [undefined, "", "x".repeat(43), { ticket }]) {
    assert.equal(refusal(await node.account.createFinish({ ticket: guess }, "ua", made)).code, "bad-challenge");
  }
  unwrap(await node.account.createFinish({ ticket }, "ua", made));
  assert.equal(refusal(await node.account.createFinish({ ticket }, "ua", made)).code, "already-set-up");
});

test("when set-up's identity step fails, the account stays pending and set-up starts again", async () => {
  const node = accountNode();
  const code = node.account.setupCode()!;
  const auth = new SoftAuthenticator();
  const first = unwrap(await node.account.createBegin({ firstName: "Ada", setupCode: code }));
  const { ticket } = unwrap(await node.account.createRegister({ response: auth.create(first.options, node.origin) }));
  const failed = refusal(await node.account.createFinish({ ticket }, "ua", async () => fail(accountError("not-set-up", "the engine is not answering"))));
  assert.equal(failed.code, "not-set-up");
  assert.equal(node.account.status(null).setUp, false);
  assert.equal(node.account.setupCode(), code, "the same code still sets the node up");
  assert.equal(refusal(await node.account.signInBegin()).code, "not-set-up", "nobody signs in to a pending account");
  const { finished } = await setUp(node, new SoftAuthenticator());
  assert.equal(node.store.passkeyCount(), 1, "the abandoned attempt's passkey is gone");
  assert.equal(finished.did, PERSON_DID);
});

test("a set-up restarted while the identity is being made keeps the first finish from completing it", async () => {
  const node = accountNode();
  const code = node.account.setupCode()!;
  const first = unwrap(await node.account.createBegin({ firstName: "Ada", setupCode: code }));
  const { ticket } = unwrap(await node.account.createRegister({ response: new SoftAuthenticator().create(first.options, node.origin) }));
  const raced = refusal(
    await node.account.createFinish({ ticket }, "ua", async () => {
      const again = unwrap(await node.account.createBegin({ firstName: "Grace", setupCode: code }));
      unwrap(await node.account.createRegister({ response: new SoftAuthenticator().create(again.options, node.origin) }));
      return ok({ did: PERSON_DID, tenant: "ada" });
    }),
  );
  assert.equal(raced.code, "bad-challenge");
  assert.equal(node.account.status(null).setUp, false);
  assert.equal(node.store.account()?.firstName, "Grace");
});

test("a ticket finishes only the attempt that registered it", async () => {
  const node = accountNode();
  const code = node.account.setupCode()!;
  const first = unwrap(await node.account.createBegin({ firstName: "Ada", setupCode: code }));
  const { ticket: old } = unwrap(await node.account.createRegister({ response: new SoftAuthenticator().create(first.options, node.origin) }));
  const again = unwrap(await node.account.createBegin({ firstName: "Grace", setupCode: code }));
  const { ticket } = unwrap(await node.account.createRegister({ response: new SoftAuthenticator().create(again.options, node.origin) }));
  assert.equal(refusal(await node.account.createFinish({ ticket: old }, "ua", async () => ok({ did: PERSON_DID, tenant: "ada" }))).code, "bad-challenge");
  assert.equal(unwrap(await node.account.createFinish({ ticket }, "ua", async () => ok({ did: PERSON_DID, tenant: "ada" }))).firstName, "Grace");
});
