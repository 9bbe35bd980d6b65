/**
 * @module The loop a worker runs to take its journal work: claim a batch of its topics through the
 * engine, handle each entry, ack the batch (or fail an entry, which the journal retries with
 * back-off). Claims are made under the worker's claimant name (`name#pid`), so the supervisor can
 * hand them back at once if this process dies.
 */
import type { Logger } from "../log.ts";
import type { JournalEntry } from "../journal.ts";
import type { EngineLink } from "./engine-link.ts";

export interface ConsumerOptions {
  readonly claimant: string;
  readonly topics: readonly string[];
  readonly batch?: number;
  /** Wait between polls when there was nothing to do. */
  readonly idleMs?: number;
}

export class JournalConsumer {
  readonly #engine: EngineLink;
  readonly #options: ConsumerOptions;
  readonly #handle: (entry: JournalEntry) => Promise<void> | void;
  readonly #log: Logger;
  #stopping = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;

  constructor(engine: EngineLink, options: ConsumerOptions, handle: (entry: JournalEntry) => Promise<void> | void, log: Logger) {
    this.#engine = engine;
    this.#options = options;
    this.#handle = handle;
    this.#log = log;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Finishes the batch in hand, acks it, and stops. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { claimant, topics } = this.#options;
    while (!this.#stopping) {
      let entries: JournalEntry[] = [];
      try {
        entries = await this.#engine.request("journal-claim", { claimant, topics: [...topics], limit: this.#options.batch ?? 64 });
      } catch (error) {
        this.#log.debug("journal claim failed; retrying", { error: String(error) });
      }
      const done: number[] = [];
      for (const entry of entries) {
        try {
          await this.#handle(entry);
          done.push(entry.id);
        } catch (error) {
          await this.#engine.request("journal-fail", { claimant, id: entry.id, error: String(error) }).catch(() => "stale");
        }
      }
      if (done.length > 0) await this.#engine.request("journal-ack", { claimant, ids: done }).catch(() => []);
      if (entries.length === 0) await this.#idle();
    }
  }

  #idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.#options.idleMs ?? 100);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
