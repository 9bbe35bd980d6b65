/**
 * @module The Contracts view's data: every installed artifact per tenant — namespace, version,
 * artifact id, status, and when and by whom it was installed — active first within a namespace.
 */
import type { Kysely } from "kysely";
import type { StoreTables } from "../shared/store/tables.ts";

export interface InstalledContract {
  readonly tenant: string;
  readonly namespace: string;
  readonly version: string;
  readonly artifact: string;
  readonly status: "active" | "replaced" | "retired";
  readonly installedAt: number;
  readonly installedBy: string | null;
}

/** Installed contracts ordered by tenant, namespace, active first, then newest first. */
export async function readContracts(db: Kysely<StoreTables>): Promise<InstalledContract[]> {
  const rows = await db
    .selectFrom("installs as i")
    .innerJoin("artifacts as a", "a.id", "i.artifact")
    .select(["i.tenant", "i.namespace", "a.version", "i.artifact", "i.status", "i.installed_at", "i.installed_by"])
    .orderBy("i.tenant")
    .orderBy("i.namespace")
    .orderBy((eb) => eb("i.status", "<>", "active"))
    .orderBy("i.installed_at", "desc")
    .orderBy("i.artifact")
    .execute();
  return rows.map((r) => ({
    tenant: r.tenant,
    namespace: r.namespace,
    version: r.version,
    artifact: r.artifact,
    status: r.status,
    installedAt: r.installed_at,
    installedBy: r.installed_by,
  }));
}
