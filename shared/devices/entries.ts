/**
 * @module What paired devices exchange: synced commands, each the person's signed command with its
 * origin's stamp — which device first committed it (`origin`, a node did:key), its place in that
 * device's sequence (`oseq`, 1, 2, …), its Lamport time, the command's time there (`context.time`),
 * what the device had seen when it committed it (a version vector), and the outcome it got there.
 * The stamp is signed by the origin's node key, so a device can relay another's commands but not
 * alter one. Every device orders the same set the same way (Lamport time, then origin, then oseq:
 * a total order that respects what each device had seen), so every device that holds the same
 * commands decides each the same way.
 */
import { hash } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { base64urlDecode, base64urlEncode } from "../identity/base64url.ts";
import { parseCommand, type CommandPayload, isDidKey, publicKeyFromDidKey, type RefusalReason } from "../identity/index.ts";
import { ed25519Sign, ed25519Verify, SIGNATURE_BYTES } from "../identity/sodium.ts";
import { fail, ok, type Result } from "../result.ts";

/** For each origin, the highest `oseq` held (every lower one is held too). */
export type VersionVector = Readonly<Record<string, number>>;

/** One synced command as devices send it. */
export interface SyncEntry {
  readonly origin: string;
  readonly oseq: number;
  readonly lamport: number;
  /** The command's time at its origin (ms): its `context.time` everywhere. */
  readonly time: number;
  /** What the origin held when it committed the command. */
  readonly seen: VersionVector;
  /** The outcome the command got at its origin. */
  readonly outcome: "accepted" | "refused";
  readonly reason: RefusalReason | null;
  /** The person's signed command (compact JWS). */
  readonly jws: string;
  /** The origin's Ed25519 signature (base64url) over `stampText`. */
  readonly stamp: string;
}

/** A synced command whose stamp and command signature verified: what the engine applies. */
export interface VerifiedEntry extends SyncEntry {
  readonly digest: string;
  readonly signer: string;
  readonly payload: CommandPayload;
}

/** The most origins a version vector names (devices of one person, and those they relayed). */
export const MAX_ORIGINS = 64;
/** The largest command a synced entry carries (characters of its JWS). */
export const MAX_ENTRY_JWS = 256 * 1024;

/** The text an origin signs for one entry: every field but the stamp, in a fixed order. */
export function stampText(tenant: string, e: Omit<SyncEntry, "stamp" | "jws">, digest: string): string {
  const seen = Object.keys(e.seen)
    .sort()
    .map((k) => `${k}=${e.seen[k]}`)
    .join(",");
  return ["charter-sync-entry/1", tenant, e.origin, e.oseq, e.lamport, e.time, seen, e.outcome, e.reason === null ? "" : JSON.stringify(e.reason), digest].join("\n");
}

/** Signs an entry's stamp with the origin's node key. */
export function signStamp(tenant: string, e: Omit<SyncEntry, "stamp" | "jws">, digest: string, secretKey: Uint8Array): string {
  return base64urlEncode(ed25519Sign(Buffer.from(stampText(tenant, e, digest)), secretKey));
}

/** The SHA-256 of a compact JWS (a command, an exchange request), in hex. */
export const jwsDigest = (jws: string): string => hash("sha256", jws, "hex");

/** The merged order: Lamport time, then origin, then its sequence. */
export function compareEntries(a: Pick<SyncEntry, "lamport" | "origin" | "oseq">, b: Pick<SyncEntry, "lamport" | "origin" | "oseq">): number {
  if (a.lamport !== b.lamport) return a.lamport - b.lamport;
  if (a.origin !== b.origin) return a.origin < b.origin ? -1 : 1;
  return a.oseq - b.oseq;
}

