/**
 * @module Group commit for journal appends: deliveries that arrive while one append is being
 * committed wait together and go to the engine as the next `journal-append-many`, one transaction
 * (one fsync) for all of them. Each caller is answered only once the append holding its entry has
 * committed — with its entry's id and whether the entry is new — or rejected if that append failed.
 * One append is in flight at a time: the engine is one writer, and while it commits the next batch
 * fills up. What may wait is bounded: past it, `append` refuses at once (the caller answers 503).
 */

/** One entry to append. */
export interface AppendEntry {
  readonly topic: string;
  readonly key: string;
  readonly payload: unknown;
  /** About how many bytes the entry takes (its body), for the batch bound. */
  readonly bytes: number;
}

/** What the journal said of one entry. */
export interface Appended {
  readonly id: number;
  readonly added: boolean;
}

/** Sends one batch (the engine's `journal-append-many`), answering each entry in order. */
export type SendBatch = (entries: { topic: string; key: string; payload: unknown }[]) => Promise<Appended[]>;

/** Thrown by `append` when too much waits already. */
export class AppendBacklogError extends Error {}

export interface BatcherLimits {
  /** Entries in one append at most (the engine takes up to 1,000). */
  readonly maxEntries: number;
  /** Bytes in one append at most (one entry larger than this still goes, alone). */
  readonly maxBytes: number;
  /** Entries waiting (not yet sent) at most. */
  readonly maxWaiting: number;
}

export const DEFAULT_BATCHER_LIMITS: BatcherLimits = { maxEntries: 512, maxBytes: 8 * 1024 * 1024, maxWaiting: 4096 };

interface Waiting {
  readonly entry: AppendEntry;
  readonly resolve: (value: Appended) => void;
  readonly reject: (error: unknown) => void;
}

export class AppendBatcher {
  readonly #send: SendBatch;
  readonly #limits: BatcherLimits;
  #waiting: Waiting[] = [];
  #inFlight: Promise<void> | null = null;

  constructor(send: SendBatch, limits: BatcherLimits = DEFAULT_BATCHER_LIMITS) {
    this.#send = send;
    this.#limits = limits;
  }

  /** Appends `entry` with whatever else is waiting; resolves once it is committed. */
  append(entry: AppendEntry): Promise<Appended> {
    if (this.#waiting.length >= this.#limits.maxWaiting) return Promise.reject(new AppendBacklogError(`${this.#waiting.length} deliveries wait to be journaled already`));
    return new Promise((resolve, reject) => {
      this.#waiting.push({ entry, resolve, reject });
      this.#inFlight ??= this.#drain();
    });
  }

  /** Resolves once nothing waits and nothing is in flight. */
  async idle(): Promise<void> {
    while (this.#inFlight !== null) await this.#inFlight;
  }

  /** Sends batches until nothing waits; a batch's failure rejects its own entries only. */
  async #drain(): Promise<void> {
    // Entries made in the same turn of the event loop join the first batch too.
    await Promise.resolve();
    while (this.#waiting.length > 0) {
      const batch = this.#take();
      try {
        const answers = await this.#send(batch.map((w) => ({ topic: w.entry.topic, key: w.entry.key, payload: w.entry.payload })));
        if (answers.length !== batch.length) throw new Error(`the journal answered ${answers.length} of ${batch.length} entries`);
        batch.forEach((w, i) => w.resolve(answers[i] as Appended));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.#inFlight = null;
  }

  /** The next batch: oldest first, within the entry and byte bounds (at least one entry). */
  #take(): Waiting[] {
    let bytes = 0;
    let n = 0;
    while (n < this.#waiting.length && n < this.#limits.maxEntries) {
      const next = (this.#waiting[n] as Waiting).entry.bytes;
      if (n > 0 && bytes + next > this.#limits.maxBytes) break;
      bytes += next;
      n++;
    }
    const batch = this.#waiting.slice(0, n);
    this.#waiting = this.#waiting.slice(n);
    return batch;
  }
}
