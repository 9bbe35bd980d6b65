/**
 * @module 64-bit integers as JSON-style values: a JS number within ±(2^53−1), otherwise a decimal
 * string; numbers, bigints and decimal strings are accepted on input. Memory holds them as two
 * 32-bit halves so the hot path never allocates a BigInt.
 */

const TWO_32 = 4294967296;
const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;
const DECIMAL = /^-?\d{1,20}$/;

/** A bigint from an accepted input, or null when it is not a 64-bit integer. */
export function toBigInt(v: unknown): bigint | null {
  let n: bigint;
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) return null;
    n = BigInt(v);
  } else if (typeof v === "bigint") n = v;
  else if (typeof v === "string" && DECIMAL.test(v)) n = BigInt(v);
  else return null;
  return n < MIN || n > MAX ? null : n;
}

/** The JSON-style value of a 64-bit integer. */
export function fromBigInt(n: bigint): number | string {
  return n >= -9007199254740991n && n <= 9007199254740991n ? Number(n) : n.toString();
}

/** Normalises an accepted input (already known valid) to its JSON-style value. */
export function normalizeInt(v: unknown): number | string {
  if (typeof v === "number") return v;
  const n = toBigInt(v);
  if (n === null) throw new Error(`not a 64-bit integer: ${String(v)}`);
  return fromBigInt(n);
}

/** Writes an integer input at word index `w` of `i32`; false when it is not a 64-bit integer. */
export function writeInt(i32: Int32Array, w: number, v: unknown): boolean {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) return false;
    const lo = v >>> 0;
    i32[w] = lo;
    i32[w + 1] = (v - lo) / TWO_32;
    return true;
  }
  const n = toBigInt(v);
  if (n === null) return false;
  i32[w] = Number(BigInt.asIntN(32, n));
  i32[w + 1] = Number(BigInt.asIntN(32, n >> 32n));
  return true;
}

/** Reads the integer at word index `w`. */
export function readInt(i32: Int32Array, u32: Uint32Array, w: number): number | string {
  const hi = i32[w + 1] as number;
  const lo = u32[w] as number;
  if (hi >= -2097152 && hi < 2097152 && !(hi === -2097152 && lo === 0)) return hi * TWO_32 + lo;
  return ((BigInt(hi) << 32n) + BigInt(lo)).toString();
}