/** Whether `x` is among what the device that made `by` had seen (so `by` was made knowing it). */
export function sawEntry(by: Pick<SyncEntry, "origin" | "oseq" | "seen">, x: Pick<SyncEntry, "origin" | "oseq">): boolean {
  if (x.origin === by.origin) return x.oseq < by.oseq;
  return x.oseq <= (by.seen[x.origin] ?? 0);
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

function reasonOf(v: unknown): RefusalReason | null | undefined {
  if (v === null) return null;
  if (typeof v !== "object" || Array.isArray(v)) return undefined;
  const r = v as Record<string, unknown>;
  if (Object.keys(r).length !== 4 || typeof r.code !== "string" || r.code.length > 64 || typeof r.message !== "string" || r.message.length > 2000) return undefined;
  if (!(r.condition === null || (typeof r.condition === "string" && r.condition.length <= 2000))) return undefined;
  if (!(r.line === null || isCount(r.line))) return undefined;
  return { code: r.code, condition: r.condition, line: r.line, message: r.message } as RefusalReason;
}

/** A version vector from untrusted JSON (a flat object of did:key → count), or null. */
export function parseVersionVector(v: unknown): VersionVector | null {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const keys = Object.keys(v);
  if (keys.length > MAX_ORIGINS) return null;
  const out: Record<string, number> = {};
  for (const k of keys) {
    const n = (v as Record<string, unknown>)[k];
    if (!isDidKey(k) || !isCount(n)) return null;
    out[k] = n;
  }
  return out;
}

/** An entry from untrusted JSON, its shape checked (nothing verified yet), or the reason it is not one. */
export function parseEntry(v: unknown): Result<SyncEntry, string> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return fail("an entry is a JSON object");
  const e = v as Record<string, unknown>;
  const known = ["origin", "oseq", "lamport", "time", "seen", "outcome", "reason", "jws", "stamp"];
  const extra = Object.keys(e).find((k) => !known.includes(k));
  if (extra !== undefined) return fail(`unknown field ${JSON.stringify(extra.slice(0, 40))}`);
  if (!isDidKey(e.origin)) return fail("origin must be a did:key");
  if (!isCount(e.oseq) || e.oseq < 1 || !isCount(e.lamport) || e.lamport < 1 || !isCount(e.time)) return fail("oseq, lamport and time must be positive integers");
  const seen = parseVersionVector(e.seen);
  if (seen === null) return fail("seen must map at most 64 did:keys to counts");
  if (e.outcome !== "accepted" && e.outcome !== "refused") return fail("outcome must be accepted or refused");
  const reason = reasonOf(e.reason);
  if (reason === undefined || (e.outcome === "refused") !== (reason !== null)) return fail("reason must be a refusal reason exactly when the outcome is refused");
  if (typeof e.jws !== "string" || e.jws.length > MAX_ENTRY_JWS) return fail(`jws must be a compact JWS of at most ${MAX_ENTRY_JWS} characters`);
  if (typeof e.stamp !== "string" || e.stamp.length > 100) return fail("stamp must be a base64url signature");
  return ok({ origin: e.origin, oseq: e.oseq, lamport: e.lamport, time: e.time, seen, outcome: e.outcome, reason, jws: e.jws, stamp: e.stamp });
}

/**
 * Verifies an entry for `tenant`: the origin's stamp, and the command's own signature and shape
 * (its `issuedAt` is not held to the node's clock: the command may have been made days ago, apart).
 */
export function verifyEntry(tenant: string, e: SyncEntry): Result<VerifiedEntry, string> {
  const key = publicKeyFromDidKey(e.origin);
  if (!key.ok) return fail(`origin: ${key.error.message}`);
  const digest = jwsDigest(e.jws);
  const signature = base64urlDecode(e.stamp);
  if (signature === null || signature.length !== SIGNATURE_BYTES || !ed25519Verify(signature, Buffer.from(stampText(tenant, e, digest)), key.value)) {
    return fail(`the stamp of ${e.origin} #${e.oseq} does not verify with its origin's key`);
  }
  const head = peekPayload(e.jws);
  if (head === null) return fail(`command ${digest.slice(0, 12)} is not a compact JWS with a JSON payload`);
  if (head.tenant !== tenant) return fail(`command ${digest.slice(0, 12)} is for tenant '${String(head.tenant)}', not '${tenant}'`);
  const issued = typeof head.issuedAt === "string" ? Date.parse(head.issuedAt) : Number.NaN;
  const path = { tenant, namespace: String(head.namespace), action: String(head.action) };
  const command = parseCommand(e.jws, { now: Number.isFinite(issued) ? issued : 0, path });
  if (!command.ok) return fail(`command ${digest.slice(0, 12)}: ${command.error.detail}`);
  return ok({ ...e, digest, signer: command.value.signer, payload: command.value.payload });
}

