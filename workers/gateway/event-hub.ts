/**
 * @module The gateway's live event stream, fanned out to subscribers in this process (the `/v1`
 * event stream, `/api/events`, the console): commits the engine announces, and entries of the
 * journal's `event` topic. Each event names its source and its id there (history seq or journal
 * id), so a subscriber can drop repeats and catch up from the store after a gap.
 */

/** A committed change as published to subscribers. */
export interface LiveEvent {
  readonly source: "commit" | "journal";
  readonly id: number;
  readonly payload: unknown;
}

export class EventHub {
  readonly #subscribers = new Set<(event: LiveEvent) => void>();
  readonly #onWatched: (watched: boolean) => void;

  /** `onWatched` hears when the first listener arrives and when the last one leaves. */
  constructor(onWatched: (watched: boolean) => void = () => {}) {
    this.#onWatched = onWatched;
  }

  subscribe(listener: (event: LiveEvent) => void): () => void {
    this.#subscribers.add(listener);
    if (this.#subscribers.size === 1) this.#onWatched(true);
    return () => {
      if (this.#subscribers.delete(listener) && this.#subscribers.size === 0) this.#onWatched(false);
    };
  }

  /** Whether anyone listens. */
  get watched(): boolean {
    return this.#subscribers.size > 0;
  }

  publish(event: LiveEvent): void {
    for (const listener of this.#subscribers) listener(event);
  }
}
