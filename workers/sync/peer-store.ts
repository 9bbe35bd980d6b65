/**
 * @module What the sync worker keeps in `DATA/sync.db` (its only writer): the tenant that syncs,
 * the paired devices with their pinned did:keys (and, for the home node a device dials, its URL),
 * what each held at the last contact, and the live pairing code (only its SHA-256, with its expiry
 * and the wrong attempts made against it).
 */
import { hash, randomInt } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import { normalCode, type PeerRow } from "../../shared/devices/peer-protocol.ts";
import type { VersionVector } from "../../shared/devices/entries.ts";

const DDL = `
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS peers (
  did TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('home', 'device')),
  url TEXT,
  paired_at INTEGER NOT NULL,
  revoked_at INTEGER,
  last_contact INTEGER,
  last_error TEXT,
  their_vv TEXT
) STRICT;
CREATE TABLE IF NOT EXISTS pair_codes (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  hash TEXT NOT NULL,
  tenant TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  wrong INTEGER NOT NULL DEFAULT 0
) STRICT;
`;

/** A pairing code lives this long. */
export const CODE_TTL_MS = 10 * 60_000;
/** Wrong codes tried against the live one before it is burnt. */
export const CODE_ATTEMPTS = 5;
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

const codeHash = (code: string) => hash("sha256", `charter-pair-code\n${normalCode(code)}`, "hex");

export class PeerStore {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    db.exec(DDL);
  }

  tenant(): string | null {
    return (this.#db.prepare("SELECT value FROM settings WHERE key = 'tenant'").get() as { value: string } | undefined)?.value ?? null;
  }

  setTenant(tenant: string): void {
    this.#db.prepare("INSERT INTO settings (key, value) VALUES ('tenant', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(tenant);
  }

  peers(): PeerRow[] {
    return this.#db.prepare("SELECT * FROM peers ORDER BY paired_at, did").all() as unknown as PeerRow[];
  }

  peer(did: string): PeerRow | null {
    return (this.#db.prepare("SELECT * FROM peers WHERE did = ?").get(did) as unknown as PeerRow | undefined) ?? null;
  }

  /** Pins a device (or the home node this one joined); a revoked one stays revoked. */
  pin(did: string, name: string, role: "home" | "device", url: string | null, now: number): void {
    this.#db
      .prepare("INSERT INTO peers (did, name, role, url, paired_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (did) DO UPDATE SET name = excluded.name, url = excluded.url")
      .run(did, name, role, url, now);
  }

  revoke(did: string, now: number): boolean {
    const r = this.#db.prepare("UPDATE peers SET revoked_at = ? WHERE did = ? AND revoked_at IS NULL").run(now, did);
    return Number(r.changes) > 0;
  }

  contact(did: string, now: number, theirs: VersionVector | null, error: string | null): void {
    if (error !== null) this.#db.prepare("UPDATE peers SET last_error = ? WHERE did = ?").run(error.slice(0, 500), did);
    else this.#db.prepare("UPDATE peers SET last_contact = ?, last_error = NULL, their_vv = coalesce(?, their_vv) WHERE did = ?").run(now, theirs === null ? null : JSON.stringify(theirs), did);
  }

  /** A new pairing code for `tenant`, replacing any live one. */
  newCode(tenant: string, now: number): { code: string; expiresAt: number } {
    let raw = "";
    for (let i = 0; i < 8; i++) raw += ALPHABET[randomInt(ALPHABET.length)];
    const code = `${raw.slice(0, 4)}-${raw.slice(4)}`;
    const expiresAt = now + CODE_TTL_MS;
    this.#db.prepare("INSERT OR REPLACE INTO pair_codes (id, hash, tenant, expires_at, wrong) VALUES (1, ?, ?, ?, 0)").run(codeHash(code), tenant, expiresAt);
    return { code, expiresAt };
  }

  /**
   * Spends the live code when `code` is it: answers its tenant. A wrong code counts against the live
   * one (burnt after CODE_ATTEMPTS); an expired one is gone.
   */
  spendCode(code: string, now: number): { ok: true; tenant: string } | { ok: false; why: "none" | "expired" | "wrong" | "burnt" } {
    const row = this.#db.prepare("SELECT hash, tenant, expires_at, wrong FROM pair_codes WHERE id = 1").get() as { hash: string; tenant: string; expires_at: number; wrong: number } | undefined;
    if (row === undefined) return { ok: false, why: "none" };
    if (row.expires_at <= now) {
      this.#db.exec("DELETE FROM pair_codes");
      return { ok: false, why: "expired" };
    }
    if (row.hash !== codeHash(code)) {
      if (row.wrong + 1 >= CODE_ATTEMPTS) {
        this.#db.exec("DELETE FROM pair_codes");
        return { ok: false, why: "burnt" };
      }
      this.#db.prepare("UPDATE pair_codes SET wrong = wrong + 1").run();
      return { ok: false, why: "wrong" };
    }
    this.#db.exec("DELETE FROM pair_codes");
    return { ok: true, tenant: row.tenant };
  }
}
