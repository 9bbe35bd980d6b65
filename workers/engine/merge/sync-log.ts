/**
 * @module The engine's side of a synced tenant's log (shared/devices/entries.ts): which tenants sync,
 * and the stamp each command committed here gets, in the commit's own transaction — its place in
 * this node's sequence, a Lamport time after everything the node holds (so it sorts after what it
 * was decided on), what the node held then, and the origin's signature. A tenant starts syncing
 * when its first device is paired: its history so far is stamped then, oldest first, so a new
 * device receives all of it.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { KeyPair, RefusalReason } from "../../../shared/identity/index.ts";
import { jwsDigest, EntryReader, signStamp, type SyncEntry } from "../../../shared/devices/entries.ts";

/** The most characters of a refused command's JWS that syncs (history keeps only a digest of a longer one). */
const REFUSED_SYNC_MAX = 4096;

/** What one local command contributes to the log. */
export interface LocalCommand {
  readonly tenant: string;
  readonly namespace: string;
  readonly aggregate: string;
  readonly subject: string;
  readonly action: string;
  readonly jws: string;
  readonly digest: string;
  readonly reason: RefusalReason | null;
  readonly seq: number;
  readonly time: number;
}

interface TenantClock {
  /** Each origin's highest oseq held. */
  readonly vv: Record<string, number>;
  lamport: number;
}

export class SyncLog {
  readonly #db: DatabaseSync;
  readonly #key: KeyPair;
  readonly #reader: EntryReader;
  readonly #insert: StatementSync;
  readonly #clocks = new Map<string, TenantClock>();
  #enabled: Set<string>;

  constructor(db: DatabaseSync, nodeKey: KeyPair) {
    this.#db = db;
    this.#key = nodeKey;
    this.#reader = new EntryReader(db);
    this.#insert = db.prepare(
      "INSERT INTO sync_entries (tenant, origin, oseq, lamport, digest, namespace, aggregate, subject, action, time, seen, first_outcome, first_reason, jws, stamp, outcome, reason, seq) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.#enabled = new Set((db.prepare("SELECT tenant FROM sync_tenants").all() as { tenant: string }[]).map((r) => r.tenant));
  }

  get origin(): string {
    return this.#key.did;
  }

  enabled(tenant: string): boolean {
    return this.#enabled.has(tenant);
  }

  /** The tenants that sync. */
  tenants(): string[] {
    return [...this.#enabled];
  }

  /** This tenant's version vector and Lamport time as the store holds them (cached; kept current by stamp and record). */
  clock(tenant: string): TenantClock {
    let c = this.#clocks.get(tenant);
    if (c === undefined) {
      const row = this.#db.prepare("SELECT coalesce(max(lamport), 0) AS lamport FROM sync_entries WHERE tenant = ?").get(tenant) as { lamport: number };
      c = { vv: this.#reader.versionVector(tenant), lamport: Number(row.lamport) };
      this.#clocks.set(tenant, c);
    }
    return c;
  }

  /** Forgets the cached clocks (a transaction that wrote entries rolled back). */
  forget(tenant?: string): void {
    if (tenant === undefined) this.#clocks.clear();
    else this.#clocks.delete(tenant);
  }

  /**
   * Starts syncing `tenant` (in the caller's transaction): every command of its history so far is
   * stamped as this node's, oldest first. Answers how many were stamped (0 when it already synced).
   */
  enable(tenant: string, now: number): number {
    if (this.#enabled.has(tenant)) return 0;
    this.#db.prepare("INSERT INTO sync_tenants (tenant, since) VALUES (?, ?)").run(tenant, now);
    const rows = this.#db.prepare("SELECT seq, namespace, aggregate, subject, action, reason, command, committed_at FROM history WHERE tenant = ? ORDER BY seq").iterate(tenant) as Iterable<{
      seq: number;
      namespace: string;
      aggregate: string;
      subject: string;
      action: string;
      reason: string | null;
      command: string;
      committed_at: number;
    }>;
    this.#enabled.add(tenant);
    this.#clocks.delete(tenant);
    let n = 0;
    for (const r of rows) {
      // Only commands: an upgrade's migration rows carry no signed command.
      if (!r.command.startsWith("ey")) continue;
      const stamped = this.stamp({
        tenant,
        namespace: r.namespace,
        aggregate: r.aggregate,
        subject: r.subject,
        action: r.action,
        jws: r.command,
        digest: jwsDigest(r.command),
        reason: r.reason === null ? null : (JSON.parse(r.reason) as RefusalReason),
        seq: Number(r.seq),
        time: Number(r.committed_at),
      });
      if (stamped) n += 1;
    }
    return n;
  }

  /** Stamps one command committed here (in the commit's transaction); false when it does not sync. */
  stamp(c: LocalCommand): boolean {
    if (!this.#enabled.has(c.tenant)) return false;
    if (c.reason !== null && c.jws.length > REFUSED_SYNC_MAX) return false;
    const clock = this.clock(c.tenant);
    const origin = this.#key.did;
    const oseq = (clock.vv[origin] ?? 0) + 1;
    const entry: Omit<SyncEntry, "stamp" | "jws"> = {
      origin,
      oseq,
      lamport: clock.lamport + 1,
      time: c.time,
      seen: { ...clock.vv },
      outcome: c.reason === null ? "accepted" : "refused",
      reason: c.reason,
    };
    const stamp = signStamp(c.tenant, entry, c.digest, this.#key.secretKey);
    const reason = c.reason === null ? null : JSON.stringify(c.reason);
    this.#insert.run(c.tenant, origin, oseq, entry.lamport, c.digest, c.namespace, c.aggregate, c.subject, c.action, c.time, JSON.stringify(entry.seen), entry.outcome, reason, c.jws, stamp, entry.outcome, reason, c.seq);
    clock.vv[origin] = oseq;
    clock.lamport = entry.lamport;
    return true;
  }

  /** Records a received entry (in the caller's transaction) with the outcome the merged order gives it here. */
  record(tenant: string, e: SyncEntry & { readonly digest: string; readonly namespace: string; readonly aggregate: string; readonly subject: string; readonly action: string }, outcome: { reason: RefusalReason | null; seq: number }): void {
    const first = e.reason === null ? null : JSON.stringify(e.reason);
    const now = outcome.reason === null ? null : JSON.stringify(outcome.reason);
    this.#insert.run(tenant, e.origin, e.oseq, e.lamport, e.digest, e.namespace, e.aggregate, e.subject, e.action, e.time, JSON.stringify(e.seen), e.outcome, first, e.jws, e.stamp, outcome.reason === null ? "accepted" : "refused", now, outcome.seq);
    const clock = this.clock(tenant);
    clock.vv[e.origin] = Math.max(clock.vv[e.origin] ?? 0, e.oseq);
    clock.lamport = Math.max(clock.lamport, e.lamport);
  }
}
