/**
 * @module The simulation's agenda: a binary heap ordered by simulated time, then by insertion,
 * so that equal times replay in the same order for the same seed.
 */

interface Slot<T> {
  readonly time: number;
  readonly seq: number;
  readonly item: T;
}

/** A min-heap of timed items. */
export class EventQueue<T> {
  #heap: Slot<T>[] = [];
  #seq = 0;

  get size(): number {
    return this.#heap.length;
  }

  push(time: number, item: T): void {
    const h = this.#heap;
    h.push({ time, seq: this.#seq++, item });
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  /** Removes and returns the earliest item. */
  pop(): { time: number; item: T } | undefined {
    const h = this.#heap;
    if (h.length === 0) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && less(h[l]!, h[m]!)) m = l;
        if (r < h.length && less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return { time: top.time, item: top.item };
  }
}

function less<T>(a: Slot<T>, b: Slot<T>): boolean {
  return a.time < b.time || (a.time === b.time && a.seq < b.seq);
}
