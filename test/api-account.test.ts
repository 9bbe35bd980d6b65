/**
 * The account ceremonies over HTTP on a real `charter node`, end to end with a software
 * authenticator: creating the account (the printed set-up code, once), signing in, stepping up,
 * sessions, passkeys, recovery codes, pairing a device.
 */
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { type Charter, cleanup, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";
import { ApiClient, cookieFrom, createAccount, printedSetupCode, sessionCookieOf, signIn, stepUp } from "./helpers/api-client.ts";
import { runCharter } from "./helpers/run-charter.ts";
import { SoftAuthenticator } from "./helpers/soft-authenticator.ts";
import { readKek } from "../workers/gateway/api/identity/kek.ts";
import { openPersonKey } from "../workers/gateway/api/identity/person-key.ts";
import { sealOf } from "../workers/gateway/api/seal.ts";

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe("the account over HTTP", () => {
  let node: Charter;
  let api: ApiClient;
  let auth: SoftAuthenticator;
  let cookie = "";
  let recoveryCodes: string[] = [];

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
  });
  after(async () => {
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("a node not set up says so, and `charter account setup-code` prints the code it printed", async () => {
    assert.deepEqual((await api.call("GET", "/api/account")).body, { setUp: false, signedIn: false, firstName: null, seal: null });
    const run = await runCharter(["account", "setup-code", "--data", node.dataDir]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `set-up code: ${printedSetupCode(node)}\n`);
  });

  it("creating the account needs the printed set-up code (403 bad-setup-code) and known fields only", async () => {
    const wrong = await api.call("POST", "/api/account/create/begin", { body: { firstName: "Mallory", setupCode: "2222-2222" } });
    assert.deepEqual([wrong.status, wrong.body.code], [403, "bad-setup-code"]);
    const extra = await api.call("POST", "/api/account/create/begin", { body: { firstName: "Ada", setupCode: printedSetupCode(node), admin: true } });
    assert.deepEqual([extra.status, extra.body.code], [400, "malformed-body"]);
    assert.match(extra.body.detail, /unknown field: "admin"/);
    const noTicket = await api.call("POST", "/api/account/create/finish");
    assert.deepEqual([noTicket.status, noTicket.body.code], [400, "bad-challenge"]);
  });

  it("creates the account: the person's identity sealed at rest, ten recovery codes, a session, the node's seal", async () => {
    const created = await createAccount(api, printedSetupCode(node).toLowerCase());
    auth = created.auth;
    cookie = created.cookie;
    recoveryCodes = created.finish.body.recoveryCodes;
    assert.equal(recoveryCodes.length, 10);
    const nodeDid = ((await (await fetch(`${node.url}/.well-known/charter.json`)).json()) as { identity: string }).identity;
    assert.deepEqual(created.finish.body.account, { setUp: true, signedIn: true, firstName: "Ada", seal: sealOf(nodeDid) });
    assert.match(sealOf(nodeDid), /^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
    assert.deepEqual((await api.call("GET", "/api/account", { cookie })).body, created.finish.body.account);

    for (const file of ["accounts.db", join("keys", "account-kek")]) assert.equal(statSync(join(node.dataDir, file)).mode & 0o777, 0o600, file);
    const db = new DatabaseSync(join(node.dataDir, "accounts.db"), { readOnly: true });
    try {
      const did = (db.prepare("SELECT did FROM account").get() as { did: string }).did;
      assert.match(did, /^did:key:z6Mk/);
      const kek = readKek(join(node.dataDir, "keys", "account-kek"));
      assert.ok(kek !== null);
      const pair = openPersonKey({ db, kek: () => kek });
      assert.equal(pair?.did, did, "the sealed key opens to the person's did");
      const sealed = db.prepare("SELECT sealed_key FROM account_identity").get() as { sealed_key: Uint8Array };
      assert.ok(!Buffer.from(sealed.sealed_key).includes(Buffer.from(pair!.secretKey.subarray(0, 32)).toString("base64url")), "no plain key at rest");
    } finally {
      db.close();
    }

    const again = await api.call("POST", "/api/account/create/begin", { body: { firstName: "Mallory", setupCode: printedSetupCode(node) } });
    assert.deepEqual([again.status, again.body.code], [409, "already-set-up"]);
    const run = await runCharter(["account", "setup-code", "--data", node.dataDir]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /set up already/);
  });

  it("signs in with the passkey; a wrong origin, a stale counter or an unknown passkey is 401", async () => {
    const second = await signIn(api, auth);
    assert.notEqual(second, cookie);
    // The stale counter first: it repeats the counter of the sign-in just made.
    for (const [origin, knobs] of [[api.origin, { staleCounter: true }], ["http://evil.example", {}], [api.origin, { unknownCredential: true }]] as const) {
      const begin = await api.call("POST", "/api/account/signin/begin");
      const finish = await api.call("POST", "/api/account/signin/finish", { body: { response: auth.get(begin.body.options, origin, knobs) } });
      assert.deepEqual([finish.status, finish.body.code], [401, "unauthenticated"], `${origin} ${JSON.stringify(knobs)}`);
      assert.equal(cookieFrom(finish.setCookies, "charter_session"), null);
    }
    const begin = await api.call("POST", "/api/account/signin/begin");
    const response = auth.get(begin.body.options, api.origin);
    assert.equal((await api.call("POST", "/api/account/signin/finish", { body: { response } })).status, 200);
    const replay = await api.call("POST", "/api/account/signin/finish", { body: { response } });
    assert.deepEqual([replay.status, replay.body.code], [400, "bad-challenge"]);
  });

  it("steps up for five minutes, for this session only", async () => {
    const until = await stepUp(api, auth, cookie);
    assert.match(until, RFC3339);
    const ahead = Date.parse(until) - Date.now();
    assert.ok(ahead > 4 * 60_000 && ahead <= 5 * 60_000, `${ahead} ms`);
    const sessions = await api.call("GET", "/api/account/sessions", { cookie });
    const current = sessions.body.items.find((s: { current: boolean }) => s.current);
    assert.equal(current.steppedUpUntil, until);
  });

  it("lists sessions; ending another one needs a step-up, and its cookie then opens nothing", async () => {
    const other = await signIn(api, auth);
    const list = await api.call("GET", "/api/account/sessions", { cookie: other });
    assert.equal(list.status, 200);
    assert.equal(list.body.next, null);
    for (const s of list.body.items) {
      assert.deepEqual(Object.keys(s).sort(), ["createdAt", "current", "id", "lastSeenAt", "scope", "steppedUpUntil", "userAgent"]);
      assert.match(s.createdAt, RFC3339);
      assert.match(s.lastSeenAt, RFC3339);
    }
    assert.equal(list.body.items.filter((s: { current: boolean }) => s.current).length, 1);
    const mine = list.body.items.find((s: { current: boolean }) => s.current).id as string;
    const target = list.body.items.find((s: { current: boolean }) => !s.current).id as string;

    const refused = await api.call("POST", `/api/account/sessions/${target}/end`, { cookie: other });
    assert.deepEqual([refused.status, refused.body.code], [403, "step-up-required"]);
    const victim = await signIn(api, auth);
    const victimId = (await api.call("GET", "/api/account/sessions", { cookie: victim })).body.items.find((s: { current: boolean }) => s.current).id as string;
    await stepUp(api, auth, other);
    assert.equal((await api.call("POST", `/api/account/sessions/${victimId}/end`, { cookie: other })).status, 204);
    assert.equal((await api.call("GET", "/api/account/sessions", { cookie: victim })).status, 401);
    const missing = await api.call("POST", `/api/account/sessions/${victimId}/end`, { cookie: other });
    assert.deepEqual([missing.status, missing.body.code], [404, "not-found"]);
    const own = await api.call("POST", `/api/account/sessions/${mine}/end`, { cookie: other });
    assert.equal(own.status, 204, "ending one's own session needs no step-up");
    assert.match(own.setCookies.join("\n"), /^charter_session=;/m);
    assert.equal((await api.call("GET", "/api/account/sessions", { cookie: other })).status, 401);
  });

  it("adds a passkey (step-up), lists and removes it; the last one stays (409 last-passkey)", async () => {
    const fresh = await signIn(api, auth);
    const refused = await api.call("POST", "/api/account/passkey/begin", { cookie: fresh });
    assert.deepEqual([refused.status, refused.body.code], [403, "step-up-required"]);
    await stepUp(api, auth, fresh);
    const laptop = new SoftAuthenticator();
    const begin = await api.call("POST", "/api/account/passkey/begin", { cookie: fresh });
    assert.equal(begin.status, 200);
    const added = await api.call("POST", "/api/account/passkey/finish", { cookie: fresh, body: { response: laptop.create(begin.body.options, api.origin), label: "laptop" } });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal(added.body.label, "laptop");
    assert.match(added.body.createdAt, RFC3339);
    const list = await api.call("GET", "/api/account/passkey", { cookie: fresh });
    assert.deepEqual(list.body.items.map((p: { label: string }) => p.label), ["first passkey", "laptop"]);
    assert.ok(list.body.items.every((p: object) => !("publicKey" in p)), "never the key");
    await signIn(api, laptop);

    assert.equal((await api.call("DELETE", `/api/account/passkey/${encodeURIComponent(added.body.id)}`, { cookie: fresh })).status, 204);
    const last = list.body.items[0].id as string;
    const kept = await api.call("DELETE", `/api/account/passkey/${encodeURIComponent(last)}`, { cookie: fresh });
    assert.deepEqual([kept.status, kept.body.code], [409, "last-passkey"]);
    const gone = await api.call("DELETE", "/api/account/passkey/no-such-passkey", { cookie: fresh });
    assert.deepEqual([gone.status, gone.body.code], [404, "not-found"]);
  });

  it("reads and changes the sign-in settings; out of range is 400 bad-settings", async () => {
    const fresh = await signIn(api, auth);
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone; // the node's, until the person chooses one
    assert.deepEqual((await api.call("GET", "/api/account/settings", { cookie: fresh })).body, { signInRequired: true, sessionDays: 30, idleDays: 7, timeZone, loopback: true });
    const changed = await api.call("PUT", "/api/account/settings", { cookie: fresh, body: { sessionDays: 14, idleDays: 3 } });
    assert.deepEqual(changed.body, { signInRequired: true, sessionDays: 14, idleDays: 3, timeZone, loopback: true });
    const bad = await api.call("PUT", "/api/account/settings", { cookie: fresh, body: { idleDays: 30 } });
    assert.deepEqual([bad.status, bad.body.code], [400, "bad-settings"]);
    assert.deepEqual(bad.body.errors, [{ pointer: "#/idleDays", detail: "a whole number of days from 1 to sessionDays (14)" }], "the wrong field is named, over HTTP too");
    const off = await api.call("PUT", "/api/account/settings", { cookie: fresh, body: { signInRequired: false } });
    assert.deepEqual([off.status, off.body.code], [403, "step-up-required"]);
  });

  it("a recovery code signs in once, only to add a passkey; used again it is 403; regenerating needs a step-up", async () => {
    const fresh = await signIn(api, auth);
    const status = await api.call("GET", "/api/account/recovery", { cookie: fresh });
    assert.equal(status.body.codesLeft, 10);
    assert.match(status.body.createdAt, RFC3339);

    const code = recoveryCodes[0] as string;
    const used = await api.call("POST", "/api/account/recovery/use", { body: { code } });
    assert.equal(used.status, 200, JSON.stringify(used.body));
    assert.equal(used.body.scope, "recovery");
    assert.equal(used.body.account.signedIn, true);
    const limited = sessionCookieOf(used);
    for (const [method, path] of [["GET", "/api/account/sessions"], ["POST", "/api/account/stepup/begin"], ["POST", "/api/pair/code"], ["GET", "/api/tasks"]] as const) {
      const answer = await api.call(method, path, { cookie: limited });
      assert.deepEqual([answer.status, answer.body.code], [403, "limited-session"], `${method} ${path}`);
    }
    assert.equal((await api.call("GET", "/api/account", { cookie: limited })).body.signedIn, true);
    const phone = new SoftAuthenticator();
    const begin = await api.call("POST", "/api/account/passkey/begin", { cookie: limited });
    assert.equal(begin.status, 200, JSON.stringify(begin.body));
    const added = await api.call("POST", "/api/account/passkey/finish", { cookie: limited, body: { response: phone.create(begin.body.options, api.origin) } });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.match(added.setCookies.join("\n"), /^charter_session=;/m, "the recovery sign-in ends once the passkey is added");
    assert.equal((await api.call("GET", "/api/account", { cookie: limited })).body.signedIn, false);
    await signIn(api, phone);

    const again = await api.call("POST", "/api/account/recovery/use", { body: { code } });
    assert.deepEqual([again.status, again.body.code], [403, "bad-recovery-code"]);
    assert.equal((await api.call("GET", "/api/account/recovery", { cookie: fresh })).body.codesLeft, 9);

    const refused = await api.call("POST", "/api/account/recovery/regenerate", { cookie: fresh });
    assert.deepEqual([refused.status, refused.body.code], [403, "step-up-required"]);
    await stepUp(api, auth, fresh);
    const renewed = await api.call("POST", "/api/account/recovery/regenerate", { cookie: fresh });
    assert.equal(renewed.status, 200);
    assert.equal(renewed.body.recoveryCodes.length, 10);
    assert.equal((await api.call("GET", "/api/account/recovery", { cookie: fresh })).body.codesLeft, 10);
    const old = await api.call("POST", "/api/account/recovery/use", { body: { code: recoveryCodes[1] } });
    assert.deepEqual([old.status, old.body.code], [403, "bad-recovery-code"], "the old codes stop working");
  });

  it("pairs a device: a code from a stepped-up session, then begin and finish on the new device sign it in", async () => {
    const fresh = await signIn(api, auth);
    const refused = await api.call("POST", "/api/pair/code", { cookie: fresh });
    assert.deepEqual([refused.status, refused.body.code], [403, "step-up-required"]);
    await stepUp(api, auth, fresh);
    const issued = await api.call("POST", "/api/pair/code", { cookie: fresh });
    assert.equal(issued.status, 201);
    assert.match(issued.body.code, /^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
    const ahead = Date.parse(issued.body.expiresAt) - Date.now();
    assert.ok(ahead > 9 * 60_000 && ahead <= 10 * 60_000, `${ahead} ms`);

    const tablet = new SoftAuthenticator();
    const begin = await api.call("POST", "/api/pair/begin", { body: { code: issued.body.code } });
    assert.equal(begin.status, 200, JSON.stringify(begin.body));
    const finish = await api.call("POST", "/api/pair/finish", { body: { response: tablet.create(begin.body.options, api.origin), label: "tablet" } });
    assert.equal(finish.status, 200, JSON.stringify(finish.body));
    assert.equal(finish.body.account.signedIn, true);
    const paired = sessionCookieOf(finish);
    assert.equal((await api.call("GET", "/api/account/sessions", { cookie: paired })).status, 200);
    await signIn(api, tablet);

    const reused = await api.call("POST", "/api/pair/begin", { body: { code: issued.body.code } });
    assert.deepEqual([reused.status, reused.body.code], [403, "bad-pairing-code"]);
  });

  it("logs the refusals, and never a session token, a set-up code or a recovery code", async () => {
    const log = join(node.dataDir, "logs", "charter.log");
    // The last refusal above (a reused pairing code) reaches the log: the lines before it are there too.
    const text = await waitFor("the pairing refusal in the log", () => {
      const t = readFileSync(log, "utf8");
      return t.includes('"code":"bad-pairing-code"') ? t : undefined;
    });
    const token = cookie.slice(cookie.indexOf("=") + 1).split(";")[0] as string;
    assert.ok(token.length >= 40, cookie);
    for (const secret of [token, printedSetupCode(node), ...recoveryCodes]) assert.ok(!text.includes(secret), `the log holds ${secret.slice(0, 6)}…`);
  });
});

describe("charter account setup-code", () => {
  it("says so when the node has not created its account database yet", async () => {
    const dir = tempDataDir();
    try {
      const run = await runCharter(["account", "setup-code", "--data", dir]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /has not created .*accounts\.db/);
    } finally {
      cleanup(dir);
    }
  });
});

describe("a node that is set up", () => {
  it("prints no set-up code when it starts again, and keeps its account", async () => {
    const first = await startCharter({ edition: "node" });
    const api = new ApiClient(first);
    const { auth } = await createAccount(api, printedSetupCode(first));
    await stopCharter(first);
    const second = await startCharter({ edition: "node", dataDir: first.dataDir });
    try {
      assert.doesNotMatch(second.stdout, /set-up code/);
      assert.match(second.stdout, /^open http:\/\/localhost:\d+\/$/m);
      const again = new ApiClient(second);
      await signIn(again, auth);
    } finally {
      await stopCharter(second);
      cleanup(first.dataDir);
    }
  });
});
