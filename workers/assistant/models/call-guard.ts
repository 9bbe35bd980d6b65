/**
 * @module The time limits of one provider call, so that a silent provider ends the call instead of
 * hanging the turn: the answer must begin within `responseTimeoutMs`, and after that each piece must
 * follow the last within `idleTimeoutMs`. The caller's own abort is kept apart from a timeout, so the
 * adapter can tell `cancelled` from `timeout`.
 */

export interface CallLimits {
  /** Until the provider's answer begins (a local model may first have to load). */
  responseTimeoutMs: number;
  /** Between two pieces of a streamed answer. */
  idleTimeoutMs: number;
}

/** Generous enough for a local model loading from disk or reading a long prompt on a CPU. */
export const DEFAULT_LIMITS: CallLimits = { responseTimeoutMs: 300_000, idleTimeoutMs: 120_000 };

/** One call's guard: pass `signal` to the SDK, call `progress()` on each piece, `stop()` at the end. */
export interface CallGuard {
  readonly signal: AbortSignal;
  progress(): void;
  stop(): void;
  /** Why the call was aborted, if it was. */
  ended(): "cancelled" | "timeout" | undefined;
}

/** A guard over `caller`'s signal with `limits`. */
export function guardCall(caller: AbortSignal, limits: CallLimits): CallGuard {
  const controller = new AbortController();
  let why: "cancelled" | "timeout" | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const end = (reason: "cancelled" | "timeout") => {
    if (why !== undefined) return;
    why = reason;
    clearTimeout(timer);
    controller.abort(new Error(reason));
  };
  const onAbort = () => end("cancelled");
  const arm = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => end("timeout"), ms);
  };
  if (caller.aborted) end("cancelled");
  else {
    caller.addEventListener("abort", onAbort, { once: true });
    arm(limits.responseTimeoutMs);
  }
  return {
    signal: controller.signal,
    progress: () => {
      if (why === undefined) arm(limits.idleTimeoutMs);
    },
    stop: () => {
      clearTimeout(timer);
      caller.removeEventListener("abort", onAbort);
    },
    ended: () => why,
  };
}
