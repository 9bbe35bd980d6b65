/**
 * The person's identities on a real `charter node`: `/api/identities` drives the engine's tenants
 * (created owned by the person, its owners, members and delegations) and keeps kind and name in
 * `std.identities`; changes need a step-up, and without one nothing changes (the engine's
 * `tenant-describe` before and after); a delegation made here lets a did:key sign a delegated
 * action through `/v1`, and taking it back refuses the next; `PUT /api/scopes` sets a did's scopes
 * in one step; the vault exports public key material only, and rotates an identity's key (step-up):
 * a new did everywhere the identity shows, the old one retired, records still written there — the
 * personal identity's too; kind, name and the rotated key survive a restart.
 */
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { artifactWire } from "../contracts/artifact-wire.ts";
import { compileContract } from "../contracts/compile.ts";
import { base64urlDecode, didKeyFromPublicKey, generateKeyPair, type KeyPair, loadKeyFile } from "../shared/identity/index.ts";
import type { AdminRequests, TenantDescription } from "../shared/protocol/admin.ts";
import { dataPaths } from "../shared/worker/config.ts";
import { SocketLink } from "../shared/worker/socket-link.ts";
import { type Answer, ApiClient, createAccount, printedSetupCode, signIn, stepUp } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import { act } from "./helpers/client.ts";
import type { SoftAuthenticator } from "./helpers/soft-authenticator.ts";

/** A contract whose one action is delegated to the scope `shipping`. */
const DISPATCH = `# Dispatch

\`\`\`charter
namespace acme.dispatch
version 1.0.0

aggregate Parcel {
  public status: Enum(Waiting, Sent) = Waiting
  public sent_by: Identity

  action Send() api authenticated {
    authorize delegate shipping
    validate {
      state.status == Waiting
    }
    apply {
      state.status = Sent
      state.sent_by = context.signer
    }
  }
}
\`\`\`
`;

const INVOICE = { reference: "r-1", supplier: "Paper Ltd", number: "7", amount_minor: 900, currency: "EUR", issued_on: "2026-11-01", due_on: "2026-12-01", source: "mail", digest: "d1", note: "" };

