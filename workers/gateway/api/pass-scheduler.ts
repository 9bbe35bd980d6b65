/**
 * @module What the node's schedules share (the dashboards' refreshes, the assistant's autonomy
 * runs): one timer, one pass at a time, a pass asked for while one runs coming right after it, and
 * a pass that fails trying again after a delay that doubles from `retryMs` up to `recheckMs`. A
 * failure because the node is not set up yet, or the schedule's contract is not installed yet, is
 * not a warning: there is nothing to schedule. Each schedule says what a pass does and how long to
 * wait after it. Lifecycle: `start()` → running → `close()`.
 */
import type { Logger } from "../../../shared/log.ts";
import { HttpProblem } from "../../../shared/problem.ts";

/** Setting and clearing the one timer (swapped in tests). */
export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface PassSchedulerOptions {
  readonly log: Logger;
  /** The longest wait between passes, and the longest back-off. */
  readonly recheckMs: number;
  /** The first wait after a pass that failed (default 1 s). */
  readonly retryMs?: number;
  readonly timers?: Timers;
  /** What the warning of a failed pass calls the schedule ("the dashboards' schedule"). */
  readonly what: string;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export abstract class PassScheduler {
  readonly #options: PassSchedulerOptions;
  readonly #timers: Timers;
  readonly #retryMs: number;
  #retry: number;
  #timer: unknown = null;
  #running = false;
  #again = false;
  #closed = false;

  constructor(options: PassSchedulerOptions) {
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
    this.#retryMs = options.retryMs ?? 1000;
    this.#retry = this.#retryMs;
  }

  /** One pass; answers how long to wait before the next, or null for no timer (until woken). */
  protected abstract pass(): Promise<number | null>;

  /** Runs what is due now (what came due while the node was down, at start), then keeps the schedule. */
  start(): void {
    this.wake();
  }

  /** Runs a pass now (after the one running, if any). */
  wake(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#timer !== null) this.#timers.clear(this.#timer);
    this.#timer = null;
    this.#running = true;
    void this.#run();
  }

  /** Stops: no timer is left, no pass starts again (one under way finishes). */
  close(): void {
    this.#closed = true;
    if (this.#timer !== null) this.#timers.clear(this.#timer);
    this.#timer = null;
  }

  protected get closed(): boolean {
    return this.#closed;
  }

  /** The next back-off delay (each one twice the last, up to `recheckMs`). */
  protected backoff(): number {
    const delay = this.#retry;
    this.#retry = Math.min(this.#retry * 2, this.#options.recheckMs);
    return delay;
  }

  /** A pass went through: the next failure backs off from `retryMs` again. */
  protected succeeded(): void {
    this.#retry = this.#retryMs;
  }

  async #run(): Promise<void> {
    let delay: number | null;
    try {
      delay = await this.pass();
    } catch (error) {
      // Before set-up, and until the schedule's contract is installed, there is nothing to schedule: no warning.
      if (error instanceof HttpProblem && (error.problem.code === "not-set-up" || error.problem.code === "not-found")) delay = this.#options.recheckMs;
      else {
        delay = this.backoff();
        this.#options.log.warn(`${this.#options.what} cannot go on now; trying again`, { error: error instanceof Error ? error.message : String(error), retryMs: delay });
      }
    }
    this.#running = false;
    if (this.#closed) return;
    if (this.#again) {
      this.#again = false;
      this.wake();
      return;
    }
    if (delay === null) return;
    this.#timer = this.#timers.set(() => {
      this.#timer = null;
      this.wake();
    }, Math.min(Math.max(delay, 0), MAX_TIMER_MS));
  }
}
