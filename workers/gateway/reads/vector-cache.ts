/**
 * @module The in-memory vector cache behind `nearest` (queries.md "Nearest in memory"): per
 * connection, one cache per (state table, vector field) holding, per tenant, the subjects and one
 * contiguous Float32Array of their vectors (plus each vector's sum of squares, for `cosine`). A
 * tenant's vectors are loaded on its first query, in chunks of subjects each read as one BLOB of
 * vectors concatenated inside SQLite, and kept current incrementally: before each query, in
 * the query's read transaction, only the rows whose `seq` (the history sequence of their last
 * change) is above the cache's high-water mark are read — records are only ever upserted, and the
 * engine assigns `seq` in its write transaction, so a later commit always has a higher one.
 *
 * Ranking is a tight loop over the Float32Array with a bounded max-heap of the K best, ordered by
 * (distance, subject in code-point order = SQLite's BINARY order of UTF-8): exactly the rows and the
 * `distance` values vector-distance.ts computes inside SQL (same float32 inputs, same double
 * accumulation in index order). Anything it cannot reproduce exactly (a stored vector of another
 * length, whose distance is NULL and sorts first in SQL; a NaN distance) answers null, and the caller
 * uses the SQL path. A `where` before `nearest` limits the ranking to the subjects it keeps.
 *
 * Memory: all caches of the process together hold at most `vectorCacheLimitMb()` MB (default 256,
 * `CHARTER_VECTOR_CACHE_MB`); a tenant whose vectors would not fit is not cached (the SQL path
 * answers it), and one that outgrows the budget is dropped.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { columnName, quote } from "../../../contracts/storage/columns.ts";
import { floats, type Metric } from "./vector-distance.ts";

const DEFAULT_LIMIT_MB = 256;
let limitBytes = limitFromEnv();
let usedBytes = 0;

function limitFromEnv(): number {
  const raw = process.env.CHARTER_VECTOR_CACHE_MB;
  const mb = raw === undefined || raw === "" ? DEFAULT_LIMIT_MB : Number(raw);
  return (Number.isFinite(mb) && mb >= 0 ? mb : DEFAULT_LIMIT_MB) * 1024 * 1024;
}

/** The budget of all vector caches of the process, in MB. */
export const vectorCacheLimitMb = () => limitBytes / (1024 * 1024);
/** Sets the budget (MB); caches already over it shrink as tenants are next read. 0 disables the cache. */
export function setVectorCacheLimitMb(mb: number): void {
  limitBytes = mb * 1024 * 1024;
}
/** Bytes the vector caches of the process hold now. */
export const vectorCacheBytes = () => usedBytes;
let rankings = 0;
/** How many `nearest` the vector caches of the process have ranked in memory. */
export const vectorCacheRankings = () => rankings;

/** One tenant's vectors in one (table, field). Rows are never removed, only marked unset. */
class TenantVectors {
  readonly dim: number;
  subjects: string[] = [];
  readonly rows = new Map<string, number>();
  data: Float32Array;
  norms: Float64Array;
  set: Uint8Array;
  count = 0;
  /** The highest `seq` read. */
  seq = -1;
  /** A stored vector of another length: only SQL answers exactly (its distance is NULL). */
  odd = false;
  bytes = 0;

  constructor(dim: number, capacity: number) {
    this.dim = dim;
    this.data = new Float32Array(capacity * dim);
    this.norms = new Float64Array(capacity);
    this.set = new Uint8Array(capacity);
    this.#account();
  }

  #account(): boolean {
    const bytes = this.data.byteLength + this.norms.byteLength + this.set.byteLength + this.set.length * 64;
    usedBytes += bytes - this.bytes;
    this.bytes = bytes;
    return usedBytes <= limitBytes;
  }

  release(): void {
    usedBytes -= this.bytes;
    this.bytes = 0;
  }

  /** Applies one changed row; false when the budget is exceeded. */
  put(subject: string, blob: unknown): boolean {
    let i = this.rows.get(subject);
    if (i === undefined) {
      if (this.count === this.norms.length) {
        const capacity = Math.max(16, this.count * 2);
        const data = new Float32Array(capacity * this.dim);
        data.set(this.data);
        const norms = new Float64Array(capacity);
        norms.set(this.norms);
        const set = new Uint8Array(capacity);
        set.set(this.set);
        this.data = data;
        this.norms = norms;
        this.set = set;
        if (!this.#account()) return false;
      }
      i = this.count++;
      this.rows.set(subject, i);
      this.subjects.push(subject);
    }
    if (!(blob instanceof Uint8Array)) {
      this.set[i] = 0;
      return true;
    }
    const v = floats(blob);
    if (v.length !== this.dim) {
      this.odd = true;
      this.set[i] = 0;
      return true;
    }
    const dim = this.dim;
    this.data.set(v, i * dim);
    let n = 0;
    for (let d = 0; d < dim; d++) {
      const x = v[d] as number;
      n += x * x;
    }
    this.norms[i] = n;
    this.set[i] = 1;
    return true;
  }
}

