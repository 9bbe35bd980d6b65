/**
 * @module The engine tables' row types, for Kysely's typed queries (schema, migrations and admin
 * reads). Hot paths use prepared statements directly.
 */

export interface TenantsTable {
  handle: string;
  did: string;
  created_at: number;
  created_by: string | null;
  /** The contract-declared effects switched on (JSON), or null: none. */
  effects: string | null;
}

export interface TenantRolesTable {
  tenant: string;
  did: string;
  role: "owner" | "member";
  added_at: number;
}

export interface DelegationsTable {
  tenant: string;
  did: string;
  scope: string;
  until: number | null;
  added_at: number;
}

/** A did a tenant had before a key rotation replaced it. */
export interface TenantRetiredDidsTable {
  tenant: string;
  did: string;
  /** When it became the tenant's did (the tenant's creation, or the rotation before). */
  created_at: number;
  retired_at: number;
  retired_by: string | null;
}

export interface ArtifactsTable {
  id: string;
  namespace: string;
  version: string;
  schema: string;
  wasm: Uint8Array;
  source: string;
  stored_at: number;
}

export interface InstallsTable {
  tenant: string;
  namespace: string;
  artifact: string;
  status: "active" | "replaced" | "retired";
  installed_at: number;
  installed_by: string | null;
}

export interface HistoryTable {
  seq: number;
  tenant: string;
  namespace: string;
  aggregate: string;
  subject: string;
  action: string;
  signer: string;
  artifact: string;
  outcome: "accepted" | "refused";
  reason: string | null;
  args: string;
  command: string;
  before_digest: string;
  after_digest: string;
  receipt: string;
  committed_at: number;
}

export interface JournalTable {
  id: number;
  topic: string;
  key: string | null;
  payload: string;
  state: "ready" | "claimed" | "done" | "dead";
  attempts: number;
  max_attempts: number;
  available_at: number;
  claimed_by: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  done_at: number | null;
}

/** The store as Kysely sees it. */
export interface StoreTables {
  tenants: TenantsTable;
  tenant_roles: TenantRolesTable;
  delegations: DelegationsTable;
  tenant_retired_dids: TenantRetiredDidsTable;
  artifacts: ArtifactsTable;
  installs: InstallsTable;
  history: HistoryTable;
  journal: JournalTable;
}
