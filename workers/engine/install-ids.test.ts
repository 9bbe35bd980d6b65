/** Single-use install ids on a migrated temp store, through the same admin handlers the engine serves. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { artifactWire } from "../../contracts/artifact-wire.ts";
import { compileContract } from "../../contracts/compile.ts";
import { ManualClock } from "../../shared/clock.ts";
import { generateKeyPair } from "../../shared/identity/key-pair.ts";
import type { AdminResult, ArtifactWire } from "../../shared/protocol/admin.ts";
import { migrate } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { adminHandlers } from "./admin-ops.ts";
import { INSTALL_ID_KEEP_MS } from "./install-ids.ts";

const START = Date.parse("2026-11-21T10:00:00Z");
const owner = generateKeyPair().did;
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function compiled(name: string): ArtifactWire {
  const source = readFileSync(new URL(`../../contracts/examples/${name}`, import.meta.url), "utf8");
  const result = compileContract(source, { resolveCollection: () => null });
  if (result.artifact === undefined) throw new Error(`${name} does not compile`);
  return artifactWire(result.artifact, source);
}
const shipping = compiled("shipping.charter.md");
const shippingV2 = compiled("shipping-v2.charter.md");

/** A store with tenant acme owned by `owner`, and its admin handlers on a manual clock. */
async function store() {
  const dir = mkdtempSync(join(tmpdir(), "charter-install-ids-"));
  dirs.push(dir);
  const db = openDatabase(join(dir, "charter.db"));
  migrate(db);
  const clock = new ManualClock(START);
  const admin = adminHandlers({ db, keysDir: join(dir, "keys"), clock });
  assert.ok((await admin["tenant-create"]({ handle: "acme", owners: [owner], by: null })).ok);
  const install = (artifact: ArtifactWire, id: string, issuedAt = new Date(clock.now()).toISOString()) =>
    admin.install({ tenant: "acme", artifact, by: owner, requireOwner: true, signed: { id, issuedAt } });
  const status = () => db.prepare("SELECT status FROM installs WHERE tenant = 'acme' AND namespace = 'acme.shipping' ORDER BY installed_at DESC LIMIT 1").get() as { status: string } | undefined;
  return { db, clock, admin, install, status };
}

const code = (r: AdminResult<unknown>) => (r.ok ? "ok" : r.error.code);

describe("single-use install ids", () => {
  it("issue 16 #10: refuses a replayed install, so it cannot bring back a namespace just retired", async () => {
    const s = await store();
    assert.equal(code(await s.install(shipping, "first-install-0001")), "ok");
    assert.ok((await s.admin["contract-retire"]({ tenant: "acme", namespace: "acme.shipping" })).ok);
    s.clock.advance(60_000);
    const replay = await s.install(shipping, "first-install-0001", new Date(START).toISOString());
    assert.equal(code(replay), "install_replayed");
    assert.equal(s.status()?.status, "retired", "the namespace stays retired");
    // A new install, signed anew, is the owner's decision and goes through.
    assert.equal(code(await s.install(shipping, "second-install-002")), "ok");
    assert.equal(s.status()?.status, "active");
  });

  it("spends an id even when its install is refused, and keeps it apart per signer", async () => {
    const s = await store();
    assert.equal(code(await s.install(shippingV2, "refused-install-01")), "upgrade_mismatch");
    assert.equal(code(await s.install(shipping, "refused-install-01")), "install_replayed");
    assert.equal(s.db.prepare("SELECT count(*) AS n FROM installs WHERE namespace = 'acme.shipping'").get()?.n, 0);
    // Ids are the signer's own: another owner's install that happens to carry the same one goes through.
    const other = generateKeyPair().did;
    assert.ok((await s.admin["tenant-owner-add"]({ tenant: "acme", did: other })).ok);
    const issuedAt = new Date(s.clock.now()).toISOString();
    assert.equal(code(await s.admin.install({ tenant: "acme", artifact: shipping, by: other, requireOwner: true, signed: { id: "refused-install-01", issuedAt } })), "ok");
  });

  it("refuses an install signed further than the kept window from the node's time, then prunes ids that old", async () => {
    const s = await store();
    assert.equal(code(await s.install(shipping, "old-install-000001")), "ok");
    s.clock.advance(INSTALL_ID_KEEP_MS + 1000);
    assert.equal(code(await s.install(shipping, "old-install-000001", new Date(START).toISOString())), "install_stale");
    assert.equal(code(await s.install(shipping, "late-install-00001", new Date(s.clock.now() + INSTALL_ID_KEEP_MS + 1000).toISOString())), "install_stale");
    assert.equal(code(await s.install(shipping, "new-install-000001")), "ok");
    const ids = s.db.prepare("SELECT id FROM install_ids ORDER BY id").all().map((r) => r.id);
    assert.deepEqual(ids, ["new-install-000001"], "the old id was pruned; a JWS bearing it is stale anyway");
  });

  it("refuses a malformed signed id", async () => {
    const s = await store();
    assert.equal(code(await s.install(shipping, "short")), "bad_install");
    assert.equal(code(await s.install(shipping, "valid-install-0001", "yesterday")), "bad_install");
  });

  it("gives every store applying the same requests at the same times the same answers and the same ids", async () => {
    const voters = [await store(), await store()];
    const answers = [];
    for (const v of voters) {
      const run = [];
      run.push(code(await v.install(shipping, "voter-install-0001")));
      v.clock.advance(1000);
      run.push(code(await v.install(shipping, "voter-install-0001")));
      run.push(code(await v.admin["contract-retire"]({ tenant: "acme", namespace: "acme.shipping" })));
      run.push(code(await v.install(shipping, "voter-install-0001", new Date(START).toISOString())));
      answers.push({ run, ids: v.db.prepare("SELECT signer, id, issued_at, used_at FROM install_ids").all() });
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.deepEqual(answers[0]?.run, ["ok", "install_replayed", "ok", "install_replayed"]);
  });

  it("installs without a signed id (the operator's own `charter install`) as before", async () => {
    const s = await store();
    const r = await s.admin.install({ tenant: "acme", artifact: shipping, by: null });
    assert.equal(code(r), "ok");
    assert.equal(code(await s.admin.install({ tenant: "acme", artifact: shipping, by: null })), "ok", "the active artifact again is a no-op");
  });
});
