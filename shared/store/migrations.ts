/**
 * @module Versioned schema migrations of the store. Each migration is SQL applied once; all pending
 * ones run in a single transaction at start. A store written by a newer Charter (its user_version is
 * beyond the newest migration known here) is refused and never modified.
 */
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "./open.ts";

/** One schema step: `version` is the user_version after it runs. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** The store's schema history. Append only; never edit a shipped migration. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: "journal",
    sql: `
      CREATE TABLE journal (
        id INTEGER PRIMARY KEY,
        topic TEXT NOT NULL,
        key TEXT,
        payload TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'ready' CHECK (state IN ('ready', 'claimed', 'done', 'dead')),
        attempts INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL,
        available_at INTEGER NOT NULL,
        claimed_by TEXT,
        lease_until INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        done_at INTEGER
      );
      CREATE UNIQUE INDEX journal_topic_key ON journal (topic, key) WHERE key IS NOT NULL;
      CREATE INDEX journal_pending ON journal (topic, id) WHERE state IN ('ready', 'claimed');
      CREATE INDEX journal_claims ON journal (claimed_by) WHERE state = 'claimed';
      CREATE INDEX journal_leases ON journal (lease_until) WHERE state = 'claimed';
      CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
  {
    version: 2,
    name: "engine",
    sql: `
      CREATE TABLE tenants (
        handle TEXT PRIMARY KEY,
        did TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        created_by TEXT
      );
      CREATE TABLE tenant_roles (
        tenant TEXT NOT NULL REFERENCES tenants (handle),
        did TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
        added_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, did, role)
      );
      CREATE TABLE delegations (
        tenant TEXT NOT NULL REFERENCES tenants (handle),
        did TEXT NOT NULL,
        scope TEXT NOT NULL,
        until INTEGER,
        added_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, did, scope)
      );
      CREATE TABLE artifacts (
        id TEXT PRIMARY KEY,
        namespace TEXT NOT NULL,
        version TEXT NOT NULL,
        schema TEXT NOT NULL,
        wasm BLOB NOT NULL,
        source TEXT NOT NULL,
        stored_at INTEGER NOT NULL
      );
      CREATE TABLE installs (
        tenant TEXT NOT NULL REFERENCES tenants (handle),
        namespace TEXT NOT NULL,
        artifact TEXT NOT NULL REFERENCES artifacts (id),
        status TEXT NOT NULL CHECK (status IN ('active', 'replaced', 'retired')),
        installed_at INTEGER NOT NULL,
        installed_by TEXT,
        PRIMARY KEY (tenant, namespace, artifact)
      );
      CREATE UNIQUE INDEX installs_active ON installs (tenant, namespace) WHERE status = 'active';
      CREATE TABLE history (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        namespace TEXT NOT NULL,
        aggregate TEXT NOT NULL,
        subject TEXT NOT NULL,
        action TEXT NOT NULL,
        signer TEXT NOT NULL,
        artifact TEXT NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('accepted', 'refused')),
        reason TEXT,
        args TEXT NOT NULL,
        command TEXT NOT NULL,
        before_digest TEXT NOT NULL,
        after_digest TEXT NOT NULL,
        receipt TEXT NOT NULL,
        committed_at INTEGER NOT NULL
      );
      CREATE INDEX history_subject ON history (tenant, namespace, aggregate, subject, seq);
      CREATE TABLE idempotency (
        tenant TEXT NOT NULL,
        signer TEXT NOT NULL,
        key TEXT NOT NULL,
        payload_digest TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (tenant, signer, key)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 3,
    name: "replication",
    // A voter of a replicated engine: the last log entry whose effects are in this store, written in
    // the same transaction as those effects (workers/engine/cluster). One-voter stores leave it empty.
    sql: `
      CREATE TABLE replication (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        applied_index INTEGER NOT NULL,
        applied_term INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: "install-ids",
    // Single-use installs: each signed `_install`'s id, spent when the engine applies it,
    // kept while a JWS with that issuedAt could still pass (workers/engine/install-ids.ts prunes).
    sql: `
      CREATE TABLE install_ids (
        signer TEXT NOT NULL,
        id TEXT NOT NULL,
        issued_at INTEGER NOT NULL,
        used_at INTEGER NOT NULL,
        PRIMARY KEY (signer, id)
      ) WITHOUT ROWID;
      CREATE INDEX install_ids_issued ON install_ids (issued_at);
    `,
  },
  {
    version: 5,
    name: "tenant-retired-dids",
    // A tenant's earlier identities: a key rotation (workers/engine/tenant-key-rotate.ts) moves the
    // did it replaces here, with when it became and stopped being the tenant's. Tenants made
    // before this table have no row until their first rotation.
    sql: `
      CREATE TABLE tenant_retired_dids (
        tenant TEXT NOT NULL REFERENCES tenants (handle),
        did TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        retired_at INTEGER NOT NULL,
        retired_by TEXT,
        PRIMARY KEY (tenant, did)
      );
      CREATE INDEX tenant_retired_dids_order ON tenant_retired_dids (tenant, retired_at);
    `,
  },
  {
    version: 6,
    name: "journal-results",
    // What finishing an entry produced (an effect's signed receipt, shared/journal.ts `complete`),
    // and an index to list one topic's entries by state (the outbox's pending, done and dead lists).
    sql: `
      ALTER TABLE journal ADD COLUMN result TEXT;
      CREATE INDEX journal_topic_state ON journal (topic, state, id);
    `,
  },
  {
    version: 7,
    name: "tenant-effects",
    // Which contract-declared effects a tenant has switched on (JSON, workers/engine/contract-effects.ts);
    // NULL, the default, is none: its contracts' `effect` clauses queue nothing.
    sql: `
      ALTER TABLE tenants ADD COLUMN effects TEXT;
    `,
  },
  {
    version: 8,
    name: "sync",
    // Paired devices (workers/engine/merge): the tenants whose commands sync, every synced command
    // with its origin's stamp (origin, per-origin sequence, Lamport time, what the origin had seen)
    // and the outcome the merged order gives it here, the conflicts of \`merge reject\` actions, and
    // the devices revoked by the person's root key.
    sql: `
      CREATE TABLE sync_tenants (
        tenant TEXT PRIMARY KEY,
        since INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE sync_entries (
        tenant TEXT NOT NULL,
        origin TEXT NOT NULL,
        oseq INTEGER NOT NULL,
        lamport INTEGER NOT NULL,
        digest TEXT NOT NULL,
        namespace TEXT NOT NULL,
        aggregate TEXT NOT NULL,
        subject TEXT NOT NULL,
        action TEXT NOT NULL,
        time INTEGER NOT NULL,
        seen TEXT NOT NULL,
        first_outcome TEXT NOT NULL CHECK (first_outcome IN ('accepted', 'refused')),
        first_reason TEXT,
        jws TEXT NOT NULL,
        stamp TEXT NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('accepted', 'refused')),
        reason TEXT,
        seq INTEGER NOT NULL,
        PRIMARY KEY (tenant, origin, oseq)
      ) WITHOUT ROWID;
      CREATE INDEX sync_entries_order ON sync_entries (tenant, lamport, origin, oseq);
      CREATE INDEX sync_entries_subject ON sync_entries (tenant, namespace, aggregate, subject, lamport, origin, oseq);
      CREATE TABLE sync_conflicts (
        id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        namespace TEXT NOT NULL,
        aggregate TEXT NOT NULL,
        subject TEXT NOT NULL,
        action TEXT NOT NULL,
        signer TEXT NOT NULL,
        args TEXT NOT NULL,
        against TEXT NOT NULL,
        origin TEXT NOT NULL,
        oseq INTEGER NOT NULL,
        at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX sync_conflicts_tenant ON sync_conflicts (tenant, at);
      CREATE TABLE sync_revoked (
        tenant TEXT NOT NULL,
        device TEXT NOT NULL,
        statement TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (tenant, device)
      ) WITHOUT ROWID;
    `,
  },
];

/** Thrown when the store was written by a newer version: the caller prints it and exits. */
export class StoreTooNewError extends Error {
  readonly storeVersion: number;
  readonly knownVersion: number;
  constructor(storeVersion: number, knownVersion: number) {
    super(
      `the store was written by a newer Charter (schema version ${storeVersion}, this one knows up to ${knownVersion}); ` +
        "upgrade Charter or use another data directory — the store was not modified",
    );
    this.storeVersion = storeVersion;
    this.knownVersion = knownVersion;
  }
}

/** The schema version a store is at (0 for a new file). */
export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
  return row.user_version;
}

/** Throws StoreTooNewError when the store's schema is newer than `list` knows; changes nothing. */
export function assertNotNewer(db: DatabaseSync, list: readonly Migration[] = migrations): void {
  const newest = list.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > newest) throw new StoreTooNewError(current, newest);
}

/** Applies every pending migration in one transaction; returns the versions applied. */
export function migrate(db: DatabaseSync, list: readonly Migration[] = migrations): number[] {
  assertNotNewer(db, list);
  const newest = list.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  const pending = list.filter((m) => m.version > current);
  if (pending.length === 0) return [];
  transaction(db, () => {
    for (const m of pending) db.exec(m.sql);
    db.exec(`PRAGMA user_version = ${newest}`);
  });
  return pending.map((m) => m.version);
}
