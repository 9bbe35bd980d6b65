/** Tenants on a migrated temp store: creation and identity, roles, delegations, rolesOf, the views. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { DatabaseSync } from "node:sqlite";
import { artifactWire } from "../../contracts/artifact-wire.ts";
import { compileContract } from "../../contracts/compile.ts";
import { ManualClock } from "../../shared/clock.ts";
import { loadKeyFile, saveKeyFile } from "../../shared/identity/key-file.ts";
import { generateKeyPair } from "../../shared/identity/key-pair.ts";
import { migrate } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { adminHandlers } from "./admin-ops.ts";
import { describeTenant, listContracts, listTenants } from "./tenant-views.ts";
import { addRole, createTenant, delegate, parseUntil, removeRole, rolesOf, tenantKeyPath } from "./tenants.ts";

const NOW = Date.parse("2026-11-21T10:00:00Z");
const ada = generateKeyPair().did;
const bob = generateKeyPair().did;
const cy = generateKeyPair().did;

let dir: string;
let db: DatabaseSync;
let keysDir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "charter-tenants-"));
  keysDir = join(dir, "keys");
  db = openDatabase(join(dir, "charter.db"));
  migrate(db);
});
after(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const create = (handle: string, owners: string[] = [ada]) => createTenant(db, { handle, owners, by: null, keysDir, now: NOW });
const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? "ok" : r.error?.code);

describe("createTenant", () => {
  it("gives the tenant its own identity, its private key in keys/tenant-<handle>.jwk mode 0600", async () => {
    const r = await create("acme");
    assert.ok(r.ok);
    const key = await loadKeyFile(tenantKeyPath(keysDir, "acme"));
    assert.ok(key.ok);
    assert.equal(key.value.did, r.value.did);
    assert.equal(statSync(tenantKeyPath(keysDir, "acme")).mode & 0o777, 0o600);
    assert.equal(statSync(keysDir).mode & 0o777, 0o700);
    assert.notEqual(r.value.did, ada);
  });

  it("refuses a handle that exists, with the stable code tenant_exists", async () => {
    assert.equal(code(await create("acme", [bob])), "tenant_exists");
  });

  it("accepts handles of 2–63 characters of a–z, 0–9 and '-' only", async () => {
    for (const bad of ["a", "x".repeat(64), "Acme", "ac_me", "ac me", "é-corp", ""]) assert.equal(code(await create(bad)), "bad_handle", bad);
    for (const good of ["ab", "x".repeat(63), "0-9"]) assert.equal(code(await create(good)), "ok", good);
  });

  it("needs at least one owner, each an Ed25519 did:key", async () => {
    assert.equal(code(await create("lonely", [])), "owner_required");
    assert.equal(code(await create("lonely", ["did:key:nope"])), "bad_did");
    assert.equal(code(await create("lonely", [ada, "ada"])), "bad_did");
    assert.equal(describeTenant(db, "lonely").ok, false, "nothing was created");
  });

  it("reuses a key file left by a create that never committed, so the identity is stable", async () => {
    const left = generateKeyPair();
    assert.ok((await saveKeyFile(tenantKeyPath(keysDir, "globex"), left)).ok);
    const r = await create("globex", [ada, ada]);
    assert.ok(r.ok);
    assert.equal(r.value.did, left.did);
    const described = describeTenant(db, "globex");
    assert.ok(described.ok);
    assert.deepEqual(described.value.owners, [ada], "a repeated owner is recorded once");
  });
});

describe("roles", () => {
  it("adds and removes members and owners, saying whether anything changed", () => {
    assert.deepEqual(addRole(db, "acme", bob, "member", NOW), { ok: true, value: { added: true } });
    assert.deepEqual(addRole(db, "acme", bob, "member", NOW), { ok: true, value: { added: false } });
    assert.deepEqual(addRole(db, "acme", cy, "owner", NOW), { ok: true, value: { added: true } });
    assert.deepEqual(removeRole(db, "acme", cy, "owner"), { ok: true, value: { removed: true } });
    assert.deepEqual(removeRole(db, "acme", cy, "owner"), { ok: true, value: { removed: false } });
  });

  it("never removes the last owner", () => {
    assert.equal(code(removeRole(db, "acme", ada, "owner")), "last_owner");
    assert.ok(rolesOf(db, "acme", ada, NOW).owner);
  });

  it("names unknown tenants, bad handles and bad dids by code", () => {
    assert.equal(code(addRole(db, "nobody", bob, "member", NOW)), "unknown_tenant");
    assert.equal(code(addRole(db, "NOBODY", bob, "member", NOW)), "bad_handle");
    assert.equal(code(addRole(db, "acme", "did:web:example.com", "member", NOW)), "bad_did");
  });
});

describe("delegations and rolesOf", () => {
  it("parses --until as midnight UTC or an RFC 3339 instant", () => {
    assert.equal(parseUntil("2027-01-01"), Date.parse("2027-01-01T00:00:00Z"));
    assert.equal(parseUntil("2027-01-01T12:00:00+01:00"), Date.parse("2027-01-01T11:00:00Z"));
    assert.equal(parseUntil("2027-02-30"), null);
    assert.equal(parseUntil("tomorrow"), null);
  });

  it("grants, renews and refuses bad scopes or past ends", () => {
    assert.deepEqual(delegate(db, { tenant: "acme", did: cy, scope: "shipping", until: "2027-01-01", now: NOW }), {
      ok: true,
      value: { did: cy, scope: "shipping", until: "2027-01-01T00:00:00.000Z" },
    });
    assert.equal(code(delegate(db, { tenant: "acme", did: cy, scope: "two words", now: NOW })), "bad_scope");
    assert.equal(code(delegate(db, { tenant: "acme", did: cy, scope: "x", until: "2026-01-01", now: NOW })), "bad_until");
    assert.equal(code(delegate(db, { tenant: "acme", did: cy, scope: "x", until: "soon", now: NOW })), "bad_until");
    assert.ok(delegate(db, { tenant: "acme", did: cy, scope: "billing", now: NOW }).ok);
  });

  it("answers what a did is to a tenant; owners are members; expired delegations do not count", () => {
    assert.deepEqual(rolesOf(db, "acme", ada, NOW), { known: true, owner: true, member: true, scopes: [] });
    assert.deepEqual(rolesOf(db, "acme", bob, NOW), { known: true, owner: false, member: true, scopes: [] });
    assert.deepEqual({ ...rolesOf(db, "acme", cy, NOW), scopes: [...rolesOf(db, "acme", cy, NOW).scopes].sort() }, { known: true, owner: false, member: false, scopes: ["billing", "shipping"] });
    const later = Date.parse("2027-01-01T00:00:00Z");
    assert.deepEqual(rolesOf(db, "acme", cy, later).scopes, ["billing"], "shipping ended at 2027-01-01T00:00Z");
    assert.deepEqual(rolesOf(db, "acme", generateKeyPair().did, NOW), { known: false, owner: false, member: false, scopes: [] });
    assert.equal(rolesOf(db, "nobody", ada, NOW).known, false);
  });
});

describe("views", () => {
  it("describes a tenant: identity, owners, members, delegations, namespaces", async () => {
    const handlers = adminHandlers({ db, keysDir, clock: new ManualClock(NOW) });
    const shipping = readFileSync(new URL("../../contracts/examples/shipping.charter.md", import.meta.url), "utf8");
    const compiled = compileContract(shipping);
    assert.ok(compiled.artifact);
    const installed = await handlers.install({ tenant: "acme", artifact: artifactWire(compiled.artifact, shipping), by: ada });
    assert.deepEqual(installed, { ok: true, value: { artifact: compiled.artifact.id, namespace: "acme.shipping", version: compiled.artifact.schema.version, unchanged: false, migrated: 0, replaced: null } });

    const r = describeTenant(db, "acme");
    assert.ok(r.ok);
    assert.equal(r.value.handle, "acme");
    assert.deepEqual(r.value.owners, [ada]);
    assert.deepEqual(r.value.members, [bob]);
    assert.deepEqual(
      r.value.delegations.map((d) => [d.scope, d.until]),
      [
        ["billing", null],
        ["shipping", "2027-01-01T00:00:00.000Z"],
      ],
    );
    // Every tenant also has the standard library (std.*) from its creation.
    assert.deepEqual(r.value.namespaces.filter((n) => !n.namespace.startsWith("std.")), [
      { namespace: "acme.shipping", version: compiled.artifact.schema.version, artifact: compiled.artifact.id, status: "active", installedAt: new Date(NOW).toISOString(), installedBy: ada },
    ]);
    assert.equal(code(describeTenant(db, "nobody")), "unknown_tenant");
  });

  it("lists tenants with counts, and installed contracts per tenant or all", () => {
    const acme = listTenants(db).find((t) => t.handle === "acme");
    assert.deepEqual({ ...acme, did: "" }, { handle: "acme", did: "", owners: 1, members: 1, namespaces: 2 });
    assert.deepEqual(listTenants(db).map((t) => t.handle), ["0-9", "ab", "acme", "globex", "x".repeat(63)]);
    const all = listContracts(db);
    assert.ok(all.ok);
    const own = (c: { namespace: string }) => !c.namespace.startsWith("std.");
    assert.deepEqual(all.value.filter(own).map((c) => [c.tenant, c.namespace, c.status]), [["acme", "acme.shipping", "active"]]);
    const none = listContracts(db, "globex");
    assert.ok(none.ok);
    assert.deepEqual(none.value.filter(own), []);
    assert.equal(code(listContracts(db, "nobody")), "unknown_tenant");
  });

  it("refuses an install the signer may not make, when asked to check", async () => {
    const handlers = adminHandlers({ db, keysDir, clock: new ManualClock(NOW) });
    const wire = { id: "art_x", schemaJson: "{}", wasm: "", source: "" };
    assert.equal(code(await handlers.install({ tenant: "acme", artifact: wire, by: bob, requireOwner: true })), "not_owner");
    assert.equal(code(await handlers.install({ tenant: "nobody", artifact: wire, by: ada })), "unknown_tenant");
    assert.equal(code(await handlers.install({ tenant: "acme", artifact: { ...wire, wasm: 3 } as never, by: ada })), "bad_artifact");
    assert.equal(code(await handlers.install({ tenant: "acme", artifact: wire, by: ada })), "artifact_mismatch");
  });
});
