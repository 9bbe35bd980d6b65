/**
 * @module Installing the standard library (contracts/std) in a tenant: every tenant has
 * `std.invoices` and the other standard collections from its creation, in the creating
 * transaction, through the ordinary install (so their tables, indexes and FTS5 tables are derived
 * like any contract's). The node's personal contracts (contracts/std/node) are not among them:
 * `charter node` installs those in the personal tenant itself.
 */
import type { DatabaseSync } from "node:sqlite";
import { standardLibrary } from "../../contracts/std/library.ts";
import { installArtifact } from "./install.ts";

/** Installs every standard-library contract the tenant does not have yet; throws if one is refused. */
export function installStandardLibrary(db: DatabaseSync, tenant: string, by: string | null, now: number): void {
  for (const a of standardLibrary()) {
    if (a.personal) continue;
    // Installed once per tenant: a version the tenant upgraded, or retired, is theirs to keep.
    const installed = db.prepare("SELECT 1 FROM installs WHERE tenant = ? AND namespace = ?").get(tenant, a.namespace);
    if (installed !== undefined) continue;
    const r = installArtifact(db, { tenant, artifact: { id: a.id, schemaJson: a.schemaJson, wasm: a.wasm, source: a.source }, installedBy: by, now });
    if (!r.ok) throw new Error(`the standard library's ${a.namespace} cannot be installed in ${tenant}: ${r.error.message}`);
  }
}
