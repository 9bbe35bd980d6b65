/**
 * @module A token bucket as a pure function: `take(bucket, now, rate, burst) → {bucket, ok,
 * retryAfterMs}`. The bucket refills at `rate` tokens a second up to `burst`; a request takes one.
 * Time comes in, nothing is read, so tests drive it with any clock.
 */

/** A bucket's state: tokens left and when they were counted (ms since the epoch). */
export interface Bucket {
  readonly tokens: number;
  readonly at: number;
}

/** What taking one token did: the next state, whether it was there, and when one will be. */
export interface Take {
  readonly bucket: Bucket;
  readonly ok: boolean;
  /** Milliseconds until a token is available (0 when `ok`). */
  readonly retryAfterMs: number;
}

/** A full bucket at `now`. */
export const fullBucket = (burst: number, now: number): Bucket => ({ tokens: burst, at: now });

/** Takes one token from `bucket` (undefined: a new, full bucket) at time `now`. */
export function take(bucket: Bucket | undefined, now: number, rate: number, burst: number): Take {
  const start = bucket ?? fullBucket(burst, now);
  // A clock that went back refills nothing (and takes nothing back).
  const elapsed = Math.max(0, now - start.at);
  const tokens = Math.min(burst, start.tokens + (elapsed * rate) / 1000);
  if (tokens >= 1) return { bucket: { tokens: tokens - 1, at: Math.max(now, start.at) }, ok: true, retryAfterMs: 0 };
  return { bucket: { tokens, at: Math.max(now, start.at) }, ok: false, retryAfterMs: Math.ceil(((1 - tokens) * 1000) / rate) };
}

/** Whether a bucket left alone until `now` would be full again (so it can be forgotten). */
export function isFull(bucket: Bucket, now: number, rate: number, burst: number): boolean {
  return bucket.tokens + (Math.max(0, now - bucket.at) * rate) / 1000 >= burst;
}
