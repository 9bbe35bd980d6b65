/**
 * @module The supervisor's restart decision, pure (no processes, no clock reads): one-for-one
 * restarts with exponential back-off, and an intensity limit — more than `maxRestarts` within
 * `windowMs` means the worker cannot be kept up, and the supervisor shuts down.
 */

export interface RestartPolicy {
  readonly maxRestarts: number;
  readonly windowMs: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  /** A worker that ran this long is considered healthy again: its back-off resets. */
  readonly stableAfterMs: number;
}

export const defaultRestartPolicy: RestartPolicy = {
  maxRestarts: 5,
  windowMs: 60_000,
  backoffBaseMs: 100,
  backoffMaxMs: 5_000,
  stableAfterMs: 10_000,
};

/** What the policy remembers about one worker. */
export interface RestartHistory {
  /** When each recent restart happened (ms), oldest first, within the window. */
  readonly restarts: readonly number[];
  /** Consecutive quick failures, for the back-off exponent. */
  readonly streak: number;
}

export const emptyHistory: RestartHistory = { restarts: [], streak: 0 };

export type RestartDecision =
  | { readonly action: "restart"; readonly delayMs: number; readonly history: RestartHistory }
  | { readonly action: "give-up"; readonly reason: string; readonly history: RestartHistory };

/** Decides what to do when a worker that started at `startedAt` exited at `now`. */
export function onExit(history: RestartHistory, startedAt: number, now: number, policy: RestartPolicy = defaultRestartPolicy): RestartDecision {
  const recent = history.restarts.filter((t) => now - t < policy.windowMs);
  const streak = now - startedAt >= policy.stableAfterMs ? 0 : history.streak;
  if (recent.length >= policy.maxRestarts) {
    return {
      action: "give-up",
      reason: `restarted ${recent.length} time${recent.length === 1 ? "" : "s"} within ${Math.round(policy.windowMs / 1000)} s`,
      history: { restarts: recent, streak },
    };
  }
  const delayMs = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** streak);
  return { action: "restart", delayMs, history: { restarts: [...recent, now], streak: streak + 1 } };
}
