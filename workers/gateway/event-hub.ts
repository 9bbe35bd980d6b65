/**
 * @module The gateway's live event stream: committed changes, fed from the journal's `event` topic,
 * fanned out to subscribers in this process (the `/v1` event stream, `/api/events`, the console).
 * Delivery is at-least-once; each event carries its journal id so subscribers drop repeats.
 */

/** A committed change as published to subscribers. */
export interface LiveEvent {
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
