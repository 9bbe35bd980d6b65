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

/** The most model ids `listModels` answers: a provider's list is not allowed to grow without end. */
const MAX_MODELS = 1000;

/**
 * The ids of a provider's models, read page by page from `list` under one guard (at most
 * MAX_MODELS); a failure is what `classify` makes of it (the error, or none when the guard ended the call).
 */
export async function listModelIds(
  caller: AbortSignal,
  limits: CallLimits,
  list: (signal: AbortSignal) => AsyncIterable<{ readonly id: string }>,
  classify: (error: unknown, guard: CallGuard) => Error,
): Promise<string[]> {
  const guard = guardCall(caller, limits);
  try {
    const ids: string[] = [];
    for await (const model of list(guard.signal)) {
      ids.push(model.id);
      if (ids.length >= MAX_MODELS) break;
    }
    if (guard.ended()) throw classify(undefined, guard);
    return ids;
  } catch (error) {
    throw classify(error, guard);
  } finally {
    guard.stop();
  }
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
