/**
 * @module Preparing a data directory for an end-to-end test before its node starts: a tenant with
 * owners and members, and contracts installed — through the same engine functions the offline
 * `charter tenant` / `charter install` commands use.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileContract } from "../../contracts/compile.ts";
import { generateKeyPair, type KeyPair } from "../../shared/identity/index.ts";
import { makeDirsSync } from "../../shared/make-dirs.ts";
import { collectionOf } from "../../shared/store/collections.ts";
import { migrate } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { installArtifact } from "../../workers/engine/install.ts";
import { addRole, createTenant } from "../../workers/engine/tenants.ts";

/** A contract of contracts/examples by file name. */
export function example(name: string): string {
  return readFileSync(new URL(`../../contracts/examples/${name}`, import.meta.url), "utf8");
}

export interface Seeded {
  readonly owner: KeyPair;
  readonly members: KeyPair[];
  readonly artifacts: Record<string, string>;
}

/** Creates tenant `tenant` with one owner and `members` members, and installs `contracts` (Markdown sources). */
export async function seed(dataDir: string, options: { tenant?: string; members?: number; contracts: string[] }): Promise<Seeded> {
  const tenant = options.tenant ?? "acme";
  makeDirsSync(dataDir);
  const db = openDatabase(join(dataDir, "charter.db"));
  migrate(db);
  const owner = generateKeyPair();
  const now = Date.now();
  const created = await createTenant(db, { handle: tenant, owners: [owner.did], by: null, keysDir: join(dataDir, "keys"), now });
  if (!created.ok) throw new Error(created.error.message);
  const members = Array.from({ length: options.members ?? 2 }, () => generateKeyPair());
  for (const m of members) addRole(db, tenant, m.did, "member", now);
  const artifacts: Record<string, string> = {};
  for (const source of options.contracts) {
    // Queries may read the tenant's other contracts and the standard library (std.invoices).
    const compiled = compileContract(source, { resolveCollection: (name) => collectionOf(db, tenant, name) });
    if (compiled.artifact === undefined) throw new Error(`contract does not compile: ${JSON.stringify(compiled.diagnostics)}`);
    const a = compiled.artifact;
    const r = installArtifact(db, {
      tenant,
      artifact: { id: a.id, schemaJson: new TextDecoder().decode(a.schemaBytes), wasm: a.wasm, source },
      installedBy: owner.did,
      now,
    });
    if (!r.ok) throw new Error(r.error.message);
    artifacts[a.schema.namespace] = a.id;
  }
  db.close();
  return { owner, members, artifacts };
}
