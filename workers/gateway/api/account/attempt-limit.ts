/**
 * @module The guessing limit on typed codes (set-up, recovery, pairing), pure: no clock reads, no
 * storage. `maxFailures` wrong codes within `windowMs` lock the ceremony for `lockMs`; the store
 * keeps the state between requests. A lock is global to the ceremony, not per caller: the node
 * cannot tell callers apart reliably behind a proxy, and a locked pairing only delays the owner.
 */

/** How many wrong codes are tolerated, over which window, and how long the lock lasts. */
export interface AttemptPolicy {
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly lockMs: number;
}

/** Five wrong codes in ten minutes lock the ceremony for ten minutes. */
export const defaultAttemptPolicy: AttemptPolicy = { maxFailures: 5, windowMs: 10 * 60_000, lockMs: 10 * 60_000 };

/** What the limit remembers about one ceremony. */
export interface AttemptState {
  /** When each recent failure happened (ms), oldest first, within the window. */
  readonly failures: readonly number[];
  /** Until when (ms) the ceremony is locked; 0 when it is not. */
  readonly lockedUntil: number;
}

export const noAttempts: AttemptState = { failures: [], lockedUntil: 0 };

/** Milliseconds until the ceremony may be tried again at `now`, or 0 when it may be tried now. */
export function lockedFor(state: AttemptState, now: number): number {
  return state.lockedUntil > now ? state.lockedUntil - now : 0;
}

/** The state after a wrong code at `now`: the failure is counted, and the limit reached locks. */
export function afterFailure(state: AttemptState, now: number, policy: AttemptPolicy = defaultAttemptPolicy): AttemptState {
  const failures = [...state.failures.filter((t) => now - t < policy.windowMs), now].slice(-policy.maxFailures);
  if (failures.length >= policy.maxFailures) return { failures: [], lockedUntil: now + policy.lockMs };
  return { failures, lockedUntil: state.lockedUntil > now ? state.lockedUntil : 0 };
}