function peekPayload(jws: string): Record<string, unknown> | null {
  const parts = jws.split(".");
  if (parts.length !== 3) return null;
  try {
    const v = JSON.parse(Buffer.from(parts[1] as string, "base64url").toString("utf8")) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A `sync_entries` row's columns that make a synced command. */
export interface EntryRow {
  origin: string;
  oseq: number;
  lamport: number;
  time: number;
  seen: string;
  first_outcome: "accepted" | "refused";
  first_reason: string | null;
  jws: string;
  stamp: string;
}

/** The synced command a `sync_entries` row holds. */
export const toEntry = (r: EntryRow): SyncEntry => ({
  origin: r.origin,
  oseq: Number(r.oseq),
  lamport: Number(r.lamport),
  time: Number(r.time),
  seen: JSON.parse(r.seen) as VersionVector,
  outcome: r.first_outcome,
  reason: r.first_reason === null ? null : (JSON.parse(r.first_reason) as RefusalReason),
  jws: r.jws,
  stamp: r.stamp,
});

/** Reads a store's synced commands (the engine's connection, or a worker's read-only one). */
export class EntryReader {
  readonly #db: DatabaseSync;
  readonly #vv: StatementSync;
  readonly #since: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    // A skip scan of the primary key: one probe per origin, however many commands each holds.
    this.#vv = db.prepare(
      "WITH RECURSIVE o(origin) AS (SELECT min(origin) FROM sync_entries WHERE tenant = ?1 " +
        "UNION ALL SELECT (SELECT min(origin) FROM sync_entries WHERE tenant = ?1 AND origin > o.origin) FROM o WHERE o.origin IS NOT NULL) " +
        "SELECT origin, (SELECT max(oseq) FROM sync_entries WHERE tenant = ?1 AND origin = o.origin) AS oseq FROM o WHERE origin IS NOT NULL",
    );
    this.#since = db.prepare("SELECT origin, oseq, lamport, time, seen, first_outcome, first_reason, jws, stamp FROM sync_entries WHERE tenant = ? AND origin = ? AND oseq > ? ORDER BY oseq LIMIT ?");
  }

  /** What this store holds of `tenant`. */
  versionVector(tenant: string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.#vv.all(tenant) as { origin: string; oseq: number }[]) out[r.origin] = Number(r.oseq);
    return out;
  }

  /**
   * The entries this store holds that a device holding `theirs` lacks, in the merged order, at most
   * `limit` of them and about `maxBytes` of commands: each origin's are a prefix of what is missing
   * (so they arrive without gaps). `more`: there are others after them.
   */
  missing(tenant: string, theirs: VersionVector, limit: number, maxBytes: number): { entries: SyncEntry[]; more: boolean } {
    const mine = this.versionVector(tenant);
    const lists: SyncEntry[][] = [];
    let more = false;
    this.#db.exec("BEGIN");
    try {
      for (const [origin, top] of Object.entries(mine)) {
        const from = theirs[origin] ?? 0;
        if (top <= from) continue;
        const rows = (this.#since.all(tenant, origin, from, limit + 1) as unknown as EntryRow[]).map(toEntry);
        if (rows.length > limit) {
          more = true;
          rows.pop();
        }
        lists.push(rows);
      }
    } finally {
      this.#db.exec("COMMIT");
    }
    const merged = lists.flat().sort(compareEntries);
    const out: SyncEntry[] = [];
    let bytes = 0;
    for (const e of merged) {
      if (out.length >= limit || (out.length > 0 && bytes + e.jws.length > maxBytes)) {
        more = true;
        break;
      }
      out.push(e);
      bytes += e.jws.length + 600;
    }
    return { entries: out, more };
  }
}
