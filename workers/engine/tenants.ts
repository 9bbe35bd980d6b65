/**
 * @module Tenants on the engine's writer connection: creating one (with its own Ed25519 identity,
 * its private key in `DATA/keys/tenant-<handle>.jwk`), its owners and members, its delegations,
 * and `rolesOf` (shared/store/roles.ts) — what a did is to a tenant. Mistakes the caller made
 * come back as values with stable codes.
 */
import { chmod } from "node:fs/promises";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { isDidKey, publicKeyFromDidKey } from "../../shared/identity/did-key.ts";
import { loadKeyFile, saveKeyFile } from "../../shared/identity/key-file.ts";
import { generateKeyPair, type KeyPair } from "../../shared/identity/key-pair.ts";
import { parseRfc3339 } from "../../shared/identity/rfc3339.ts";
import { makeDirs } from "../../shared/make-dirs.ts";
import type { AdminResult, Delegation } from "../../shared/protocol/admin.ts";
import { rolesOf, tenantExists } from "../../shared/store/roles.ts";
import { transaction } from "../../shared/store/open.ts";
import { installStandardLibrary } from "./std-library.ts";
import { tenantKeyPath } from "./tenant-key-files.ts";

// Shared with the readers (the gateway asks them on its read-only connection); re-exported here.
export { rolesOf, tenantExists };
// Where tenants' keys live (tenant-key-files.ts); re-exported here.
export { tenantKeyPath };

const HANDLE = /^[a-z0-9-]{2,63}$/;
/** The grammar's `Scope` (contracts/grammar/charter.peggy), bounded. */
const SCOPE = /^[A-Za-z0-9_.:-]{1,64}$/;

export const ok = <T>(value: T): AdminResult<T> => ({ ok: true, value });
export const fail = <T = never>(code: string, message: string): AdminResult<T> => ({ ok: false, error: { code, message } });

const statements = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/** A prepared statement, compiled once per connection. */
export function statement(db: DatabaseSync, sql: string): StatementSync {
  let cache = statements.get(db);
  if (cache === undefined) statements.set(db, (cache = new Map()));
  let s = cache.get(sql);
  if (s === undefined) cache.set(sql, (s = db.prepare(sql)));
  return s;
}

/** Why `handle` cannot name a tenant, or null. */
export function checkHandle(handle: unknown): AdminResult<never> | null {
  if (typeof handle === "string" && HANDLE.test(handle)) return null;
  return fail("bad_handle", `'${String(handle)}' is not a tenant handle: 2–63 characters of a–z, 0–9 and '-'`);
}

/** Why `did` is not an Ed25519 did:key, or null. */
export function checkDid(did: unknown): AdminResult<never> | null {
  if (isDidKey(did)) return null;
  const decoded = typeof did === "string" ? publicKeyFromDidKey(did) : null;
  return fail("bad_did", decoded !== null && !decoded.ok ? decoded.error.message : "an identity must be an Ed25519 did:key string");
}


/** Creates tenant `handle` owned by `owners`, generating its identity; answers its did. */
export async function createTenant(
  db: DatabaseSync,
  input: { handle: string; owners: readonly string[]; by: string | null; keysDir: string; now: number; key?: KeyPair },
): Promise<AdminResult<{ handle: string; did: string }>> {
  const { handle, owners, keysDir, now } = input;
  const badHandle = checkHandle(handle);
  if (badHandle !== null) return badHandle;
  if (!Array.isArray(owners) || owners.length === 0) return fail("owner_required", "a tenant needs at least one owner (--owner did:key:…)");
  for (const owner of owners) {
    const bad = checkDid(owner);
    if (bad !== null) return bad;
  }
  if (tenantExists(db, handle)) return fail("tenant_exists", `tenant '${handle}' already exists`);

  const key = await tenantKey(keysDir, handle, input.key);
  if (!key.ok) return key;
  return transaction(db, () => {
    // Checked again inside the transaction: another create may have committed while the key was written.
    if (tenantExists(db, handle)) return fail("tenant_exists", `tenant '${handle}' already exists`);
    statement(db, "INSERT INTO tenants (handle, did, created_at, created_by) VALUES (?, ?, ?, ?)").run(handle, key.value.did, now, input.by);
    for (const owner of new Set(owners)) statement(db, "INSERT INTO tenant_roles (tenant, did, role, added_at) VALUES (?, ?, 'owner', ?)").run(handle, owner, now);
    // Every tenant has the standard library (std.invoices, …) from its creation.
    installStandardLibrary(db, handle, input.by, now);
    return ok({ handle, did: key.value.did });
  });
}

/**
 * The tenant's key pair, written before its row. A key file without a row is left by a create that
 * did not commit (tenants are never deleted): that key is reused, so the did never changes under it.
 * A replicated create carries the key its proposer made (every voter must hold the same one): that
 * key is written, replacing any left by an earlier attempt.
 */
