import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Journal } from "../journal.ts";
import { kyselyFor } from "./kysely.ts";
import { migrate, schemaVersion } from "./migrations.ts";
import { openDatabase } from "./open.ts";
import type { StoreTables } from "./tables.ts";

test("Kysely reads and writes the migrated store through the node:sqlite adapter", async () => {
  const dir = mkdtempSync(join(tmpdir(), "charter-kysely-"));
  const db = openDatabase(join(dir, "charter.db"));
  assert.deepEqual(migrate(db), [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(migrate(db), [], "migrating twice does nothing");
  assert.equal(schemaVersion(db), 8);
  const k = kyselyFor<StoreTables>(db);
  await k.insertInto("tenants").values({ handle: "acme", did: "did:key:z6Mk", created_at: 1, created_by: null }).execute();
  await k.insertInto("tenant_roles").values([
    { tenant: "acme", did: "did:key:a", role: "owner", added_at: 1 },
    { tenant: "acme", did: "did:key:b", role: "member", added_at: 2 },
  ]).execute();
  const rows = await k.selectFrom("tenant_roles").select(["did", "role"]).where("tenant", "=", "acme").orderBy("did").execute();
  assert.deepEqual(rows.map((r) => ({ ...r })), [
    { did: "did:key:a", role: "owner" },
    { did: "did:key:b", role: "member" },
  ]);
  new Journal(db).append("t", { x: 1 });
  const counted = await k.selectFrom("journal").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  assert.equal(counted.n, 1);
  await k.destroy();
  assert.ok(db.isOpen, "Kysely does not close a connection it does not own");
  db.close();
  rmSync(dir, { recursive: true });
});
