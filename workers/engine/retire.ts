/**
 * @module Retiring and restoring a tenant's namespace. A retired namespace is no longer served by
 * the API (its actions and queries answer 404), but its records and history stay stored and
 * readable to the tenant's owners; restoring makes the retired version active again.
 */
import type { DatabaseSync } from "node:sqlite";
import type { AdminResult } from "../../shared/protocol/admin.ts";
import { transaction } from "../../shared/store/open.ts";
import { fail, ok } from "./tenants.ts";

/** Retires the active version of `namespace` for `tenant`. */
export function retireNamespace(db: DatabaseSync, tenant: string, namespace: string): AdminResult<{ artifact: string }> {
  return transaction(db, () => {
    const active = db.prepare("SELECT artifact FROM installs WHERE tenant = ? AND namespace = ? AND status = 'active'").get(tenant, namespace) as { artifact: string } | undefined;
    if (active === undefined) return fail("not_installed", `tenant '${tenant}' has no active contract for ${namespace}`);
    db.prepare("UPDATE installs SET status = 'retired' WHERE tenant = ? AND namespace = ? AND artifact = ?").run(tenant, namespace, active.artifact);
    return ok({ artifact: active.artifact });
  });
}

/** Makes the most recently retired version of `namespace` active again. */
export function restoreNamespace(db: DatabaseSync, tenant: string, namespace: string): AdminResult<{ artifact: string }> {
  return transaction(db, () => {
    if (db.prepare("SELECT 1 FROM installs WHERE tenant = ? AND namespace = ? AND status = 'active'").get(tenant, namespace) !== undefined) {
      return fail("already_active", `${namespace} is active for '${tenant}'; nothing to restore`);
    }
    const retired = db.prepare("SELECT artifact FROM installs WHERE tenant = ? AND namespace = ? AND status = 'retired' ORDER BY installed_at DESC LIMIT 1").get(tenant, namespace) as
      | { artifact: string }
      | undefined;
    if (retired === undefined) return fail("not_retired", `tenant '${tenant}' has no retired contract for ${namespace}`);
    db.prepare("UPDATE installs SET status = 'active' WHERE tenant = ? AND namespace = ? AND artifact = ?").run(tenant, namespace, retired.artifact);
    return ok({ artifact: retired.artifact });
  });
}
