/**
 * @module Exact vector distances for `nearest` (reference §6): float32 vectors as stored (BLOB,
 * little-endian), accumulated in double precision in index order, so every evaluator of a query
 * gets the same number. `cosine` is 1 − cos θ (a zero vector is at distance 1 from everything),
 * `l2` the Euclidean distance, `dot` the negated dot product (so smaller is nearer for every metric).
 */

export type Metric = "cosine" | "l2" | "dot";

/** The float32 values of a stored vector. */
export function floats(bytes: Uint8Array): Float32Array {
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
  return new Float32Array(bytes.slice().buffer);
}

/** The distance between `a` and `b` under `metric`; null when they differ in length. */
export function distance(metric: Metric, a: Float32Array, b: Float32Array): number | null {
  const n = a.length;
  if (b.length !== n) return null;
  if (metric === "l2") {
    let s = 0;
    for (let i = 0; i < n; i++) {
      const d = (a[i] as number) - (b[i] as number);
      s += d * d;
    }
    return Math.sqrt(s);
  }
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (metric === "dot") return -dot;
  return na === 0 || nb === 0 ? 1 : 1 - dot / Math.sqrt(na * nb);
}
