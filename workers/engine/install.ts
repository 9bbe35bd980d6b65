/**
 * @module Installing a compiled artifact for a tenant: check its id against its bytes, store it,
 * derive its tables, and make it the tenant's active artifact for its namespace — in one
 * transaction. Compilation happens elsewhere (the CLI or a child process): the engine never loads
 * the compiler.
 */
import type { DatabaseSync } from "node:sqlite";
import { artifactId } from "../../contracts/artifact.ts";
import type { Schema } from "../../contracts/schema.ts";
import type { Installed } from "../../shared/protocol/admin.ts";
import { transaction } from "../../shared/store/open.ts";
import { type SignedInstall, spendInstallId } from "./install-ids.ts";
import { deriveTables } from "./state-table.ts";
import { migrateRecords } from "./upgrade.ts";

/** A compiled artifact as sent to the engine. */
export interface ArtifactUpload {
  readonly id: string;
  /** The canonical schema, exactly the bytes the id was computed over. */
  readonly schemaJson: string;
  readonly wasm: Uint8Array;
  /** The whole Markdown file it was compiled from. */
  readonly source: string;
}

export type InstallResult =
  | { readonly ok: true; readonly value: Installed }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

const fail = (code: string, message: string): InstallResult => ({ ok: false, error: { code, message } });

/** What to install, for whom, by whom and when; `signed` when a signed install JWS asked for it. */
export interface InstallInput {
  readonly tenant: string;
  readonly artifact: ArtifactUpload;
  readonly installedBy: string | null;
  readonly now: number;
  /** The JWS's single-use id: spent with the install, and a second use refused. */
  readonly signed?: SignedInstall;
}

/**
 * Installs `artifact` for `tenant`. A signed install spends its id in the same transaction, whether
 * the install then succeeds or is refused (a refused JWS is not kept for a later, different store).
 */
export function installArtifact(db: DatabaseSync, input: InstallInput): InstallResult {
  const { signed, installedBy } = input;
  if (signed === undefined) return installOnce(db, input);
  if (installedBy === null) return fail("bad_install", "a signed install names its signer");
  // The id is spent in the install's own transaction; an install refused by throwing (a record
  // that cannot migrate) rolls everything back, so its id is spent after, on its own.
  let refusal: InstallResult | null = null;
  const result = installOnce(db, input, () => {
    const spent = spendInstallId(db, installedBy, signed, input.now);
    if (!spent.ok) refusal = spent;
    return spent.ok;
  });
  if (refusal !== null) return refusal;
  if (db.prepare("SELECT 1 FROM install_ids WHERE signer = ? AND id = ?").get(installedBy, signed.id) === undefined) {
    transaction(db, () => spendInstallId(db, installedBy, signed, input.now));
  }
  return result;
}

/** Checks the artifact against its id and installs it in one transaction. */
function installOnce(db: DatabaseSync, input: InstallInput, spendId?: () => boolean): InstallResult {
  const { tenant, artifact } = input;
  const schemaBytes = new TextEncoder().encode(artifact.schemaJson);
  if (artifactId(schemaBytes, artifact.wasm) !== artifact.id) return fail("artifact_mismatch", `the artifact's bytes do not hash to ${artifact.id}`);
  let schema: Schema;
  try {
    schema = JSON.parse(artifact.schemaJson) as Schema;
  } catch {
    return fail("bad_artifact", "the artifact's schema is not JSON");
  }
  if (schema.format !== "charter-schema/1") return fail("bad_artifact", `unknown schema format ${String(schema.format)}`);
  if (db.prepare("SELECT 1 FROM tenants WHERE handle = ?").get(tenant) === undefined) return fail("unknown_tenant", `no tenant '${tenant}'`);

  try {
    return transaction(db, () => {
      if (spendId !== undefined && !spendId()) return fail("install_replayed", "the install's id could not be spent");
      return installSchema(db, input, schema);
    });
  } catch (error) {
    // Thrown inside the transaction, so every write of the install was rolled back.
    if (error instanceof UpgradeRefused) return fail(error.code, error.message);
    throw error;
  }
}

/** Stores the artifact and makes it active, migrating the records of the version it upgrades. */
function installSchema(db: DatabaseSync, input: InstallInput, schema: Schema): InstallResult {
  const { tenant, artifact, installedBy, now } = input;
  const active = db.prepare("SELECT artifact FROM installs WHERE tenant = ? AND namespace = ? AND status = 'active'").get(tenant, schema.namespace) as { artifact: string } | undefined;
  if (active?.artifact === artifact.id) return { ok: true, value: { artifact: artifact.id, namespace: schema.namespace, version: schema.version, unchanged: true, migrated: 0, replaced: null } } as const;
  if (active !== undefined) {
    if (schema.upgrades === null) {
      return fail("upgrade_required", `${schema.namespace} already has ${active.artifact} installed for ${tenant}; a new version must say \`upgrades ${active.artifact}\``);
    }
    if (schema.upgrades !== active.artifact) {
      return fail("upgrade_mismatch", `this version upgrades ${schema.upgrades}, but ${tenant} has ${active.artifact} installed for ${schema.namespace}`);
    }
  }
  if (active === undefined && schema.upgrades !== null) return fail("upgrade_mismatch", `this version upgrades ${schema.upgrades}, but ${tenant} has no artifact installed for ${schema.namespace}`);
  db.prepare("INSERT OR IGNORE INTO artifacts (id, namespace, version, schema, wasm, source, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?)").run(
    artifact.id,
    schema.namespace,
    schema.version,
    artifact.schemaJson,
    artifact.wasm,
    artifact.source,
    now,
  );
  deriveTables(db, schema);
  let migrated = 0;
  if (active !== undefined) {
    const previous = db.prepare("SELECT schema FROM artifacts WHERE id = ?").get(active.artifact) as { schema: string };
    const from = { id: active.artifact, schema: JSON.parse(previous.schema) as Schema };
    const result = migrateRecords(db, { tenant, from, to: { id: artifact.id, schema }, by: installedBy ?? "", now });
    // Throwing rolls the whole install back: no record, table row or install changes.
    if (!result.ok) throw new UpgradeRefused(result.error.code, result.error.message);
    migrated = result.migrated;
    db.prepare("UPDATE installs SET status = 'replaced' WHERE tenant = ? AND namespace = ? AND artifact = ?").run(tenant, schema.namespace, active.artifact);
  }
  db.prepare("INSERT OR REPLACE INTO installs (tenant, namespace, artifact, status, installed_at, installed_by) VALUES (?, ?, ?, 'active', ?, ?)").run(
    tenant,
    schema.namespace,
    artifact.id,
    now,
    installedBy,
  );
  return { ok: true, value: { artifact: artifact.id, namespace: schema.namespace, version: schema.version, unchanged: false, migrated, replaced: active?.artifact ?? null } } as const;
}

/** Abandons an upgrade from inside its transaction. */
class UpgradeRefused extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}
