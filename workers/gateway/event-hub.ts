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
  #published = 0;

  subscribe(listener: (event: LiveEvent) => void): () => void {
    this.#subscribers.add(listener);
    return () => this.#subscribers.delete(listener);
  }

  publish(event: LiveEvent): void {
    this.#published++;
    for (const listener of this.#subscribers) listener(event);
  }

  /** How many events this process has published. */
  get published(): number {
    return this.#published;
  }
}
