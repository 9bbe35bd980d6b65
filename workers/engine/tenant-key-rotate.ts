/**
 * @module Rotating a tenant's key: a new Ed25519 key pair becomes the tenant's, its did the
 * tenant's did; the old key is kept as a retired key file and its did in `tenant_retired_dids`.
 *
 * The order, so that a crash at any point leaves either the old key current (its did in
 * `tenants`) or the new one — never a did in `tenants` without its key on disk:
 *
 *   1. the new key is written to `tenant-<h>.next.jwk` (fsynced; one left by an attempt that did
 *      not commit is replaced);
 *   2. the current key is copied to `tenant-<h>.retired-<n>.jwk`, n = the tenant's retired dids + 1
 *      (never overwritten: one already there must hold that same key, left by such an attempt);
 *   3. one transaction records the old did as retired and puts the new did in `tenants` — the
 *      commit point, fsynced even where the store otherwise commits without (a voter's);
 *   4. `.next.jwk` is renamed over `tenant-<h>.jwk` (atomic), and the directory fsynced.
 *
 * A crash before 3 leaves the old did with its key in place; the `.next` key is removed when the
 * engine next opens the store (`finishKeyRotations`), and a retired copy of the still-current key
 * is harmless (the next rotation reuses it). A crash between 3 and 4 leaves the new did with its
 * key in `.next.jwk`: the engine renames it into place when it next opens the store. On a
 * replicated engine every voter applies the same entry with the key its proposer made; an entry
 * applied again after a crash finds that key's did already in `tenants` and only finishes step 4.
 */
import { open, readdir, rename, rm } from "node:fs/promises";
import type { DatabaseSync } from "node:sqlite";
import { loadKeyFile, saveKeyFile } from "../../shared/identity/key-file.ts";
import { generateKeyPair, type KeyPair } from "../../shared/identity/key-pair.ts";
import type { AdminResult, RetiredDid, TenantKeyRotated } from "../../shared/protocol/admin.ts";
import { transaction } from "../../shared/store/open.ts";
import { nextKeyPath, parseTenantKeyFile, retiredKeyPath, tenantKeyPath } from "./tenant-key-files.ts";
import { checkTenant, fail, ok, statement } from "./tenants.ts";

export interface RotateInput {
  readonly tenant: string;
  readonly by: string | null;
  readonly keysDir: string;
  readonly now: number;
  /** A replicated rotation: the key its proposer made, the same on every voter. */
  readonly key?: KeyPair;
}

/** Gives `tenant` a new key pair; answers its new did and the one retired. */
export async function rotateTenantKey(db: DatabaseSync, input: RotateInput): Promise<AdminResult<TenantKeyRotated>> {
  const { tenant, keysDir, now } = input;
  const bad = checkTenant(db, tenant);
  if (bad !== null) return bad;
  const current = didOf(db, tenant);
  if (input.key !== undefined && input.key.did === current) return applied(db, keysDir, tenant, current);

  const old = await loadKeyFile(tenantKeyPath(keysDir, tenant));
  if (!old.ok) return fail("key_unreadable", old.error.message);
  if (old.value.did !== current) return fail("key_mismatch", `${tenantKeyPath(keysDir, tenant)} holds ${old.value.did}, not ${current}, the did of '${tenant}'`);
  const key = input.key ?? generateKeyPair();

  // 1. The new key beside the current one.
  const next = nextKeyPath(keysDir, tenant);
  const written = await saveKeyFile(next, key, { overwrite: true });
  if (!written.ok) return fail("key_unwritable", written.error.message);
  // 2. The current key kept under its retired name.
  const n = retiredCount(db, tenant) + 1;
  const kept = await keepRetired(retiredKeyPath(keysDir, tenant, n), old.value);
  if (!kept.ok) {
    await rm(next, { force: true });
    return kept;
  }
  // 3. The commit point, durable before the rename (a voter's store otherwise commits without an fsync).
  const committed = durably(db, () => transaction(db, (): AdminResult<RetiredDid> => {
    // Rotations of one store run one at a time (admin-ops.ts); this keeps the invariant if not.
    if (didOf(db, tenant) !== current) return fail("rotation_conflict", `the did of '${tenant}' changed during the rotation; rotate again`);
    const since = statement(db, "SELECT max(retired_at) AS at FROM tenant_retired_dids WHERE tenant = ?").get(tenant) as { at: number | null };
    const created = since.at ?? (statement(db, "SELECT created_at FROM tenants WHERE handle = ?").get(tenant) as { created_at: number }).created_at;
    statement(db, "INSERT INTO tenant_retired_dids (tenant, did, created_at, retired_at, retired_by) VALUES (?, ?, ?, ?, ?)").run(tenant, current, created, now, input.by);
    statement(db, "UPDATE tenants SET did = ? WHERE handle = ?").run(key.did, tenant);
    return ok({ did: current, retiredAt: new Date(now).toISOString() });
  }));
  if (!committed.ok) {
    await rm(next, { force: true });
    return committed;
  }
  // 4. The new key in place.
  const placed = await promote(keysDir, tenant);
  if (!placed.ok) return placed;
  return ok({ handle: tenant, did: key.did, previous: committed.value });
}