/** SQLite's BINARY order of the UTF-8 strings: code-point order (not UTF-16 unit order). */
export function compareSubjects(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (U+D800–DFFF, code points above U+FFFF) sorts after every other BMP unit.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Rows per chunk of a tenant's first load. */
const CHUNK = 2048;

/** One chunk of a first load: the subjects in order, each vector's byte length (null: unset), and all vectors end to end. */
interface Chunk {
  subjects: string | null;
  lengths: string | null;
  blob: Uint8Array | null;
  seq: number | null;
  last: string | null;
}

/** The vectors of one (table, field), per tenant, for one connection. */
export class VectorCache {
  readonly #tenants = new Map<string, TenantVectors>();
  readonly #all: StatementSync;
  readonly #chunk: StatementSync;
  readonly #since: StatementSync;
  readonly #count: StatementSync;
  readonly #dim: number;

  constructor(db: DatabaseSync, table: string, field: string, dim: number) {
    const t = quote(table);
    const c = quote(columnName(field));
    this.#dim = dim;
    this.#all = db.prepare(`SELECT subject, ${c} AS v, seq FROM ${t} WHERE tenant = ? AND subject >= ? ORDER BY subject`);
    // Handing SQLite's BLOBs to JavaScript one by one costs more than reading them: a chunk comes
    // as one BLOB of its vectors end to end (concatenated in SQLite), with their subjects and lengths.
    const blob = `CASE WHEN typeof(${c}) = 'blob' THEN ${c} END`;
    this.#chunk = db.prepare(
      `SELECT json_group_array(subject) AS subjects, json_group_array(length(v)) AS lengths, CAST(group_concat(coalesce(v, x''), '') AS BLOB) AS blob, max(seq) AS seq, max(subject) AS last ` +
        `FROM (SELECT subject, ${blob} AS v, seq FROM ${t} WHERE tenant = ? AND subject >= ? ORDER BY subject LIMIT ${CHUNK})`,
    );
    this.#since = db.prepare(`SELECT subject, ${c} AS v, seq FROM ${t} WHERE tenant = ? AND seq > ?`);
    this.#count = db.prepare(`SELECT count(*) AS n, max(seq) AS seq FROM ${t} WHERE tenant = ?`);
    for (const s of [this.#all, this.#chunk, this.#since, this.#count]) s.setReadBigInts(false);
  }

  /**
   * Reads every vector of the tenant into `t`, a chunk of subjects at a time in subject order (in
   * the caller's read transaction); false when the budget is exceeded.
   */
  #load(t: TenantVectors, tenant: string): boolean {
    // Each chunk starts at the last subject of the one before (`>=`, so the first starts at the
    // empty subject), which it then skips.
    let from = "";
    for (let first = true; ; first = false) {
      const chunk = this.#chunk.get(tenant, from) as unknown as Chunk;
      if (chunk.last === null || chunk.subjects === null || chunk.lengths === null) return true;
      const subjects = JSON.parse(chunk.subjects) as string[];
      const lengths = JSON.parse(chunk.lengths) as (number | null)[];
      const blob = chunk.blob ?? new Uint8Array(0);
      if (!first && subjects.length === 1) return true;
      let offset = 0;
      for (let i = 0; i < subjects.length; i++) {
        const subject = subjects[i] as string;
        const length = lengths[i] ?? null;
        // The rows must come in subject order; otherwise read them one by one.
        if (i > 0 && compareSubjects(subjects[i - 1] as string, subject) >= 0) return this.#loadRows(t, tenant, from);
        if ((first || i > 0) && !t.put(subject, length === null ? null : blob.subarray(offset, offset + length))) return false;
        offset += length ?? 0;
      }
      if (offset !== blob.length || subjects[subjects.length - 1] !== chunk.last || (!first && subjects[0] !== from)) return this.#loadRows(t, tenant, from);
      if (chunk.seq !== null && chunk.seq > t.seq) t.seq = chunk.seq;
      from = chunk.last;
    }
  }

  /** Reads the tenant's vectors from subject `from` on, row by row. */
  #loadRows(t: TenantVectors, tenant: string, from: string): boolean {
    for (const raw of this.#all.iterate(tenant, from)) {
      const row = raw as { subject: string; v: unknown; seq: number };
      if (!t.put(row.subject, row.v)) return false;
      if (row.seq > t.seq) t.seq = row.seq;
    }
    return true;
  }

  get empty(): boolean {
    return this.#tenants.size === 0;
  }

  /** Forgets a tenant (it moved to another version's table). */
  drop(tenant: string): void {
    this.#tenants.get(tenant)?.release();
    this.#tenants.delete(tenant);
  }

  clear(): void {
    for (const t of this.#tenants.keys()) this.drop(t);
  }

  /** The tenant's vectors, current as of the caller's read transaction, or null (not cacheable). */
  #current(tenant: string): TenantVectors | null {
    let t = this.#tenants.get(tenant);
    if (t === undefined) {
      const { n } = this.#count.get(tenant) as { n: number };
      // Budget check before reading: the vectors, their norms and flags, and ~64 B per subject.
      if (usedBytes + n * (this.#dim * 4 + 9 + 64) > limitBytes) return null;
      t = new TenantVectors(this.#dim, Math.max(16, n));
      this.#tenants.set(tenant, t);
      if (!this.#load(t, tenant) || usedBytes > limitBytes) {
        this.drop(tenant);
        return null;
      }
      return t;
    }
    for (const raw of this.#since.iterate(tenant, t.seq)) {
      const row = raw as { subject: string; v: unknown; seq: number };
      if (!t.put(row.subject, row.v)) {
        this.drop(tenant);
        return null;
      }
      if (row.seq > t.seq) t.seq = row.seq;
    }
    if (usedBytes > limitBytes) {
      this.drop(tenant);
      return null;
    }
    return t;
  }

  /**
   * The `k` nearest subjects of the tenant to `to` under `metric` with their distances, nearest
   * first (ties by subject), or null when only the SQL path answers exactly. `only`: the subjects
   * that may be answered (read once the cache is current, in the same read transaction).
   */
  nearest(tenant: string, metric: Metric, to: Float32Array, k: number, only?: () => Iterable<unknown>): { subjects: string[]; distances: number[] } | null {
    const t = this.#current(tenant);
    if (t === null || t.odd) return null;
    const dim = t.dim;
    if (to.length !== dim) return null;
    // Only these subjects (the rows a `where` before `nearest` keeps), when given.
    let allowed: Uint8Array | null = null;
    if (only !== undefined) {
      allowed = new Uint8Array(t.count);
      for (const subject of only()) {
        const i = typeof subject === "string" ? t.rows.get(subject) : undefined;
        if (i !== undefined) allowed[i] = 1;
      }
    }
    const data = t.data;
    const norms = t.norms;
    const set = t.set;
    const subjects = t.subjects;
    let nb = 0;
    for (let d = 0; d < dim; d++) {
      const y = to[d] as number;
      nb += y * y;
    }
    const limit = Math.min(k, t.count);
    // A max-heap of the best `limit` so far: the root is the worst (largest distance, then subject).
    const hd = new Float64Array(limit);
    const hi = new Int32Array(limit);
    let size = 0;
    const worse = (da: number, ia: number, db: number, ib: number) => da > db || (da === db && compareSubjects(subjects[ia] as string, subjects[ib] as string) > 0);
    const l2 = metric === "l2";
    const dot = metric === "dot";
    for (let i = 0, n = t.count; i < n && limit > 0; i++) {
      if (set[i] === 0 || (allowed !== null && allowed[i] === 0)) continue;
      const base = i * dim;
      let dist: number;
      if (l2) {
        let s = 0;
        for (let d = 0; d < dim; d++) {
          const x = (data[base + d] as number) - (to[d] as number);
          s += x * x;
        }
        dist = Math.sqrt(s);
      } else {
        let s = 0;
        for (let d = 0; d < dim; d++) s += (data[base + d] as number) * (to[d] as number);
        if (dot) dist = -s;
        else {
          const na = norms[i] as number;
          dist = na === 0 || nb === 0 ? 1 : 1 - s / Math.sqrt(na * nb);
        }
      }
      if (Number.isNaN(dist)) return null;
      if (size < limit) {
        // Sift up.
        let c = size++;
        while (c > 0) {
          const p = (c - 1) >> 1;
          if (!worse(dist, i, hd[p] as number, hi[p] as number)) break;
          hd[c] = hd[p] as number;
          hi[c] = hi[p] as number;
          c = p;
        }
        hd[c] = dist;
        hi[c] = i;
        continue;
      }
      if (!worse(hd[0] as number, hi[0] as number, dist, i)) continue;
      // Replace the root and sift down.
      let c = 0;
      for (;;) {
        const l = 2 * c + 1;
        if (l >= size) break;
        const r = l + 1;
        const m = r < size && worse(hd[r] as number, hi[r] as number, hd[l] as number, hi[l] as number) ? r : l;
        if (!worse(hd[m] as number, hi[m] as number, dist, i)) break;
        hd[c] = hd[m] as number;
        hi[c] = hi[m] as number;
        c = m;
      }
      hd[c] = dist;
      hi[c] = i;
    }
    rankings++;
    const order = Array.from({ length: size }, (_, j) => j).sort((a, b) => (hd[a] as number) - (hd[b] as number) || compareSubjects(subjects[hi[a] as number] as string, subjects[hi[b] as number] as string));
    return { subjects: order.map((j) => subjects[hi[j] as number] as string), distances: order.map((j) => hd[j] as number) };
  }
}
