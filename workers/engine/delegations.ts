/**
 * @module Taking delegations back, on the engine's writer connection: one scope from a did
 * (`tenant-undelegate`), or every scope a did holds in a tenant set to exactly a given list in one
 * transaction (`tenant-delegations-set`: the missing ones granted, the others revoked, all or
 * nothing). Granting one scope is `delegate` (tenants.ts); the checks and codes are the same.
 */
import type { DatabaseSync } from "node:sqlite";
import type { AdminResult, Delegation } from "../../shared/protocol/admin.ts";
import { transaction } from "../../shared/store/open.ts";
import { checkDid, checkScope, checkTenant, fail, ok, statement, untilOf } from "./tenants.ts";

/** The most scopes one did may be given in one `tenant-delegations-set`. */
export const MAX_SCOPES_PER_SET = 64;

/** Takes the delegation `scope` from `did` in `tenant`; `removed` is false when it held none. */
export function undelegate(db: DatabaseSync, input: { tenant: string; did: string; scope: string }): AdminResult<{ removed: boolean }> {
  const { tenant, did, scope } = input;
  const bad = checkTenant(db, tenant) ?? checkDid(did) ?? checkScope(scope);
  if (bad !== null) return bad;
  const result = statement(db, "DELETE FROM delegations WHERE tenant = ? AND did = ? AND scope = ?").run(tenant, did, scope);
  return ok({ removed: Number(result.changes) > 0 });
}

/**
 * Makes `scopes` exactly the delegations `did` holds in `tenant`, each until `until` (no end when
 * absent): every other scope of that did is revoked. Nothing changes unless every part is valid.
 * Answers the did's delegations afterwards, by scope.
 */
export function setDelegations(db: DatabaseSync, input: { tenant: string; did: string; scopes: readonly string[]; until?: string; now: number }): AdminResult<Delegation[]> {
  const { tenant, did, scopes, now } = input;
  const bad = checkTenant(db, tenant) ?? checkDid(did);
  if (bad !== null) return bad;
  if (!Array.isArray(scopes)) return fail("bad_scope", "scopes must be a list of delegation scopes");
  if (scopes.length > MAX_SCOPES_PER_SET) return fail("bad_scope", `at most ${MAX_SCOPES_PER_SET} scopes may be set at once, not ${scopes.length}`);
  for (const scope of scopes) {
    const badScope = checkScope(scope);
    if (badScope !== null) return badScope;
  }
  const ends = untilOf(input.until, now);
  if (!ends.ok) return ends;
  const wanted = new Set(scopes);
  return transaction(db, () => {
    const held = statement(db, "SELECT scope FROM delegations WHERE tenant = ? AND did = ?").all(tenant, did) as { scope: string }[];
    for (const { scope } of held) if (!wanted.has(scope)) statement(db, "DELETE FROM delegations WHERE tenant = ? AND did = ? AND scope = ?").run(tenant, did, scope);
    for (const scope of wanted) {
      statement(db, "INSERT INTO delegations (tenant, did, scope, until, added_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant, did, scope) DO UPDATE SET until = excluded.until, added_at = excluded.added_at").run(
        tenant,
        did,
        scope,
        ends.value,
        now,
      );
    }
    const rows = statement(db, "SELECT scope, until FROM delegations WHERE tenant = ? AND did = ? ORDER BY scope").all(tenant, did) as { scope: string; until: number | null }[];
    return ok(rows.map((r): Delegation => ({ did, scope: r.scope, until: r.until === null ? null : new Date(r.until).toISOString() })));
  });
}
