/**
 * @module The admin operations, one per admin request type, over a writer connection: the engine
 * serves them on `DATA/admin.sock`, and the `charter` commands run the very same functions on the
 * store themselves when no node holds the data directory — so the answer is the same either way.
 * Every change (a tenant, its key, members, owners and delegations; an install, upgrade, retirement
 * or restore) is logged when it happens, and so is an install refused, with its code.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Clock } from "../../shared/clock.ts";
import type { KeyPair } from "../../shared/identity/index.ts";
import { type Logger, silentLogger } from "../../shared/log.ts";
import type { Handlers } from "../../shared/channel/channel.ts";
import type { AdminRequests, AdminResult, ArtifactWire, Installed } from "../../shared/protocol/admin.ts";
import { installArtifact } from "./install.ts";
import { tenantCollections } from "../../shared/store/collections.ts";
import { restoreNamespace, retireNamespace } from "./retire.ts";
import { setDelegations, undelegate } from "./delegations.ts";
import { describeTenant, listContracts, listTenants } from "./tenant-views.ts";
import { addRole, checkTenant, createTenant, delegate, fail, ok, removeRole, rolesOf } from "./tenants.ts";
import { rotateTenantKey } from "./tenant-key-rotate.ts";

export interface AdminDeps {
  /** The store's writer connection. */
  readonly db: DatabaseSync;
  /** `DATA/keys`, where tenant identity keys are written. */
  readonly keysDir: string;
  readonly clock: Clock;
  /** Called after an install changed the active artifact of a tenant's namespace (the engine drops its cached lookup). */
  readonly onInstalled?: (tenant: string, namespace: string) => void;
  /** Runs an install between command batches (the engine's command processor); inline when absent. */
  readonly exclusive?: <T>(fn: () => T) => Promise<T>;
  /** A replicated voter applying a `tenant-create` or `tenant-key-rotate`: the key its proposer made, the same on every voter. */
  readonly tenantKey?: () => KeyPair | undefined;
  /** Where changes are logged (the engine's log; none when a command runs offline). */
  readonly log?: Logger;
}

/** One handler per request type; the record type makes a new request type break the build until handled. */
export type AdminHandlers = Handlers<AdminRequests>;

