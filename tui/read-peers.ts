/**
 * @module The Connect view's paired devices and exchange relationships, read from what the node
 * keeps: the sync worker's `DATA/sync.db` (`peers`, and the synced tenant in `settings`), the
 * synced tenant's version vector in `DATA/charter.db` (`sync_entries`), and the gateway's
 * `DATA/accounts.db` (`exchange_relationships`). Every file is opened read-only as the store is
 * (nothing is created beside it); a missing file or table reads as none.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import type { PeerRow } from "../shared/devices/peer-protocol.ts";
import { openReadOnly } from "./open-store.ts";

/** A device paired with this node (or the home node this device dials), as `sync.db` keeps it. */
export interface PairedDevice {
  readonly did: string;
  readonly name: string;
  readonly role: "home" | "device";
  readonly url: string | null;
  /** ms since the epoch. */
  readonly pairedAt: number;
  readonly revokedAt: number | null;
  readonly lastContact: number | null;
  readonly lastError: string | null;
  /** Commands the device holds that this node lacks, and the reverse; null before a first contact. */
  readonly pendingIn: number | null;
  readonly pendingOut: number | null;
}

/** Another person's node this node exchanges documents with, as `accounts.db` keeps it. */
export interface ExchangeRelationship {
  readonly did: string;
  readonly name: string;
  readonly url: string;
  readonly addedAt: number;
  readonly lastContact: number | null;
  readonly lastError: string | null;
}

export interface Peers {
  readonly devices: readonly PairedDevice[];
  readonly relationships: readonly ExchangeRelationship[];
}

export const noPeers: Peers = Object.freeze({ devices: [], relationships: [] });

type VersionVector = Record<string, number>;

/** Reads the paired devices and relationships; `nodeRunning` says whether a live node holds the directory. */
export function readPeers(dataDir: string, nodeRunning: boolean): Peers {
  return { devices: readDevices(dataDir, nodeRunning), relationships: readRelationships(dataDir, nodeRunning) };
}

function readDevices(dataDir: string, nodeRunning: boolean): PairedDevice[] {
  const sync = query(dataDir, "sync.db", nodeRunning, (db) => {
    if (!hasTable(db, "peers")) return null;
    const rows = db.prepare("SELECT did, name, role, url, paired_at, revoked_at, last_contact, last_error, their_vv FROM peers ORDER BY paired_at, did").all() as unknown as PeerRow[];
    const tenant = hasTable(db, "settings") ? ((db.prepare("SELECT value FROM settings WHERE key = 'tenant'").get() as { value: string } | undefined)?.value ?? null) : null;
    return { rows, tenant };
  });
  if (sync === null || sync.rows.length === 0) return [];
  const tenant = sync.tenant;
  const mine: VersionVector =
    tenant === null
      ? {}
      : (query(dataDir, "charter.db", nodeRunning, (db) => {
          if (!hasTable(db, "sync_entries")) return null;
          const vv: VersionVector = {};
          for (const r of db.prepare("SELECT origin, max(oseq) AS top FROM sync_entries WHERE tenant = ? GROUP BY origin").all(tenant) as unknown as { origin: string; top: number }[]) vv[r.origin] = r.top;
          return vv;
        }) ?? {});
  return sync.rows.map((r): PairedDevice => {
    const theirs = parseVector(r.their_vv);
    return {
      did: r.did,
      name: r.name,
      role: r.role === "home" ? "home" : "device",
      url: r.url,
      pairedAt: r.paired_at,
      revokedAt: r.revoked_at,
      lastContact: r.last_contact,
      lastError: r.last_error,
      pendingIn: theirs === null ? null : ahead(theirs, mine),
      pendingOut: theirs === null ? null : ahead(mine, theirs),
    };
  });
}

function readRelationships(dataDir: string, nodeRunning: boolean): ExchangeRelationship[] {
  return (
    query(dataDir, "accounts.db", nodeRunning, (db) => {
      if (!hasTable(db, "exchange_relationships")) return null;
      const rows = db.prepare("SELECT did, name, url, added_at, last_contact, last_error FROM exchange_relationships ORDER BY added_at, did").all() as unknown as RelationshipRow[];
      return rows.map((r) => ({ did: r.did, name: r.name, url: r.url, addedAt: r.added_at, lastContact: r.last_contact, lastError: r.last_error }));
    }) ?? []
  );
}

interface RelationshipRow {
  did: string;
  name: string;
  url: string;
  added_at: number;
  last_contact: number | null;
  last_error: string | null;
}

/**
 * Runs `read` on `DATA/file` opened read-only, null when the file does not exist. While the node
 * runs, a file is read live only when its WAL files exist (a worker holds it open); otherwise a
 * plain connection would create them, so it is read as a stopped file is.
 */
function query<T>(dataDir: string, file: string, nodeRunning: boolean, read: (db: DatabaseSync) => T | null): T | null {
  const path = join(dataDir, file);
  const live = nodeRunning && existsSync(`${path}-wal`) && existsSync(`${path}-shm`);
  const opened = openReadOnly(path, live);
  if (opened === null) return null;
  try {
    return read(opened.db);
  } finally {
    opened.close();
  }
}

function hasTable(db: DatabaseSync, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

function parseVector(text: string | null): VersionVector | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
    return Object.fromEntries(Object.entries(v).filter((e): e is [string, number] => typeof e[1] === "number" && Number.isFinite(e[1])));
  } catch {
    return null;
  }
}

/** How many commands `a` holds that `b` lacks (per origin, the count past `b`'s). */
function ahead(a: VersionVector, b: VersionVector): number {
  let n = 0;
  for (const [origin, top] of Object.entries(a)) n += Math.max(0, top - (b[origin] ?? 0));
  return n;
}
