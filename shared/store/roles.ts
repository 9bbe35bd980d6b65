/**
 * @module Who a did is to a tenant, on any connection to the store — the engine's writer (asked on
 * every authorized command) or a reader's read-only connection (asked on every authenticated
 * read). Each connection compiles the two statements once.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";

/** What a did is to a tenant. `member` is true for owners too (an owner is a member of its tenant). */
export interface Roles {
  readonly known: boolean;
  readonly owner: boolean;
  readonly member: boolean;
  /** Scopes of the delegations in force. */
  readonly scopes: readonly string[];
}

const statements = new WeakMap<DatabaseSync, { exists: StatementSync; roles: StatementSync }>();

function prepared(db: DatabaseSync): { exists: StatementSync; roles: StatementSync } {
  let s = statements.get(db);
  if (s === undefined) {
    s = {
      exists: db.prepare("SELECT 1 FROM tenants WHERE handle = ?"),
      roles: db.prepare(
        `SELECT 0 AS kind, role AS name FROM tenant_roles WHERE tenant = ? AND did = ?
         UNION ALL SELECT 1, scope FROM delegations WHERE tenant = ? AND did = ? AND (until IS NULL OR until > ?)`,
      ),
    };
    statements.set(db, s);
  }
  return s;
}

/** Whether tenant `handle` exists. */
export function tenantExists(db: DatabaseSync, handle: string): boolean {
  return prepared(db).exists.get(handle) !== undefined;
}

const NO_ROLES: Roles = Object.freeze({ known: false, owner: false, member: false, scopes: Object.freeze([]) as readonly string[] });

/**
 * What `did` is to `tenant` at `now`: owner, member (owners are members too), the scopes of its
 * delegations in force. `known` when it is any of these. An unknown tenant knows no one.
 */
export function rolesOf(db: DatabaseSync, tenant: string, did: string, now: number): Roles {
  const rows = prepared(db).roles.all(tenant, did, tenant, did, now) as { kind: number; name: string }[];
  if (rows.length === 0) return NO_ROLES;
  let owner = false;
  let member = false;
  const scopes: string[] = [];
  for (const row of rows) {
    if (row.kind === 1) scopes.push(row.name);
    else if (row.name === "owner") owner = true;
    else member = true;
  }
  return { known: true, owner, member: member || owner, scopes };
}
