/**
 * @module Read-side views of tenants for operators and the gateway: one tenant described in full
 * (identity and the dids rotations retired, owners, members, delegations, installed namespaces),
 * all tenants in brief, and the installed contracts. Off the write path, so plain statements in a
 * stable order.
 */
import type { DatabaseSync } from "node:sqlite";
import type { AdminResult, ContractRow, Delegation, NamespaceInstall, TenantDescription, TenantSummary } from "../../shared/protocol/admin.ts";
import { checkTenant, ok, statement } from "./tenants.ts";
import { retiredDids } from "./tenant-key-rotate.ts";

interface InstallRow {
  tenant: string;
  namespace: string;
  version: string;
  artifact: string;
  status: NamespaceInstall["status"];
  installed_at: number;
  installed_by: string | null;
}

const INSTALLS = `SELECT i.tenant, i.namespace, a.version, i.artifact, i.status, i.installed_at, i.installed_by
  FROM installs i JOIN artifacts a ON a.id = i.artifact`;
/** Active first within a namespace, then newest first. */
const INSTALL_ORDER = "ORDER BY i.tenant, i.namespace, i.status <> 'active', i.installed_at DESC, i.artifact";

function install(row: InstallRow): NamespaceInstall {
  return {
    namespace: row.namespace,
    version: row.version,
    artifact: row.artifact,
    status: row.status,
    installedAt: new Date(row.installed_at).toISOString(),
    installedBy: row.installed_by,
  };
}

/** Everything about tenant `handle`; delegations include expired ones (their `until` says so). */
export function describeTenant(db: DatabaseSync, handle: string): AdminResult<TenantDescription> {
  const bad = checkTenant(db, handle);
  if (bad !== null) return bad;
  const tenant = statement(db, "SELECT did, created_at FROM tenants WHERE handle = ?").get(handle) as { did: string; created_at: number };
  const roles = statement(db, "SELECT did, role FROM tenant_roles WHERE tenant = ? ORDER BY added_at, did").all(handle) as { did: string; role: string }[];
  const delegations = statement(db, "SELECT did, scope, until FROM delegations WHERE tenant = ? ORDER BY did, scope").all(handle) as { did: string; scope: string; until: number | null }[];
  const installs = statement(db, `${INSTALLS} WHERE i.tenant = ? ${INSTALL_ORDER}`).all(handle) as unknown as InstallRow[];
  return ok({
    handle,
    did: tenant.did,
    createdAt: new Date(tenant.created_at).toISOString(),
    owners: roles.filter((r) => r.role === "owner").map((r) => r.did),
    members: roles.filter((r) => r.role === "member").map((r) => r.did),
    delegations: delegations.map((d): Delegation => ({ did: d.did, scope: d.scope, until: d.until === null ? null : new Date(d.until).toISOString() })),
    namespaces: installs.map(install),
    retiredDids: retiredDids(db, handle),
  });
}

/** Every tenant, by handle, with counts. */
export function listTenants(db: DatabaseSync): TenantSummary[] {
  return statement(
    db,
    `SELECT t.handle, t.did,
       (SELECT count(*) FROM tenant_roles r WHERE r.tenant = t.handle AND r.role = 'owner') AS owners,
       (SELECT count(*) FROM tenant_roles r WHERE r.tenant = t.handle AND r.role = 'member') AS members,
       (SELECT count(*) FROM installs i WHERE i.tenant = t.handle AND i.status = 'active') AS namespaces
     FROM tenants t ORDER BY t.handle`,
  )
    .all()
    .map((row) => ({ ...(row as unknown as TenantSummary) }));
}

/** Installed contracts of one tenant, or of all when `tenant` is undefined. */
export function listContracts(db: DatabaseSync, tenant?: string): AdminResult<ContractRow[]> {
  if (tenant !== undefined) {
    const bad = checkTenant(db, tenant);
    if (bad !== null) return bad;
  }
  const rows = (tenant === undefined ? statement(db, `${INSTALLS} ${INSTALL_ORDER}`).all() : statement(db, `${INSTALLS} WHERE i.tenant = ? ${INSTALL_ORDER}`).all(tenant)) as unknown as InstallRow[];
  return ok(rows.map((row) => ({ tenant: row.tenant, ...install(row) })));
}