/** The admin operations bound to a store. */
export function adminHandlers(deps: AdminDeps): AdminHandlers {
  const { db, keysDir, clock, onInstalled } = deps;
  const exclusive = deps.exclusive ?? (<T>(fn: () => T) => Promise.resolve(fn()));
  const log = deps.log ?? silentLogger;
  /** Logs `msg` with the fields of a result that changed something (`fields` gives null when nothing changed). */
  const logged = <T>(result: AdminResult<T>, msg: string, fields: (value: T) => Record<string, unknown> | null): AdminResult<T> => {
    const line = result.ok ? fields(result.value) : null;
    if (line !== null) log.info(msg, line);
    return result;
  };
  /** Tells the engine a namespace's active artifact changed, when it did. */
  const changed = <T>(r: { tenant: string; namespace: string }, result: AdminResult<T>): AdminResult<T> => {
    if (result.ok) onInstalled?.(r.tenant, r.namespace);
    return result;
  };
  // Key rotations one at a time: each writes the tenant's `.next` key file between its awaits.
  let rotations: Promise<unknown> = Promise.resolve();
  return {
    "tenant-create": (r) => {
      const key = deps.tenantKey?.();
      const created = createTenant(db, { handle: r.handle, owners: r.owners, by: r.by ?? null, keysDir, now: clock.now(), ...(key ? { key } : {}) });
      return created.then((result) => logged(result, "tenant created", (t) => ({ tenant: t.handle, did: t.did, owners: r.owners })));
    },
    "tenant-key-rotate": (r) => {
      const key = deps.tenantKey?.();
      const rotated = rotations.then(() => rotateTenantKey(db, { tenant: r.tenant, by: r.by ?? null, keysDir, now: clock.now(), ...(key ? { key } : {}) }));
      rotations = rotated.catch(() => undefined);
      return rotated.then((result) => logged(result, "tenant key rotated", (t) => ({ tenant: t.handle, did: t.did, previous: t.previous.did })));
    },
    "tenant-member-add": (r) => logged(addRole(db, r.tenant, r.did, "member", clock.now()), "member added", (v) => (v.added ? { tenant: r.tenant, did: r.did } : null)),
    "tenant-member-remove": (r) => logged(removeRole(db, r.tenant, r.did, "member"), "member removed", (v) => (v.removed ? { tenant: r.tenant, did: r.did } : null)),
    "tenant-owner-add": (r) => logged(addRole(db, r.tenant, r.did, "owner", clock.now()), "owner added", (v) => (v.added ? { tenant: r.tenant, did: r.did } : null)),
    "tenant-owner-remove": (r) => logged(removeRole(db, r.tenant, r.did, "owner"), "owner removed", (v) => (v.removed ? { tenant: r.tenant, did: r.did } : null)),
    "tenant-delegate": (r) =>
      logged(delegate(db, { tenant: r.tenant, did: r.did, scope: r.scope, until: r.until, now: clock.now() }), "delegated", (d) => ({ tenant: r.tenant, did: d.did, scope: d.scope, until: d.until })),
    "tenant-undelegate": (r) => logged(undelegate(db, r), "undelegated", (v) => (v.removed ? { tenant: r.tenant, did: r.did, scope: r.scope } : null)),
    "tenant-delegations-set": (r) =>
      logged(setDelegations(db, { tenant: r.tenant, did: r.did, scopes: r.scopes, until: r.until, now: clock.now() }), "delegations set", (d) => ({ tenant: r.tenant, did: r.did, scopes: d.map((x) => x.scope) })),
    "tenant-describe": (r) => describeTenant(db, r.tenant),
    "tenant-list": () => ok(listTenants(db)),
    "tenant-roles": (r) => checkTenant(db, r.tenant) ?? ok(rolesOf(db, r.tenant, r.did, clock.now())),
    install: (r) =>
      exclusive(() => {
        const result = install(db, r, clock.now());
        if (result.ok && !result.value.unchanged) onInstalled?.(r.tenant, result.value.namespace);
        logInstall(log, r, result);
        return result;
      }),
    "contracts-list": (r) => listContracts(db, r.tenant),
    "contract-retire": (r) =>
      exclusive(() => logged(changed(r, checkTenant(db, r.tenant) ?? retireNamespace(db, r.tenant, r.namespace)), "retired", (v) => ({ tenant: r.tenant, namespace: r.namespace, artifact: v.artifact }))),
    "contract-restore": (r) =>
      exclusive(() => logged(changed(r, checkTenant(db, r.tenant) ?? restoreNamespace(db, r.tenant, r.namespace)), "restored", (v) => ({ tenant: r.tenant, namespace: r.namespace, artifact: v.artifact }))),
    collections: (r) => checkTenant(db, r.tenant) ?? ok(tenantCollections(db, r.tenant)),
    "artifact-schema": (r) => {
      const row = db.prepare("SELECT schema FROM artifacts WHERE id = ?").get(r.id) as { schema: string } | undefined;
      return row === undefined ? fail("unknown_artifact", `no artifact ${r.id} is stored`) : ok({ schemaJson: row.schema });
    },
  };
}

function install(db: DatabaseSync, r: AdminRequests["install"]["request"], now: number): AdminResult<Installed> {
  const bad = checkTenant(db, r.tenant) ?? checkArtifact(r.artifact);
  if (bad !== null) return bad;
  if (r.requireOwner === true && (r.by === null || !rolesOf(db, r.tenant, r.by, now).owner)) {
    return fail("not_owner", `${r.by ?? "the caller"} is not an owner of '${r.tenant}'; only owners install contracts`);
  }
  const { id, schemaJson, source } = r.artifact;
  const result = installArtifact(db, { tenant: r.tenant, artifact: { id, schemaJson, source, wasm: Buffer.from(r.artifact.wasm, "base64") }, installedBy: r.by, now, signed: r.signed });
  return result.ok ? ok({ ...result.value }) : fail(result.error.code, result.error.message);
}

/** An install's line: `installed`, `upgraded` (with what it replaced and how many records moved), or `install refused` with its code. */
function logInstall(log: Logger, r: AdminRequests["install"]["request"], result: AdminResult<Installed>): void {
  const artifact = typeof r.artifact?.id === "string" ? r.artifact.id : null;
  if (!result.ok) return log.info("install refused", { tenant: r.tenant, artifact, code: result.error.code });
  const { namespace, version, unchanged, replaced, migrated } = result.value;
  if (unchanged) return log.info("install unchanged", { tenant: r.tenant, namespace, artifact, version });
  if (replaced) return log.info("upgraded", { tenant: r.tenant, namespace, artifact, version, replaced, migrated });
  log.info("installed", { tenant: r.tenant, namespace, artifact, version, by: r.by });
}

function checkArtifact(a: ArtifactWire | undefined): AdminResult<never> | null {
  const wellFormed =
    typeof a === "object" && a !== null && typeof a.id === "string" && typeof a.schemaJson === "string" && typeof a.wasm === "string" && typeof a.source === "string";
  return wellFormed ? null : fail("bad_artifact", "an artifact is {id, schemaJson, wasm (base64), source}, all strings");
}
