/**
 * Rotating a tenant's key on a migrated temp store: the did changes and the old one is retired (in
 * the store and as a key file, mode 0600), twice keeps both, unknown tenants are refused, the admin
 * operation logs it and runs rotations one at a time, a replicated entry applied again changes
 * nothing, a store from before the retired-dids table gains it, and a rotation a crash interrupted
 * is finished or undone when the store is next opened.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { DatabaseSync } from "node:sqlite";
import { ManualClock } from "../../shared/clock.ts";
import { loadKeyFile, saveKeyFile } from "../../shared/identity/key-file.ts";
import { generateKeyPair, type KeyPair } from "../../shared/identity/key-pair.ts";
import { createLogger, type LogRecord } from "../../shared/log.ts";
import { migrate, migrations } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { adminHandlers } from "./admin-ops.ts";
import { runAdminOffline } from "./offline-admin.ts";
import { nextKeyPath, retiredKeyPath, tenantKeyPath } from "./tenant-key-files.ts";
import { finishKeyRotations, rotateTenantKey } from "./tenant-key-rotate.ts";
import { describeTenant } from "./tenant-views.ts";
import { createTenant } from "./tenants.ts";

const NOW = Date.parse("2026-11-21T10:00:00Z");
const HOUR = 3_600_000;
const ada = generateKeyPair().did;

let dir: string;
let db: DatabaseSync;
let keysDir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "charter-rotate-"));
  keysDir = join(dir, "keys");
  db = openDatabase(join(dir, "charter.db"));
  migrate(db);
});
after(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function create(handle: string): Promise<string> {
  const made = await createTenant(db, { handle, owners: [ada], by: null, keysDir, now: NOW });
  assert.ok(made.ok, JSON.stringify(made));
  return made.value.did;
}

const didOf = (handle: string) => (db.prepare("SELECT did FROM tenants WHERE handle = ?").get(handle) as { did: string }).did;

async function keyDid(path: string): Promise<string> {
  const key = await loadKeyFile(path);
  assert.ok(key.ok, `${path}: ${JSON.stringify(key)}`);
  return key.value.did;
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe("rotateTenantKey", () => {
  it("gives the tenant a new did, its key in tenant-<h>.jwk, and keeps the old as retired (store and file, mode 0600)", async () => {
    const old = await create("acme");
    const r = await rotateTenantKey(db, { tenant: "acme", by: ada, keysDir, now: NOW + HOUR });
    assert.ok(r.ok, JSON.stringify(r));
    assert.match(r.value.did, /^did:key:z6Mk/);
    assert.notEqual(r.value.did, old);
    assert.deepEqual(r.value, { handle: "acme", did: r.value.did, previous: { did: old, retiredAt: new Date(NOW + HOUR).toISOString() } });

    assert.equal(didOf("acme"), r.value.did);
    assert.equal(await keyDid(tenantKeyPath(keysDir, "acme")), r.value.did);
    assert.equal(await keyDid(retiredKeyPath(keysDir, "acme", 1)), old);
    assert.equal(mode(tenantKeyPath(keysDir, "acme")), 0o600);
    assert.equal(mode(retiredKeyPath(keysDir, "acme", 1)), 0o600);
    assert.equal(existsSync(nextKeyPath(keysDir, "acme")), false, "no .next key is left");

    const row = db.prepare("SELECT did, created_at, retired_at, retired_by FROM tenant_retired_dids WHERE tenant = 'acme'").all();
    assert.deepEqual(row.map((x) => ({ ...x })), [{ did: old, created_at: NOW, retired_at: NOW + HOUR, retired_by: ada }]);
    const described = describeTenant(db, "acme");
    assert.ok(described.ok);
    assert.equal(described.value.did, r.value.did);
    assert.deepEqual(described.value.retiredDids, [{ did: old, retiredAt: new Date(NOW + HOUR).toISOString() }]);
  });

  it("rotating again keeps both retired keys, never overwriting the first; retiredDids lists them newest first", async () => {
    const once = describeTenant(db, "acme");
    assert.ok(once.ok);
    const first = once.value.retiredDids[0]?.did;
    const middle = didOf("acme");
    const r = await rotateTenantKey(db, { tenant: "acme", by: null, keysDir, now: NOW + 2 * HOUR });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.value.previous.did, middle);
    assert.equal(await keyDid(retiredKeyPath(keysDir, "acme", 1)), first, "the first retired key is untouched");
    assert.equal(await keyDid(retiredKeyPath(keysDir, "acme", 2)), middle);
    assert.equal(await keyDid(tenantKeyPath(keysDir, "acme")), r.value.did);
    const described = describeTenant(db, "acme");
    assert.ok(described.ok);
    assert.deepEqual(described.value.retiredDids.map((d) => d.did), [middle, first]);
    const second = db.prepare("SELECT created_at, retired_by FROM tenant_retired_dids WHERE did = ?").get(middle);
    assert.deepEqual({ ...second }, { created_at: NOW + HOUR, retired_by: null }, "the middle did was the tenant's from the first rotation on");
    assert.deepEqual(readdirSync(keysDir).filter((n) => n.startsWith("tenant-acme")).sort(), ["tenant-acme.jwk", "tenant-acme.retired-1.jwk", "tenant-acme.retired-2.jwk"]);
  });

  it("shows the last 20 retired dids only", async () => {
    await create("churn");
    for (let i = 1; i <= 22; i++) assert.ok((await rotateTenantKey(db, { tenant: "churn", by: null, keysDir, now: NOW + i })).ok);
    const described = describeTenant(db, "churn");
    assert.ok(described.ok);
    assert.equal(described.value.retiredDids.length, 20);
    assert.equal(described.value.retiredDids[0]?.retiredAt, new Date(NOW + 22).toISOString());
    assert.equal(existsSync(retiredKeyPath(keysDir, "churn", 22)), true, "every retired key is kept, listed or not");
  });

  it("refuses an unknown tenant (unknown_tenant) and a bad handle (bad_handle), writing nothing", async () => {
    const before = readdirSync(keysDir).sort();
    const unknown = await rotateTenantKey(db, { tenant: "nobody", by: null, keysDir, now: NOW });
    assert.deepEqual(unknown.ok ? null : unknown.error.code, "unknown_tenant");
    const bad = await rotateTenantKey(db, { tenant: "../acme", by: null, keysDir, now: NOW });
    assert.deepEqual(bad.ok ? null : bad.error.code, "bad_handle");
    assert.deepEqual(readdirSync(keysDir).sort(), before);
  });

  it("refuses, changing nothing, when the key file is not the tenant's did", async () => {
    const did = await create("swapped");
    assert.ok((await saveKeyFile(tenantKeyPath(keysDir, "swapped"), generateKeyPair(), { overwrite: true })).ok);
    const r = await rotateTenantKey(db, { tenant: "swapped", by: null, keysDir, now: NOW });
    assert.deepEqual(r.ok ? null : r.error.code, "key_mismatch");
    assert.equal(didOf("swapped"), did);
    assert.equal(existsSync(nextKeyPath(keysDir, "swapped")), false);
  });
});

describe("the tenant-key-rotate admin operation", () => {
  it("uses the key a replicated entry carries, logs the rotation, and changes nothing when the entry is applied again", async () => {
    const old = await create("globex");
    const carried: KeyPair = generateKeyPair();
    const records: LogRecord[] = [];
    const handlers = adminHandlers({ db, keysDir, clock: new ManualClock(NOW + HOUR), tenantKey: () => carried, log: createLogger("engine", (r) => records.push(r)) });
    const r = await handlers["tenant-key-rotate"]({ tenant: "globex", by: ada });
    assert.deepEqual(r, { ok: true, value: { handle: "globex", did: carried.did, previous: { did: old, retiredAt: new Date(NOW + HOUR).toISOString() } } });
    assert.deepEqual(
      records.map(({ msg, tenant, did, previous }) => ({ msg, tenant, did, previous })),
      [{ msg: "tenant key rotated", tenant: "globex", did: carried.did, previous: old }],
    );

    // The voter stopped after the commit, before it recorded the entry as applied: the entry runs again.
    const again = await handlers["tenant-key-rotate"]({ tenant: "globex", by: ada });
    assert.deepEqual(again, r);
    assert.equal(didOf("globex"), carried.did);
    assert.equal((db.prepare("SELECT count(*) AS n FROM tenant_retired_dids WHERE tenant = 'globex'").get() as { n: number }).n, 1);
    assert.equal(existsSync(retiredKeyPath(keysDir, "globex", 2)), false);
    assert.equal(await keyDid(tenantKeyPath(keysDir, "globex")), carried.did);
  });

  it("runs concurrent rotations of one tenant one after the other", async () => {
    await create("busy");
    const handlers = adminHandlers({ db, keysDir, clock: new ManualClock(NOW) });
    const answers = await Promise.all([1, 2, 3].map(() => handlers["tenant-key-rotate"]({ tenant: "busy", by: null })));
    assert.ok(answers.every((a) => a.ok), JSON.stringify(answers));
    const dids = answers.map((a) => (a.ok ? a.value.did : ""));
    assert.equal(new Set(dids).size, 3);
    assert.equal(didOf("busy"), dids[2]);
    assert.equal(await keyDid(tenantKeyPath(keysDir, "busy")), dids[2]);
    for (let n = 1; n <= 3; n++) assert.ok(existsSync(retiredKeyPath(keysDir, "busy", n)), `retired-${n}`);
    assert.equal(answers[1]?.ok && answers[1].value.previous.did, dids[0], "each retired the did the one before made");
  });

  it("is refused with unknown_tenant through the handlers too", async () => {
    const r = await adminHandlers({ db, keysDir, clock: new ManualClock(NOW) })["tenant-key-rotate"]({ tenant: "nobody", by: null });
    assert.deepEqual(r.ok ? null : r.error.code, "unknown_tenant");
  });
});

describe("a store from before rotations", () => {
  it("gains the retired-dids table when it is migrated, and its tenants can rotate", async () => {
    const old = mkdtempSync(join(tmpdir(), "charter-rotate-old-"));
    const store = openDatabase(join(old, "charter.db"));
    try {
      assert.deepEqual(migrate(store, migrations.filter((m) => m.version <= 4)), [1, 2, 3, 4]);
      const key = generateKeyPair();
      mkdirSync(join(old, "keys"), { mode: 0o700 });
      assert.ok((await saveKeyFile(tenantKeyPath(join(old, "keys"), "acme"), key)).ok);
      store.prepare("INSERT INTO tenants (handle, did, created_at, created_by) VALUES ('acme', ?, ?, NULL)").run(key.did, NOW);
      assert.deepEqual(migrate(store), [5, 6, 7, 8]);
      const r = await rotateTenantKey(store, { tenant: "acme", by: null, keysDir: join(old, "keys"), now: NOW + HOUR });
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.value.previous.did, key.did);
    } finally {
      store.close();
      rmSync(old, { recursive: true, force: true });
    }
  });
});

describe("finishKeyRotations: a rotation a crash interrupted", () => {
  it("is undone when it had not committed: the .next key is removed, the old key stays current, and the next rotation goes through", async () => {
    const did = await create("halfway");
    const current = await loadKeyFile(tenantKeyPath(keysDir, "halfway"));
    assert.ok(current.ok);
    // Steps 1 and 2 happened, the commit did not.
    const lost = generateKeyPair();
    assert.ok((await saveKeyFile(nextKeyPath(keysDir, "halfway"), lost)).ok);
    assert.ok((await saveKeyFile(retiredKeyPath(keysDir, "halfway", 1), current.value)).ok);

    assert.deepEqual(await finishKeyRotations(db, keysDir), [{ tenant: "halfway", did: lost.did, outcome: "undone" }]);
    assert.equal(existsSync(nextKeyPath(keysDir, "halfway")), false);
    assert.equal(didOf("halfway"), did);
    assert.equal(await keyDid(tenantKeyPath(keysDir, "halfway")), did);

    const r = await rotateTenantKey(db, { tenant: "halfway", by: null, keysDir, now: NOW });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(await keyDid(retiredKeyPath(keysDir, "halfway", 1)), did, "the copy left behind held the same key: reused");
  });

  it("is finished when it had committed: the .next key is renamed into place", async () => {
    const did = await create("committed");
    const current = await loadKeyFile(tenantKeyPath(keysDir, "committed"));
    assert.ok(current.ok);
    // Steps 1, 2 and 3 happened (the same writes as rotateTenantKey's), the rename did not.
    const fresh = generateKeyPair();
    assert.ok((await saveKeyFile(nextKeyPath(keysDir, "committed"), fresh)).ok);
    assert.ok((await saveKeyFile(retiredKeyPath(keysDir, "committed", 1), current.value)).ok);
    db.prepare("INSERT INTO tenant_retired_dids (tenant, did, created_at, retired_at, retired_by) VALUES ('committed', ?, ?, ?, NULL)").run(did, NOW, NOW + HOUR);
    db.prepare("UPDATE tenants SET did = ? WHERE handle = 'committed'").run(fresh.did);
    assert.equal(await keyDid(tenantKeyPath(keysDir, "committed")), did, "the store names a did its key file does not hold yet");

    assert.deepEqual(await finishKeyRotations(db, keysDir), [{ tenant: "committed", did: fresh.did, outcome: "finished" }]);
    assert.equal(await keyDid(tenantKeyPath(keysDir, "committed")), fresh.did);
    assert.equal(mode(tenantKeyPath(keysDir, "committed")), 0o600);
    assert.equal(existsSync(nextKeyPath(keysDir, "committed")), false);
    assert.equal(await keyDid(retiredKeyPath(keysDir, "committed", 1)), did);
    assert.deepEqual(await finishKeyRotations(db, keysDir), [], "nothing is left to do");
  });

  it("removes a .next key of a tenant that does not exist, and leaves an unreadable one in place", async () => {
    assert.ok((await saveKeyFile(nextKeyPath(keysDir, "ghost"), generateKeyPair())).ok);
    const [ghost] = await finishKeyRotations(db, keysDir);
    assert.deepEqual([ghost?.tenant, ghost?.outcome], ["ghost", "undone"]);
    assert.equal(existsSync(nextKeyPath(keysDir, "ghost")), false);

    const open = nextKeyPath(keysDir, "acme");
    assert.ok((await saveKeyFile(open, generateKeyPair())).ok);
    chmodSync(open, 0o644);
    const [kept] = await finishKeyRotations(db, keysDir);
    assert.deepEqual([kept?.tenant, kept?.outcome], ["acme", "kept"]);
    assert.match(kept?.reason ?? "", /accessible to group or others/);
    assert.ok(existsSync(open), "left for the operator");
    rmSync(open);
  });

  it("happens when the engine's admin operations run offline on the data directory", async () => {
    const data = mkdtempSync(join(tmpdir(), "charter-rotate-offline-"));
    try {
      const made = await runAdminOffline(data, "tenant-create", { handle: "acme", owners: [ada], by: null });
      assert.ok(made.ok, JSON.stringify(made));
      const lost = generateKeyPair();
      assert.ok((await saveKeyFile(nextKeyPath(join(data, "keys"), "acme"), lost)).ok);
      const described = await runAdminOffline(data, "tenant-describe", { tenant: "acme" });
      assert.ok(described.ok);
      assert.equal(described.value.did, made.value.did);
      assert.equal(existsSync(nextKeyPath(join(data, "keys"), "acme")), false, "the uncommitted .next key was removed on open");
      const rotated = await runAdminOffline(data, "tenant-key-rotate", { tenant: "acme", by: null });
      assert.ok(rotated.ok, JSON.stringify(rotated));
      assert.equal(await keyDid(tenantKeyPath(join(data, "keys"), "acme")), rotated.value.did);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
