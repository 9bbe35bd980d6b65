/**
 * @module What a command must pass before it is queued or proposed to the voters' log: the bounds
 * on its JSON (so nothing that cannot be encoded, digested or applied ever enters the log), the
 * rate of callers who are not known to the tenant, the tenant's quota, and the disk's reserve.
 *
 * These checks read the clock and the disk, so they run once, on the voter that takes the command,
 * never while an entry is applied (which must be deterministic). A problem here changes nothing.
 */
import { statfsSync } from "node:fs";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Clock } from "../../../shared/clock.ts";
import { checkJsonValue, jsonLimitProblem } from "../../../shared/json-limits.ts";
import { type Problem, problem } from "../../../shared/problem.ts";
import type { SubmittedCommand } from "../../../shared/protocol/engine.ts";
import type { EngineLimits } from "../../../shared/worker/config.ts";
import { type Bucket, isFull, take } from "./token-bucket.ts";

/** Per-signer buckets kept at most; past it, idle (full) ones are forgotten, and the tenant's bucket still holds. */
const MAX_SIGNER_BUCKETS = 10_000;

export interface AdmissionDeps {
  readonly db: DatabaseSync;
  readonly clock: Clock;
  readonly dataDir: string;
  readonly limits: EngineLimits;
  /**
   * Whether `did` is known to `tenant` for `namespace` (an owner or member, or a delegate with a
   * scope that namespace's contract delegates to); null: no such tenant.
   */
  readonly known: (tenant: string, namespace: string, did: string, now: number) => boolean | null;
}

/** A tenant's history as counted for its quota. */
interface Usage {
  entries: number;
  bytes: number;
}

export class Admission {
  readonly #d: AdmissionDeps;
  readonly #signers = new Map<string, Bucket>();
  readonly #tenants = new Map<string, Bucket>();
  readonly #usage = new Map<string, Usage>();
  readonly #known = new Map<string, boolean | null>();
  #knownSince = -Infinity;
  readonly #count: StatementSync;
  #disk: { at: number; free: number } = { at: -Infinity, free: Infinity };

  constructor(deps: AdmissionDeps) {
    this.#d = deps;
    this.#count = deps.db.prepare("SELECT count(*) AS entries, coalesce(sum(length(args) + length(command) + length(receipt)), 0) AS bytes FROM history WHERE tenant = ?");
  }

  /** A problem that keeps `command` out, or null to let it in. */
  check(command: SubmittedCommand): Problem | null {
    const over = checkJsonValue(command.payload);
    if (over !== null) return jsonLimitProblem(over);
    const { limits } = this.#d;
    const now = this.#d.clock.now();
    const { tenant, namespace } = command.payload;
    const known = this.#knownOf(tenant, namespace, command.signer, now);
    // No such tenant: the write path answers 404 and stores nothing.
    if (known === null) return null;
    if (!known && limits.publicRate > 0) {
      const limited = this.#rate(tenant, command.signer, now);
      if (limited !== null) return limited;
    }
    const usage = this.#usageOf(tenant);
    if (limits.quotaEntries > 0 && usage.entries >= limits.quotaEntries) {
      return problem(507, "quota-exceeded", `tenant '${tenant}' holds ${usage.entries} history entries, its quota (--quota-entries ${limits.quotaEntries}); nothing more can be recorded for it`);
    }
    if (limits.quotaBytes > 0 && usage.bytes >= limits.quotaBytes) {
      return problem(507, "quota-exceeded", `tenant '${tenant}' holds ${usage.bytes} bytes of history, its quota (--quota-bytes ${limits.quotaBytes}); nothing more can be recorded for it`);
    }
    const reserve = this.diskShortfall();
    if (reserve !== null) return problem(507, "insufficient-storage", reserve);
    return null;
  }

  /**
   * Whether the caller is known to the tenant, remembered for up to a second: the write path asks
   * for every command, and the answer only decides who is rate-limited (the write path itself
   * checks authorization against the store, always current).
   */
  #knownOf(tenant: string, namespace: string, did: string, now: number): boolean | null {
    if (now - this.#knownSince >= 1000 || this.#known.size >= MAX_SIGNER_BUCKETS) {
      this.#known.clear();
      this.#knownSince = now;
    }
    const key = `${tenant}\u0000${namespace}\u0000${did}`;
    let known = this.#known.get(key);
    if (known === undefined) {
      known = this.#d.known(tenant, namespace, did, now);
      this.#known.set(key, known);
    }
    return known;
  }

  /** Why the disk is too full to take writes (under the reserve), or null. Looked at once a second at most. */
  diskShortfall(): string | null {
    const { diskReserveBytes } = this.#d.limits;
    if (diskReserveBytes <= 0) return null;
    const now = this.#d.clock.now();
    if (now - this.#disk.at >= 1000) {
      try {
        const s = statfsSync(this.#d.dataDir);
        this.#disk = { at: now, free: s.bavail * s.bsize };
      } catch {
        this.#disk = { at: now, free: Infinity };
      }
    }
    if (this.#disk.free >= diskReserveBytes) return null;
    return `the data directory's disk has ${this.#disk.free} bytes free, under the reserve of ${diskReserveBytes} (--disk-reserve); writes are refused until space is freed`;
  }

  /** Counts what a commit added to each tenant's history. */
  committed(usage: ReadonlyMap<string, { entries: number; bytes: number }>): void {
    for (const [tenant, added] of usage) {
      const u = this.#usage.get(tenant);
      // A tenant not counted yet is counted from the store (with this commit in it) when first asked.
      if (u === undefined) continue;
      u.entries += added.entries;
      u.bytes += added.bytes;
    }
  }

  /** Forget every count (the store was replaced by a snapshot). */
  reset(): void {
    this.#usage.clear();
  }

  #usageOf(tenant: string): Usage {
    let u = this.#usage.get(tenant);
    if (u === undefined) {
      const row = this.#count.get(tenant) as { entries: number; bytes: number };
      u = { entries: Number(row.entries), bytes: Number(row.bytes) };
      this.#usage.set(tenant, u);
    }
    return u;
  }

  /** A 429 when the caller, or the tenant's unknown callers together, are over their rate. */
  #rate(tenant: string, signer: string, now: number): Problem | null {
    const rate = this.#d.limits.publicRate;
    // Every caller outside the tenant together gets ten times one caller's rate: new keys cost
    // nothing to make, so one caller's bucket alone would not bound anything.
    const all = take(this.#tenants.get(tenant), now, rate * 10, rate * 50);
    const key = `${tenant}\u0000${signer}`;
    const own = take(this.#signers.get(key), now, rate, rate * 5);
    if (!own.ok || !all.ok) {
      const wait = Math.max(own.retryAfterMs, all.retryAfterMs);
      const who = own.ok ? `callers outside tenant '${tenant}' together` : `${signer}, not known to tenant '${tenant}',`;
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      return { ...problem(429, "rate-limited", `${who} may send ${own.ok ? rate * 10 : rate} commands a second (--public-rate ${rate}); try again in ${seconds} s`), retryAfter: seconds };
    }
    this.#tenants.set(tenant, all.bucket);
    if (this.#signers.size >= MAX_SIGNER_BUCKETS && !this.#signers.has(key)) this.#sweep(now);
    if (this.#signers.size < MAX_SIGNER_BUCKETS || this.#signers.has(key)) this.#signers.set(key, own.bucket);
    return null;
  }

  #sweep(now: number): void {
    const rate = this.#d.limits.publicRate;
    for (const [key, bucket] of this.#signers) if (isFull(bucket, now, rate, rate * 5)) this.#signers.delete(key);
  }
}
