/**
 * The tenant routes of `/v1` against a real started tree: `POST /v1/{tenant}/_install` with signed
 * envelopes (owner, non-owner, broken contract, bad JWS), and `GET /v1/{tenant}` with and without a
 * valid bearer token (`aud` = the tenant).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Channel } from "../shared/channel/channel.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { generateKeyPair, newInstallId, signBearer, signCommand, signInstall, type KeyPair } from "../shared/identity/index.ts";
import type { AdminRequests } from "../shared/protocol/admin.ts";
import { cleanup, startCharter, stopCharter, type Charter } from "./helpers/charter-process.ts";

const shipping = readFileSync(new URL("../contracts/examples/shipping.charter.md", import.meta.url), "utf8");
const ada = generateKeyPair(); // owner
const bob = generateKeyPair(); // member
const eve = generateKeyPair(); // a stranger

let node: Charter;
let admin: Channel<AdminRequests, Record<string, never>>;

before(async () => {
  node = await startCharter();
  admin = await connectChannel<AdminRequests, Record<string, never>>(join(node.dataDir, "admin.sock"));
  assert.ok((await admin.request("tenant-create", { handle: "acme", owners: [ada.did], by: null })).ok);
  assert.ok((await admin.request("tenant-member-add", { tenant: "acme", did: bob.did })).ok);
});
after(async () => {
  admin?.close();
  if (node !== undefined) {
    await stopCharter(node);
    cleanup(node.dataDir);
  }
});

async function call(method: string, path: string, init: { body?: string; type?: string; bearer?: string } = {}): Promise<{ status: number; type: string; body: any }> {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers["content-type"] = init.type ?? "application/json";
  if (init.bearer !== undefined) headers.authorization = `Bearer ${init.bearer}`;
  const r = await fetch(`${node.url}${path}`, { method, headers, body: init.body });
  const text = await r.text();
  return { status: r.status, type: r.headers.get("content-type") ?? "", body: text === "" ? null : JSON.parse(text) };
}

const envelope = (signer: KeyPair, source = shipping, tenant = "acme") => signInstall(signer, { tenant, source, issuedAt: new Date().toISOString(), id: newInstallId() });
const install = (jws: string, tenant = "acme") => call("POST", `/v1/${tenant}/_install`, { body: JSON.stringify({ install: jws }) });

function request(signer: KeyPair) {
  const payload = {
    tenant: "acme",
    namespace: "acme.shipping",
    action: "Request",
    subject: "order-1",
    args: { customer: "Ada", destination: "Oslo", units: 4, crates: 2, credit_terms: false },
    idempotencyKey: randomUUID(),
    issuedAt: new Date().toISOString(),
  };
  return call("POST", "/v1/acme/acme.shipping/actions/Request", { body: JSON.stringify({ command: signCommand(signer, payload) }) });
}

describe("POST /v1/{tenant}/_install", () => {
  it("refuses a signer who is not an owner with 403, and compiles nothing", async () => {
    const r = await install(envelope(bob));
    assert.equal(r.status, 403);
    assert.match(r.type, /^application\/problem\+json/);
    assert.equal(r.body.type, "urn:charter:problem:not-owner");
  });

  it("answers a broken contract with 422 and its diagnostics located by line and column", async () => {
    const r = await install(envelope(ada, shipping.replace("units > 0", 'units > "zero"')));
    assert.equal(r.status, 422);
    assert.match(r.type, /^application\/problem\+json/);
    assert.equal(r.body.errors.length, 1);
    assert.match(r.body.errors[0].message, /^type error: /);
    assert.deepEqual([r.body.errors[0].line, r.body.errors[0].column], [30, 7]);
  });

  it("answers 400 for a bad JWS, a bad body, a forged signature or another tenant's envelope", async () => {
    assert.equal((await install("not-a-jws")).status, 400);
    assert.equal((await call("POST", "/v1/acme/_install", { body: "{" })).status, 400);
    assert.equal((await call("POST", "/v1/acme/_install", { body: JSON.stringify({ source: shipping }) })).status, 400);
    const [h, p] = envelope(ada).split(".");
    const forged = `${h}.${p}.${envelope(eve).split(".")[2]}`;
    assert.equal((await install(forged)).status, 400);
    const elsewhere = await install(envelope(ada, shipping, "globex"));
    assert.equal(elsewhere.status, 400);
    assert.equal(elsewhere.body.code, "path-mismatch");
  });

  it("issue 16 #16: answers a tenant that does not exist as one the signer does not own (403), telling nothing", async () => {
    const missing = await install(envelope(ada, shipping, "nobody"), "nobody");
    assert.equal(missing.status, 403);
    assert.match(JSON.stringify(missing.body), /not an owner of 'nobody'/);
  });

  it("installs an owner's contract: {artifact, namespace, version}, and commands reach it at once", async () => {
    assert.equal((await request(ada)).status, 404, "nothing installed yet");
    const r = await install(envelope(ada));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body).sort(), ["artifact", "namespace", "version"]);
    assert.match(r.body.artifact, /^art_[0-9a-f]{64}$/);
    assert.equal(r.body.namespace, "acme.shipping");
    const listed = await admin.request("contracts-list", { tenant: "acme" });
    assert.ok(listed.ok);
    assert.deepEqual(
      // Every tenant also has the standard library (std.*) from its creation.
      listed.value.filter((c) => !c.namespace.startsWith("std.")).map((c) => [c.artifact, c.installedBy, c.status]),
      [[r.body.artifact, ada.did, "active"]],
    );
    assert.equal((await request(ada)).status, 200);
    const again = await install(envelope(ada));
    assert.deepEqual([again.status, again.body.artifact], [200, r.body.artifact], "installing the active artifact again changes nothing");
  });

  it("issue 16 #10: refuses a replayed install JWS with 409 install-replayed, so a retired namespace stays retired", async () => {
    const jws = envelope(ada);
    assert.equal((await install(jws)).status, 200);
    assert.ok((await admin.request("contract-retire", { tenant: "acme", namespace: "acme.shipping" })).ok);
    const replay = await install(jws);
    assert.equal(replay.status, 409, JSON.stringify(replay.body));
    assert.match(replay.type, /^application\/problem\+json/);
    assert.equal(replay.body.type, "urn:charter:problem:install-replayed");
    assert.equal((await request(ada)).status, 404, "the namespace is still retired");
    assert.ok((await admin.request("contract-restore", { tenant: "acme", namespace: "acme.shipping" })).ok);
  });
});

describe("GET /v1/{tenant}", () => {
  const token = (who: KeyPair, tenant = "acme", namespace?: string) => signBearer(who, { tenant, now: Date.now(), ...(namespace === undefined ? {} : { namespace }) });

  it("needs a bearer token for the tenant: 401 without, or for another audience", async () => {
    assert.equal((await call("GET", "/v1/acme")).status, 401);
    assert.equal((await call("GET", "/v1/acme", { bearer: "garbage" })).status, 401);
    assert.equal((await call("GET", "/v1/acme", { bearer: token(ada, "acme", "acme.shipping") })).status, 401);
    assert.equal((await call("GET", "/v1/acme", { bearer: token(ada, "globex") })).status, 401);
  });

  it("answers owners and members with the tenant's identity and installed namespaces", async () => {
    const described = await admin.request("tenant-describe", { tenant: "acme" });
    assert.ok(described.ok);
    for (const who of [ada, bob]) {
      const r = await call("GET", "/v1/acme", { bearer: token(who) });
      assert.equal(r.status, 200);
      assert.equal(r.body.handle, "acme");
      assert.equal(r.body.did, described.value.did);
      assert.deepEqual(r.body.namespaces, described.value.namespaces);
      assert.deepEqual(
        r.body.namespaces.map((n: { namespace: string; status: string }) => [n.namespace, n.status]),
        [["acme.shipping", "active"], ["std.invoices", "active"]],
      );
      assert.equal(r.body.owners, undefined, "who owns the tenant is not part of this answer");
    }
  });

  it("issue 16 #16: refuses anyone else with 403, and an unknown tenant the same way", async () => {
    assert.equal((await call("GET", "/v1/acme", { bearer: token(eve) })).status, 403);
    assert.equal((await call("GET", "/v1/nobody", { bearer: token(ada, "nobody") })).status, 403);
  });
});
