/** Taking delegations back on a migrated temp store: one scope, or a did's whole set at once, through the admin handlers too. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { DatabaseSync } from "node:sqlite";
import { ManualClock } from "../../shared/clock.ts";
import { generateKeyPair } from "../../shared/identity/key-pair.ts";
import { migrate } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { adminHandlers } from "./admin-ops.ts";
import { MAX_SCOPES_PER_SET, setDelegations, undelegate } from "./delegations.ts";
import { createTenant, delegate, rolesOf } from "./tenants.ts";

const NOW = Date.parse("2026-11-21T10:00:00Z");
const ada = generateKeyPair().did;
const cy = generateKeyPair().did;
const dee = generateKeyPair().did;

let dir: string;
let db: DatabaseSync;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "charter-delegations-"));
  db = openDatabase(join(dir, "charter.db"));
  migrate(db);
  const created = await createTenant(db, { handle: "acme", owners: [ada], by: null, keysDir: join(dir, "keys"), now: NOW });
  assert.ok(created.ok);
});
after(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const code = (r: { ok: boolean; error?: { code: string } }) => (r.ok ? "ok" : r.error?.code);
const scopesOf = (did: string, at = NOW) => [...rolesOf(db, "acme", did, at).scopes].sort();
const rows = () => db.prepare("SELECT did, scope, until FROM delegations ORDER BY did, scope").all();

describe("undelegate", () => {
  it("takes one scope back and leaves the did's others; says whether anything was held", () => {
    assert.ok(delegate(db, { tenant: "acme", did: cy, scope: "shipping", now: NOW }).ok);
    assert.ok(delegate(db, { tenant: "acme", did: cy, scope: "billing", now: NOW }).ok);
    assert.deepEqual(undelegate(db, { tenant: "acme", did: cy, scope: "shipping" }), { ok: true, value: { removed: true } });
    assert.deepEqual(scopesOf(cy), ["billing"]);
    assert.deepEqual(undelegate(db, { tenant: "acme", did: cy, scope: "shipping" }), { ok: true, value: { removed: false } });
  });

  it("names unknown tenants, bad dids and bad scopes by code, changing nothing", () => {
    const before = rows();
    assert.equal(code(undelegate(db, { tenant: "nobody", did: cy, scope: "billing" })), "unknown_tenant");
    assert.equal(code(undelegate(db, { tenant: "acme", did: "did:web:example.com", scope: "billing" })), "bad_did");
    assert.equal(code(undelegate(db, { tenant: "acme", did: cy, scope: "two words" })), "bad_scope");
    assert.deepEqual(rows(), before);
  });
});

describe("setDelegations", () => {
  it("grants the missing scopes, renews the kept ones with the new end, revokes the others", () => {
    assert.ok(delegate(db, { tenant: "acme", did: dee, scope: "old", now: NOW }).ok);
    assert.ok(delegate(db, { tenant: "acme", did: dee, scope: "kept", until: "2027-01-01", now: NOW }).ok);
    const set = setDelegations(db, { tenant: "acme", did: dee, scopes: ["kept", "new", "new"], until: "2028-01-01", now: NOW });
    assert.deepEqual(set, {
      ok: true,
      value: [
        { did: dee, scope: "kept", until: "2028-01-01T00:00:00.000Z" },
        { did: dee, scope: "new", until: "2028-01-01T00:00:00.000Z" },
      ],
    });
    assert.deepEqual(scopesOf(dee), ["kept", "new"]);
    assert.deepEqual(scopesOf(cy), ["billing"], "another did's delegations stay");
  });

  it("an empty list revokes every scope of the did; no end when until is absent", () => {
    assert.deepEqual(setDelegations(db, { tenant: "acme", did: dee, scopes: [], now: NOW }), { ok: true, value: [] });
    assert.deepEqual(scopesOf(dee), []);
    assert.deepEqual(setDelegations(db, { tenant: "acme", did: dee, scopes: ["x"], now: NOW }), { ok: true, value: [{ did: dee, scope: "x", until: null }] });
  });

  it("changes nothing when any part is wrong", () => {
    const before = rows();
    assert.equal(code(setDelegations(db, { tenant: "acme", did: dee, scopes: ["fine", "not fine"], now: NOW })), "bad_scope");
    assert.equal(code(setDelegations(db, { tenant: "acme", did: dee, scopes: ["fine"], until: "2020-01-01", now: NOW })), "bad_until");
    assert.equal(code(setDelegations(db, { tenant: "acme", did: dee, scopes: ["fine"], until: "soon", now: NOW })), "bad_until");
    assert.equal(code(setDelegations(db, { tenant: "acme", did: "did:key:z6Mk", scopes: [], now: NOW })), "bad_did");
    assert.equal(code(setDelegations(db, { tenant: "nobody", did: dee, scopes: [], now: NOW })), "unknown_tenant");
    const many = Array.from({ length: MAX_SCOPES_PER_SET + 1 }, (_, i) => `s${i}`);
    assert.equal(code(setDelegations(db, { tenant: "acme", did: dee, scopes: many, now: NOW })), "bad_scope");
    assert.equal(code(setDelegations(db, { tenant: "acme", did: dee, scopes: "x" as unknown as string[], now: NOW })), "bad_scope");
    assert.deepEqual(rows(), before);
  });
});

describe("the admin handlers", () => {
  it("serve tenant-undelegate and tenant-delegations-set, and tenant-describe shows the result", async () => {
    const handlers = adminHandlers({ db, keysDir: join(dir, "keys"), clock: new ManualClock(NOW) });
    const set = await handlers["tenant-delegations-set"]({ tenant: "acme", did: cy, scopes: ["a", "b"] });
    assert.equal(code(set), "ok");
    assert.deepEqual(await handlers["tenant-undelegate"]({ tenant: "acme", did: cy, scope: "a" }), { ok: true, value: { removed: true } });
    const described = await handlers["tenant-describe"]({ tenant: "acme" });
    assert.ok(described.ok);
    assert.deepEqual(
      described.value.delegations.filter((d) => d.did === cy),
      [{ did: cy, scope: "b", until: null }],
    );
  });
});