async function tenantKey(keysDir: string, handle: string, given?: KeyPair): Promise<AdminResult<KeyPair>> {
  const path = tenantKeyPath(keysDir, handle);
  try {
    if (await makeDirs(keysDir)) await chmod(keysDir, 0o700);
  } catch (error) {
    return fail("key_unwritable", `cannot create ${keysDir}: ${(error as Error).message}`);
  }
  const keyPair = given ?? generateKeyPair();
  const saved = await saveKeyFile(path, keyPair, { overwrite: given !== undefined });
  if (saved.ok) return ok(keyPair);
  if (saved.error.code !== "key_file_exists") return fail("key_unwritable", saved.error.message);
  const existing = await loadKeyFile(path);
  return existing.ok ? existing : fail("key_unreadable", existing.error.message);
}

type Role = "owner" | "member";

/** Gives `did` `role` in `tenant`; `added` is false when it already had it. */
export function addRole(db: DatabaseSync, tenant: string, did: string, role: Role, now: number): AdminResult<{ added: boolean }> {
  const bad = checkTenant(db, tenant) ?? checkDid(did);
  if (bad !== null) return bad;
  const result = statement(db, "INSERT OR IGNORE INTO tenant_roles (tenant, did, role, added_at) VALUES (?, ?, ?, ?)").run(tenant, did, role, now);
  return ok({ added: Number(result.changes) > 0 });
}

/** Takes `role` from `did` in `tenant`; the last owner cannot be removed. */
export function removeRole(db: DatabaseSync, tenant: string, did: string, role: Role): AdminResult<{ removed: boolean }> {
  const bad = checkTenant(db, tenant) ?? checkDid(did);
  if (bad !== null) return bad;
  return transaction(db, () => {
    const has = statement(db, "SELECT 1 FROM tenant_roles WHERE tenant = ? AND did = ? AND role = ?").get(tenant, did, role) !== undefined;
    if (!has) return ok({ removed: false });
    if (role === "owner") {
      const { n } = statement(db, "SELECT count(*) AS n FROM tenant_roles WHERE tenant = ? AND role = 'owner'").get(tenant) as { n: number };
      if (n <= 1) return fail("last_owner", `${did} is the last owner of '${tenant}'; add another owner first`);
    }
    statement(db, "DELETE FROM tenant_roles WHERE tenant = ? AND did = ? AND role = ?").run(tenant, did, role);
    return ok({ removed: true });
  });
}

/** `until` as epoch ms: `YYYY-MM-DD` is midnight UTC starting that day; an RFC 3339 date-time as given. */
export function parseUntil(text: string): number | null {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  return date === null ? parseRfc3339(text) : parseRfc3339(`${text}T00:00:00Z`);
}

/** Why `scope` is not a delegation scope, or null. */
export function checkScope(scope: unknown): AdminResult<never> | null {
  if (typeof scope === "string" && SCOPE.test(scope)) return null;
  return fail("bad_scope", `'${String(scope)}' is not a delegation scope: 1–64 characters of A–Z, a–z, 0–9, '_', '.', ':' and '-'`);
}

/** A delegation's end as epoch ms (null for none), or `bad_until` when it does not parse or is not after `now`. */
export function untilOf(text: string | undefined, now: number): AdminResult<number | null> {
  if (text === undefined) return ok(null);
  const until = typeof text === "string" ? parseUntil(text) : null;
  if (until === null) return fail("bad_until", `'${String(text)}' is not a date (YYYY-MM-DD) or an RFC 3339 date-time`);
  if (until <= now) return fail("bad_until", `${text} is already past; a delegation must end in the future`);
  return ok(until);
}

/** Grants (or renews) `did` the delegation `scope` in `tenant`, until `until` if given. */
export function delegate(db: DatabaseSync, input: { tenant: string; did: string; scope: string; until?: string; now: number }): AdminResult<Delegation> {
  const { tenant, did, scope, now } = input;
  const bad = checkTenant(db, tenant) ?? checkDid(did) ?? checkScope(scope);
  if (bad !== null) return bad;
  const ends = untilOf(input.until, now);
  if (!ends.ok) return ends;
  const until = ends.value;
  statement(db, "INSERT INTO delegations (tenant, did, scope, until, added_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant, did, scope) DO UPDATE SET until = excluded.until, added_at = excluded.added_at").run(
    tenant,
    did,
    scope,
    until,
    now,
  );
  return ok({ did, scope, until: until === null ? null : new Date(until).toISOString() });
}

/** An `unknown_tenant` (or `bad_handle`) failure when `tenant` does not exist, else null. */
export function checkTenant(db: DatabaseSync, tenant: string): AdminResult<never> | null {
  if (typeof tenant === "string" && tenantExists(db, tenant)) return null;
  return checkHandle(tenant) ?? fail("unknown_tenant", `no tenant '${tenant}'`);
}
