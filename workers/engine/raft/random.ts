/**
 * @module A seeded random source as a pure function (mulberry32): the generator's state lives in
 * the node state, so the step function stays deterministic and replayable.
 */

/** Returns a uniform integer in [0, bound) and the generator's next state. */
export function nextInt(state: number, bound: number): [value: number, state: number] {
  const next = (state + 0x6d2b79f5) | 0;
  let t = next;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  return [Math.floor(u * bound), next];
}

/** A mutable convenience wrapper for simulations and tests. */
export class Random {
  state: number;
  constructor(seed: number) {
    this.state = seed | 0;
  }
  /** A uniform integer in [0, bound). */
  int(bound: number): number {
    const [v, s] = nextInt(this.state, bound);
    this.state = s;
    return v;
  }
  /** True with probability p. */
  chance(p: number): boolean {
    return this.int(1_000_000) < p * 1_000_000;
  }
  /** A uniform pick. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
}
