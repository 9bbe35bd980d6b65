/**
 * @module The Tenants view's data: each tenant's identity, its owners and members, and its
 * delegations with scope and expiry (expired ones included, as the store keeps them).
 */
import type { Kysely } from "kysely";
import type { StoreTables } from "../shared/store/tables.ts";

export interface TenantDelegation {
  readonly did: string;
  readonly scope: string;
  /** Expiry in ms since the epoch; null when it never expires. The view judges it against its clock. */
  readonly until: number | null;
}

export interface TenantDetail {
  readonly handle: string;
  readonly did: string;
  readonly createdAt: number;
  readonly createdBy: string | null;
  readonly owners: readonly string[];
  readonly members: readonly string[];
  readonly delegations: readonly TenantDelegation[];
}

/** Every tenant by handle, with its roles in the order they were added. */
export async function readTenants(db: Kysely<StoreTables>): Promise<TenantDetail[]> {
  const tenants = await db.selectFrom("tenants").select(["handle", "did", "created_at", "created_by"]).orderBy("handle").execute();
  const roles = await db.selectFrom("tenant_roles").select(["tenant", "did", "role"]).orderBy("added_at").orderBy("did").execute();
  const delegations = await db.selectFrom("delegations").select(["tenant", "did", "scope", "until"]).orderBy("did").orderBy("scope").execute();
  return tenants.map((t) => ({
    handle: t.handle,
    did: t.did,
    createdAt: t.created_at,
    createdBy: t.created_by,
    owners: roles.filter((r) => r.tenant === t.handle && r.role === "owner").map((r) => r.did),
    members: roles.filter((r) => r.tenant === t.handle && r.role === "member").map((r) => r.did),
    delegations: delegations
      .filter((d) => d.tenant === t.handle)
      .map((d) => ({ did: d.did, scope: d.scope, until: d.until })),
  }));
}
