/**
 * @module Injected time. Everything that reads the time or waits takes a Clock, so tests and
 * simulations can control it; contract execution never reads one.
 */

/** A source of wall-clock milliseconds. */
export interface Clock {
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to (tests, simulations). */
export class ManualClock implements Clock {
  #now: number;
  constructor(start = 0) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.#now += ms;
  }
}