describe("the person's identities", () => {
  let node: Charter;
  let api: ApiClient;
  let admin: SocketLink<AdminRequests>;
  let auth: SoftAuthenticator;
  /** The first session: stepped up once the step-up tests begin. */
  let cookie = "";
  /** A second session that never steps up. */
  let plain = "";
  let person = "";
  let personalDid = "";
  const bob = generateKeyPair();
  const carol = generateKeyPair();

  const describeTenant = async (tenant: string): Promise<TenantDescription> => {
    const r = await admin.request("tenant-describe", { tenant });
    assert.ok(r.ok, JSON.stringify(r));
    return r.value;
  };
  const post = (path: string, body: unknown, session = cookie): Promise<Answer> => api.call("POST", path, { cookie: session, body });
  const send = (who: KeyPair, subject: string) => act(node.url, who, { tenant: "ada-works", namespace: "acme.dispatch", action: "Send", subject });
  const expectProblem = (answer: Answer, status: number, code: string) => {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    assert.equal(answer.body.code, code, JSON.stringify(answer.body));
    assert.equal(answer.headers.get("content-type"), "application/problem+json");
  };

  before(async () => {
    node = await startCharter({ edition: "node" });
    api = new ApiClient(node);
    admin = new SocketLink<AdminRequests>(dataPaths(node.dataDir).adminSocket);
    const created = await createAccount(api, printedSetupCode(node));
    cookie = created.cookie;
    auth = created.auth;
    plain = await signIn(api, auth);
    const boot = await api.call("GET", "/api/bootstrap", { cookie });
    person = boot.body.person.did;
    personalDid = boot.body.tenant.did;
    await waitFor("std.identities in the personal tenant", async () => {
      const b = await api.call("GET", "/api/bootstrap", { cookie });
      return (b.body.tenant.contracts as { namespace: string }[]).some((c) => c.namespace === "std.identities") ? true : undefined;
    });
  });
  after(async () => {
    await admin.close();
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("GET /api/identities lists the personal identity, owned by the person", async () => {
    const list = await api.call("GET", "/api/identities", { cookie });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(list.body, { items: [{ handle: "ada", did: personalDid, kind: "personal", role: "owner" }], next: null });
  });

  it("POST /api/identities makes a business: a tenant owned and created by the person, its kind and name kept, its contracts the person's", async () => {
    const made = await post("/api/identities", { handle: "ada-works", kind: "business", name: "Ada Works" });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const { receipt, ...identity } = made.body;
    assert.match(identity.did, /^did:key:z6Mk/);
    assert.notEqual(identity.did, personalDid, "its own identity");
    assert.deepEqual(identity, { handle: "ada-works", did: identity.did, kind: "business", name: "Ada Works", role: "owner", createdAt: identity.createdAt, owners: [person], members: [], delegations: [], retiredDids: [] });
    assert.deepEqual([receipt.outcome, receipt.tenant, receipt.namespace, receipt.action, receipt.subject, receipt.signer], ["accepted", "ada", "std.identities", "Register", "ada-works", person]);

    const described = await describeTenant("ada-works");
    assert.deepEqual([described.did, described.owners, described.members], [identity.did, [person], []]);
    const db = new DatabaseSync(join(node.dataDir, "charter.db"), { readOnly: true });
    try {
      assert.equal((db.prepare("SELECT created_by FROM tenants WHERE handle = 'ada-works'").get() as { created_by: string }).created_by, person);
    } finally {
      db.close();
    }

    const household = await post("/api/identities", { handle: "ada-home", kind: "household" });
    assert.equal(household.status, 201, JSON.stringify(household.body));
    assert.equal(household.body.kind, "household");
    assert.equal("name" in household.body, false, "no name given, none shown");

    const shown = await api.call("GET", "/api/identities/ada-works", { cookie });
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    assert.deepEqual(shown.body, identity, "one identity read: as it was made");
    expectProblem(await api.call("GET", "/api/identities/nobody-here", { cookie }), 404, "not-found");

    const list = await api.call("GET", "/api/identities", { cookie });
    assert.deepEqual(
      list.body.items.map((i: { handle: string; kind: string; name?: string; role: string }) => [i.handle, i.kind, i.name ?? null, i.role]),
      [
        ["ada", "personal", null, "owner"],
        ["ada-home", "household", null, "owner"],
        ["ada-works", "business", "Ada Works", "owner"],
      ],
    );
    const page = await api.call("GET", "/api/identities?limit=2", { cookie });
    assert.equal(page.body.items.length, 2);
    const rest = await api.call("GET", `/api/identities?limit=2&after=${page.body.next}`, { cookie });
    assert.deepEqual([rest.body.items.map((i: { handle: string }) => i.handle), rest.body.next], [["ada-works"], null]);

    const acted = await post("/api/data/act", { tenant: "ada-works", namespace: "std.invoices", action: "Record", subject: "inv-1", args: INVOICE });
    assert.equal(acted.status, 200, JSON.stringify(acted.body));
    assert.deepEqual([acted.body.receipt.tenant, acted.body.receipt.signer, acted.body.receipt.outcome], ["ada-works", person, "accepted"]);
  });

  it("POST /api/identities refuses bad input and changes nothing: types 400, the engine's handle rules 400, taken 409, a name the contract refuses 422", async () => {
    const types = await post("/api/identities", { handle: 7, kind: "shop", name: false });
    expectProblem(types, 400, "malformed-body");
    assert.deepEqual(types.body.errors.map((e: { pointer: string }) => e.pointer), ["#/handle", "#/kind", "#/name"]);
    expectProblem(await post("/api/identities", { handle: "x-co", kind: "business", owner: person }), 400, "malformed-body");

    const handle = await post("/api/identities", { handle: "Not A Handle", kind: "business" });
    expectProblem(handle, 400, "malformed-body");
    assert.equal(handle.body.errors[0].pointer, "#/handle");
    assert.match(handle.body.detail, /is not a tenant handle: 2–63 characters/);

    expectProblem(await post("/api/identities", { handle: "ada", kind: "household" }), 409, "handle-taken");
    expectProblem(await post("/api/identities", { handle: "ada-works", kind: "business" }), 409, "handle-taken");

    const long = await post("/api/identities", { handle: "long-name", kind: "business", name: "x".repeat(201) });
    assert.equal(long.status, 422, JSON.stringify(long.body));
    assert.equal(long.body.receipt.outcome, "refused");
    assert.equal(long.body.receipt.reason.code, "text_too_long");
    const none = await admin.request("tenant-describe", { tenant: "long-name" });
    assert.deepEqual(none.ok ? null : none.error.code, "unknown_tenant", "no tenant was made");
    const list = await api.call("GET", "/api/identities", { cookie });
    assert.equal(list.body.items.length, 3);
  });

  it("without a step-up every change is 403 step-up-required and the engine's tenant is unchanged", async () => {
    const before = await describeTenant("ada-works");
    const personalBefore = await describeTenant("ada");
    expectProblem(await post("/api/identities/ada-works/owners", { did: bob.did }, plain), 403, "step-up-required");
    expectProblem(await post("/api/identities/ada-works/owners", { did: person, remove: true }, plain), 403, "step-up-required");
    expectProblem(await post("/api/identities/ada-works/members", { did: bob.did }, plain), 403, "step-up-required");
    expectProblem(await post("/api/identities/ada-works/delegations", { did: carol.did, scope: "shipping" }, plain), 403, "step-up-required");
    expectProblem(await post("/api/identities/ada-works/vault", { operation: "rotate" }, plain), 403, "step-up-required");
    expectProblem(await api.call("PUT", "/api/scopes", { cookie: plain, body: { did: carol.did, scopes: ["shipping"] } }), 403, "step-up-required");
    expectProblem(await api.call("PUT", "/api/scopes", { cookie: plain, body: { tenant: "ada-works", did: carol.did, scopes: ["shipping"] } }), 403, "step-up-required");
    assert.deepEqual(await describeTenant("ada-works"), before);
    assert.deepEqual(await describeTenant("ada"), personalBefore);
  });

  it("owners and members: added and taken away (step-up), answered with the identity described", async () => {
    await stepUp(api, auth, cookie);
    const member = await post("/api/identities/ada-works/members", { did: bob.did });
    assert.equal(member.status, 200, JSON.stringify(member.body));
    assert.deepEqual([member.body.handle, member.body.owners, member.body.members, member.body.kind, member.body.name], ["ada-works", [person], [bob.did], "business", "Ada Works"]);
    assert.deepEqual((await describeTenant("ada-works")).members, [bob.did]);
    const gone = await post("/api/identities/ada-works/members", { did: bob.did, remove: true });
    assert.deepEqual(gone.body.members, []);

    const owner = await post("/api/identities/ada-works/owners", { did: bob.did });
    assert.deepEqual(owner.body.owners, [person, bob.did]);
    assert.deepEqual((await describeTenant("ada-works")).owners, [person, bob.did]);
    const removed = await post("/api/identities/ada-works/owners", { did: bob.did, remove: true });
    assert.deepEqual(removed.body.owners, [person]);
    expectProblem(await post("/api/identities/ada-works/owners", { did: person, remove: true }), 409, "last-owner");

    // The person stays an owner of the personal identity, even with another owner beside them.
    assert.equal((await post("/api/identities/ada/owners", { did: bob.did })).status, 200);
    expectProblem(await post("/api/identities/ada/owners", { did: person, remove: true }), 409, "personal-owner");
    assert.deepEqual((await post("/api/identities/ada/owners", { did: bob.did, remove: true })).body.owners, [person]);
  });

  it("owners and members refuse a did that is no did:key (400), an unknown handle (404), an identity the person does not own (403)", async () => {
    const before = await describeTenant("ada-works");
    for (const did of ["did:web:example.com", "did:key:z6MkNope", ""]) {
      const answer = await post("/api/identities/ada-works/members", { did });
      expectProblem(answer, 400, "malformed-body");
      assert.equal(answer.body.errors[0].pointer, "#/did");
    }
    expectProblem(await post("/api/identities/ada-works/owners", { did: 42, remove: "yes" }), 400, "malformed-body");
    expectProblem(await post("/api/identities/nobody-here/owners", { did: bob.did }), 404, "not-found");
    expectProblem(await post("/api/identities/NOT_A_HANDLE/members", { did: bob.did }), 404, "not-found");
    assert.deepEqual(await describeTenant("ada-works"), before);

    // Someone else's tenant, where the person is only a member: listed, not theirs to change.
    const made = await admin.request("tenant-create", { handle: "bobs-shop", owners: [bob.did], by: null });
    assert.ok(made.ok);
    assert.ok((await admin.request("tenant-member-add", { tenant: "bobs-shop", did: person })).ok);
    const list = await api.call("GET", "/api/identities", { cookie });
    assert.deepEqual(
      list.body.items.find((i: { handle: string }) => i.handle === "bobs-shop"),
      { handle: "bobs-shop", did: made.value.did, kind: "business", role: "member" },
    );
    expectProblem(await post("/api/identities/bobs-shop/members", { did: carol.did }), 403, "not-owner");
    expectProblem(await post("/api/identities/bobs-shop/delegations", { did: carol.did, scope: "x" }), 403, "not-owner");
    expectProblem(await api.call("PUT", "/api/scopes", { cookie, body: { tenant: "bobs-shop", did: carol.did, scopes: ["x"] } }), 403, "not-owner");
    expectProblem(await post("/api/identities/bobs-shop/vault", { operation: "export" }), 403, "not-owner");
    expectProblem(await api.call("GET", "/api/identities/bobs-shop", { cookie }), 403, "not-owner");
    assert.deepEqual((await describeTenant("bobs-shop")).members, [person]);
  });

  it("a delegation made here lets a did:key sign a delegated action through /v1; taking it back refuses the next", async () => {
    const compiled = compileContract(DISPATCH);
    assert.ok(compiled.artifact !== undefined, JSON.stringify(compiled.diagnostics));
    const installed = await admin.request("install", { tenant: "ada-works", artifact: artifactWire(compiled.artifact, DISPATCH), by: person });
    assert.ok(installed.ok, JSON.stringify(installed));

    assert.equal((await send(carol, "p-1")).status, 403, "no delegation yet");
    const given = await post("/api/identities/ada-works/delegations", { did: carol.did, scope: "shipping", until: "2999-01-01" });
    assert.equal(given.status, 200, JSON.stringify(given.body));
    assert.deepEqual(given.body.delegations, [{ did: carol.did, scope: "shipping", until: "2999-01-01T00:00:00.000Z" }]);
    const sent = await send(carol, "p-1");
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepEqual([sent.body.receipt.outcome, sent.body.receipt.signer, sent.body.receipt.state.status], ["accepted", carol.did, "Sent"]);

    const taken = await post("/api/identities/ada-works/delegations", { did: carol.did, scope: "shipping", remove: true });
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    assert.deepEqual(taken.body.delegations, []);
    const refused = await send(carol, "p-2");
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.deepEqual((await describeTenant("ada-works")).delegations, []);
  });

  it("delegations refuse a bad scope or end (400 naming the field) and change nothing", async () => {
    const cases: [unknown, string][] = [
      [{ did: carol.did, scope: "two words" }, "#/scope"],
      [{ did: carol.did, scope: "shipping", until: "2020-01-01" }, "#/until"],
      [{ did: carol.did, scope: "shipping", until: "soon" }, "#/until"],
      [{ did: carol.did, scope: "shipping", until: "2999-01-01", remove: true }, "#/until"],
      [{ did: carol.did }, "#/scope"],
    ];
    for (const [body, pointer] of cases) {
      const answer = await post("/api/identities/ada-works/delegations", body);
      expectProblem(answer, 400, "malformed-body");
      assert.equal(answer.body.errors[0].pointer, pointer, JSON.stringify(answer.body));
    }
    assert.deepEqual((await describeTenant("ada-works")).delegations, []);
  });

  it("PUT /api/scopes sets exactly a did's scopes in one step; GET /api/scopes lists them", async () => {
    const set = await api.call("PUT", "/api/scopes", { cookie, body: { tenant: "ada-works", did: carol.did, scopes: ["shipping", "billing"], until: "2999-01-01" } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body, {
      tenant: "ada-works",
      did: carol.did,
      delegations: [
        { did: carol.did, scope: "billing", until: "2999-01-01T00:00:00.000Z" },
        { did: carol.did, scope: "shipping", until: "2999-01-01T00:00:00.000Z" },
      ],
    });
    assert.equal((await send(carol, "p-3")).status, 200);
    const listed = await api.call("GET", `/api/scopes?tenant=ada-works&did=${carol.did}`, { cookie });
    assert.deepEqual(listed.body, { items: set.body.delegations, next: null });

    const narrowed = await api.call("PUT", "/api/scopes", { cookie, body: { tenant: "ada-works", did: carol.did, scopes: ["billing"] } });
    assert.deepEqual(narrowed.body.delegations, [{ did: carol.did, scope: "billing", until: null }]);
    assert.equal((await send(carol, "p-4")).status, 403, "shipping was taken back");

    const bad = await api.call("PUT", "/api/scopes", { cookie, body: { tenant: "ada-works", did: carol.did, scopes: ["shipping", "not ok"] } });
    expectProblem(bad, 400, "malformed-body");
    assert.equal(bad.body.errors[0].pointer, "#/scopes");
    expectProblem(await api.call("PUT", "/api/scopes", { cookie, body: { tenant: "ada-works", did: carol.did, scopes: ["a", 3] } }), 400, "malformed-body");
    expectProblem(await api.call("PUT", "/api/scopes", { cookie, body: { tenant: "nobody-here", did: carol.did, scopes: [] } }), 404, "not-found");
    assert.deepEqual((await describeTenant("ada-works")).delegations, [{ did: carol.did, scope: "billing", until: null }], "nothing changed");

    const personal = await api.call("PUT", "/api/scopes", { cookie, body: { did: bob.did, scopes: ["calendar"] } });
    assert.equal(personal.status, 200, JSON.stringify(personal.body));
    assert.equal(personal.body.tenant, "ada");
    assert.deepEqual((await api.call("GET", "/api/scopes", { cookie })).body.items, [{ did: bob.did, scope: "calendar", until: null }]);
    assert.deepEqual((await api.call("PUT", "/api/scopes", { cookie, body: { did: bob.did, scopes: [] } })).body.delegations, []);
    expectProblem(await api.call("GET", "/api/scopes?did=did:web:x", { cookie }), 400, "bad-parameters");
  });

  it("the vault exports public key material only", async () => {
    const exported = await post("/api/identities/ada-works/vault", { operation: "export" });
    assert.equal(exported.status, 200, JSON.stringify(exported.body));
    const described = await describeTenant("ada-works");
    assert.deepEqual(exported.body, { handle: "ada-works", did: described.did, publicJwk: exported.body.publicJwk, createdAt: described.createdAt, retiredDids: [] });
    assert.deepEqual(Object.keys(exported.body.publicJwk).sort(), ["crv", "kty", "x"], "no private member");
    const publicKey = base64urlDecode(exported.body.publicJwk.x);
    assert.ok(publicKey !== null);
    assert.equal(didKeyFromPublicKey(publicKey), described.did, "the did is that public key");

    expectProblem(await post("/api/identities/ada-works/vault", { operation: "burn" }), 400, "malformed-body");
    expectProblem(await post("/api/identities/nobody-here/vault", { operation: "export" }), 404, "not-found");
    expectProblem(await post("/api/identities/nobody-here/vault", { operation: "rotate" }), 404, "not-found");
    assert.equal((await describeTenant("ada-works")).did, described.did);
  });

  /** The did the key file `name` of the node's data directory holds, after checking its mode. */
  const fileDid = async (name: string): Promise<string> => {
    const path = join(node.dataDir, "keys", name);
    assert.equal(statSync(path).mode & 0o777, 0o600, name);
    const key = await loadKeyFile(path);
    assert.ok(key.ok, JSON.stringify(key));
    return key.value.did;
  };
  let rotatedDid = "";

  it("rotate: 403 step-up-required without a step-up, nothing changed; with one, a new did:key everywhere the identity shows, the old one retired", async () => {
    const before = await describeTenant("ada-works");
    expectProblem(await post("/api/identities/ada-works/vault", { operation: "rotate" }, plain), 403, "step-up-required");
    assert.deepEqual(await describeTenant("ada-works"), before);
    assert.equal(await fileDid("tenant-ada-works.jwk"), before.did);

    await stepUp(api, auth, cookie);
    const rotated = await post("/api/identities/ada-works/vault", { operation: "rotate" });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.deepEqual(Object.keys(rotated.body).sort(), ["did", "handle", "previous", "publicJwk"]);
    assert.equal(rotated.body.handle, "ada-works");
    assert.match(rotated.body.did, /^did:key:z6Mk/);
    assert.notEqual(rotated.body.did, before.did);
    assert.equal(rotated.body.previous.did, before.did);
    assert.ok(Math.abs(Date.parse(rotated.body.previous.retiredAt) - Date.now()) < 60_000, rotated.body.previous.retiredAt);
    assert.equal(didKeyFromPublicKey(base64urlDecode(rotated.body.publicJwk.x) as Uint8Array), rotated.body.did, "the public key is the new did's");
    rotatedDid = rotated.body.did;

    const described = await describeTenant("ada-works");
    assert.deepEqual([described.did, described.retiredDids], [rotatedDid, [rotated.body.previous]]);
    assert.deepEqual([described.owners, described.delegations, described.namespaces], [before.owners, before.delegations, before.namespaces], "roles, delegations and contracts stay");
    assert.equal(await fileDid("tenant-ada-works.jwk"), rotatedDid);
    assert.equal(await fileDid("tenant-ada-works.retired-1.jwk"), before.did);

    const exported = await post("/api/identities/ada-works/vault", { operation: "export" });
    assert.equal(exported.status, 200, JSON.stringify(exported.body));
    assert.deepEqual([exported.body.did, exported.body.retiredDids, exported.body.publicJwk], [rotatedDid, [rotated.body.previous], rotated.body.publicJwk]);
    const list = await api.call("GET", "/api/identities", { cookie });
    assert.equal(list.body.items.find((i: { handle: string }) => i.handle === "ada-works").did, rotatedDid);
    const shown = await post("/api/identities/ada-works/members", { did: bob.did });
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    assert.deepEqual([shown.body.did, shown.body.retiredDids], [rotatedDid, [rotated.body.previous]]);
    assert.equal((await post("/api/identities/ada-works/members", { did: bob.did, remove: true })).status, 200);
  });

  it("after a rotation the person still writes records in that identity", async () => {
    const acted = await post("/api/data/act", { tenant: "ada-works", namespace: "std.invoices", action: "Record", subject: "inv-2", args: { ...INVOICE, reference: "r-2" } });
    assert.equal(acted.status, 200, JSON.stringify(acted.body));
    assert.deepEqual([acted.body.receipt.tenant, acted.body.receipt.signer, acted.body.receipt.outcome], ["ada-works", person, "accepted"]);
  });

  it("rotating the personal identity keeps the node working: bootstrap shows the new did and tasks are still created", async () => {
    const rotated = await post("/api/identities/ada/vault", { operation: "rotate" });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.equal(rotated.body.previous.did, personalDid);
    assert.notEqual(rotated.body.did, personalDid);
    assert.notEqual(rotated.body.did, person, "the person's own identity is another key, untouched");
    const boot = await api.call("GET", "/api/bootstrap", { cookie });
    assert.equal(boot.status, 200, JSON.stringify(boot.body));
    assert.deepEqual([boot.body.tenant.did, boot.body.person.did], [rotated.body.did, person]);
    const list = await api.call("GET", "/api/identities", { cookie });
    assert.deepEqual(list.body.items[0], { handle: "ada", did: rotated.body.did, kind: "personal", role: "owner" });

    const task = await api.call("POST", "/api/tasks", { cookie, body: { title: "Renew the domain" } });
    assert.equal(task.status, 201, JSON.stringify(task.body));
    assert.deepEqual([task.body.title, task.body.status, task.body.receipt.tenant, task.body.receipt.signer], ["Renew the domain", "open", "ada", person]);
    personalDid = rotated.body.did;
  });

  it("kind and name survive a restart (they are the person's records), and so do the rotated keys", async () => {
    await admin.close();
    await stopCharter(node);
    node = await startCharter({ edition: "node", dataDir: node.dataDir });
    api = new ApiClient(node);
    admin = new SocketLink<AdminRequests>(dataPaths(node.dataDir).adminSocket);
    cookie = await signIn(api, auth);
    const list = await api.call("GET", "/api/identities", { cookie });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(
      list.body.items.map((i: { handle: string; kind: string; name?: string }) => [i.handle, i.kind, i.name ?? null]),
      [
        ["ada", "personal", null],
        ["ada-home", "household", null],
        ["ada-works", "business", "Ada Works"],
        ["bobs-shop", "business", null],
      ],
    );
    // The rotated keys are the identities' after a restart too.
    assert.deepEqual(list.body.items.slice(0, 3).map((i: { did: string }) => i.did), [personalDid, (await describeTenant("ada-home")).did, rotatedDid]);
    assert.equal(await fileDid("tenant-ada-works.jwk"), rotatedDid);
    assert.equal(await fileDid("tenant-ada.jwk"), personalDid);
  });
});
