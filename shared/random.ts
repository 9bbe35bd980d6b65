/**
 * @module The one seeded random source (mulberry32), for code that must be replayable: the Raft
 * core keeps the generator's state in its node state (`nextInt`), and simulations, generated
 * contracts, property tests and benchmarks draw from a seed (`seededRandom`, `Random`), so a
 * failure is reproduced from its seed alone.
 */

/** A uniform float in [0, 1) and the generator's next state. */
export function nextFloat(state: number): [value: number, state: number] {
  const next = (state + 0x6d2b79f5) | 0;
  let t = next;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return [((t ^ (t >>> 14)) >>> 0) / 4294967296, next];
}

/** Returns a uniform integer in [0, bound) and the generator's next state. */
export function nextInt(state: number, bound: number): [value: number, state: number] {
  const [u, next] = nextFloat(state);
  return [Math.floor(u * bound), next];
}

/** A generator of uniform floats in [0, 1) from `seed`. */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    const [u, next] = nextFloat(state);
    state = next;
    return u;
  };
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