/** What a leftover `.next` key file became when the store was opened. */
export interface RotationRecovery {
  readonly tenant: string;
  readonly did: string | null;
  /** `finished`: its did is the tenant's, it was put in place; `undone`: it was not committed, it was removed; `kept`: unreadable, left for the operator. */
  readonly outcome: "finished" | "undone" | "kept";
  readonly reason?: string;
}

/**
 * Finishes or undoes the rotations a crash interrupted: each `tenant-<h>.next.jwk` whose did is the
 * tenant's did in the store is renamed into place (its commit happened), any other is removed (it
 * did not). Run where nothing else writes `keysDir`: when the engine (or an offline command) opens
 * the store, before any request.
 */
export async function finishKeyRotations(db: DatabaseSync, keysDir: string): Promise<RotationRecovery[]> {
  const names = await readdir(keysDir).catch(() => [] as string[]);
  const done: RotationRecovery[] = [];
  for (const name of names) {
    const file = parseTenantKeyFile(name);
    if (file === null || file.kind !== "next") continue;
    const path = nextKeyPath(keysDir, file.handle);
    const key = await loadKeyFile(path);
    if (!key.ok) {
      done.push({ tenant: file.handle, did: null, outcome: "kept", reason: key.error.message });
      continue;
    }
    const row = statement(db, "SELECT did FROM tenants WHERE handle = ?").get(file.handle) as { did: string } | undefined;
    if (row?.did === key.value.did) {
      const placed = await promote(keysDir, file.handle);
      done.push(placed.ok ? { tenant: file.handle, did: key.value.did, outcome: "finished" } : { tenant: file.handle, did: key.value.did, outcome: "kept", reason: placed.error.message });
    } else {
      await rm(path, { force: true });
      await syncDirectory(keysDir);
      done.push({ tenant: file.handle, did: key.value.did, outcome: "undone" });
    }
  }
  return done;
}

/** The dids rotations took from `tenant`, newest first, at most `limit`. */
export function retiredDids(db: DatabaseSync, tenant: string, limit = 20): RetiredDid[] {
  const rows = statement(db, "SELECT did, retired_at FROM tenant_retired_dids WHERE tenant = ? ORDER BY retired_at DESC, rowid DESC LIMIT ?").all(tenant, limit) as { did: string; retired_at: number }[];
  return rows.map((r) => ({ did: r.did, retiredAt: new Date(r.retired_at).toISOString() }));
}

function didOf(db: DatabaseSync, tenant: string): string {
  return (statement(db, "SELECT did FROM tenants WHERE handle = ?").get(tenant) as { did: string }).did;
}

function retiredCount(db: DatabaseSync, tenant: string): number {
  return (statement(db, "SELECT count(*) AS n FROM tenant_retired_dids WHERE tenant = ?").get(tenant) as { n: number }).n;
}

/**
 * A replicated rotation applied a second time (the voter stopped after its commit, before it
 * recorded the entry as applied): its did is already the tenant's; only the rename may be left.
 */
async function applied(db: DatabaseSync, keysDir: string, tenant: string, did: string): Promise<AdminResult<TenantKeyRotated>> {
  const previous = retiredDids(db, tenant, 1)[0];
  if (previous === undefined) return fail("key_mismatch", `the rotation's key is already the did of '${tenant}', which was never rotated`);
  const next = await loadKeyFile(nextKeyPath(keysDir, tenant));
  if (next.ok && next.value.did === did) {
    const placed = await promote(keysDir, tenant);
    if (!placed.ok) return placed;
  }
  return ok({ handle: tenant, did, previous });
}

/** Writes the retired copy of `key`, never replacing another key: an identical copy already there is kept. */
async function keepRetired(path: string, key: KeyPair): Promise<AdminResult<void>> {
  const saved = await saveKeyFile(path, key);
  if (saved.ok) return ok(undefined);
  if (saved.error.code !== "key_file_exists") return fail("key_unwritable", saved.error.message);
  const there = await loadKeyFile(path);
  if (there.ok && there.value.did === key.did) return ok(undefined);
  return fail("key_conflict", `${path} already holds ${there.ok ? there.value.did : "an unreadable key"}; refusing to replace a retired key`);
}

/** Step 4: the `.next` key becomes the current key file. */
async function promote(keysDir: string, tenant: string): Promise<AdminResult<void>> {
  try {
    await rename(nextKeyPath(keysDir, tenant), tenantKeyPath(keysDir, tenant));
    await syncDirectory(keysDir);
    return ok(undefined);
  } catch (error) {
    return fail("key_unwritable", `the rotation of '${tenant}' is committed but its key could not be put in place (${(error as Error).message}); the engine does it when it next starts`);
  }
}

/** Runs `fn` with `synchronous = FULL`, so its commit is on disk when it returns. */
function durably<T>(db: DatabaseSync, fn: () => T): T {
  const { synchronous } = db.prepare("PRAGMA synchronous").get() as { synchronous: number };
  if (synchronous >= 2) return fn();
  db.exec("PRAGMA synchronous = FULL");
  try {
    return fn();
  } finally {
    db.exec(`PRAGMA synchronous = ${synchronous}`);
  }
}

/** Makes a rename or removal in `dir` durable. */
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === "win32") return; // directories cannot be opened for fsync there
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
