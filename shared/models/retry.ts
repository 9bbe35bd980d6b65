/**
 * @module Trying a model call again when a provider's failure may pass: a rate limit (after the wait
 * the provider asked for), a server error, no connection, a timeout, or an answer cut before its
 * first event. A refused key or request is not tried again, nor a cancelled call. Once an event has
 * been passed on, nothing is tried again (the turn would see the answer twice): the failure is
 * final and the turn fails, for the person to retry.
 */
import { setTimeout as delay } from "node:timers/promises";
import { ModelError, type ModelErrorKind, type ModelEvent } from "./model.ts";

export interface RetryOptions {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The first back-off; each next one doubles, up to `maxMs`. */
  baseMs: number;
  /** The longest wait; a provider asking for longer is not waited for (the call fails at once). */
  maxMs: number;
  signal: AbortSignal;
  /** Waits `ms`, rejecting when `signal` aborts; a test passes a fake that does not wait. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** In [0, 1): the jitter's source, injected where a test must control it. */
  random?: () => number;
}

const RETRIED: ReadonlySet<ModelErrorKind> = new Set(["rate-limited", "server", "unreachable", "timeout", "cut"]);

/** The wait before attempt `attempt + 1` (`attempt` ≥ 1) after `error`, or undefined to give up. */
export function backoffMs(error: ModelError, attempt: number, options: Pick<RetryOptions, "baseMs" | "maxMs" | "random">): number | undefined {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs <= options.maxMs ? error.retryAfterMs : undefined;
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** (attempt - 1));
  // "Equal jitter": at least half the back-off, so that retries never bunch up at zero.
  return Math.round(ceiling / 2 + ((options.random ?? Math.random)() * ceiling) / 2);
}

/** The events of `attempt()`, called again on a failure that may pass; throws the last `ModelError`. */
export async function* withRetries(attempt: () => AsyncIterable<ModelEvent>, options: RetryOptions): AsyncGenerator<ModelEvent> {
  const sleep = options.sleep ?? ((ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }));
  for (let attempts = 1; ; attempts++) {
    let yielded = false;
    try {
      for await (const event of attempt()) {
        yielded = true;
        yield event;
      }
      return;
    } catch (caught) {
      const error = caught instanceof ModelError ? caught : new ModelError("server", `model call failed: ${caught instanceof Error ? caught.message : String(caught)}`);
      const wait = !yielded && RETRIED.has(error.kind) && attempts < options.maxAttempts && !options.signal.aborted ? backoffMs(error, attempts, options) : undefined;
      if (wait === undefined) throw withAttempts(error, attempts);
      try {
        await sleep(wait, options.signal);
      } catch {
        throw new ModelError("cancelled", "the call was cancelled while waiting to try again", { attempts });
      }
    }
  }
}

/** `error` with the number of attempts made, and the count in its message. */
function withAttempts(error: ModelError, attempts: number): ModelError {
  const details: { status?: number; retryAfterMs?: number; attempts: number } = { attempts };
  if (error.status !== undefined) details.status = error.status;
  if (error.retryAfterMs !== undefined) details.retryAfterMs = error.retryAfterMs;
  return new ModelError(error.kind, `${error.message} (after ${attempts} attempt${attempts === 1 ? "" : "s"})`, details);
}
