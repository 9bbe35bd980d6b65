/**
 * @module The loop a worker runs to take its journal work: claim a batch of its topics through the
 * engine, handle each entry, ack the batch (or fail an entry, which the journal retries with
 * back-off). A handler may settle its entry instead: return `{result}` to mark it done with what it
 * came to (kept as the entry's result), or throw `PermanentEntryError` to dead-letter it at once
 * with the error's message as the reason. Claims are made under the worker's claimant name (`name#pid`), so the supervisor can
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

/** Thrown by a handler for an entry that can never be handled as it is: dead-lettered at once, its message the reason. */
export class PermanentEntryError extends Error {}

/** What a handler answers: nothing (ack the entry), or what the entry came to (complete it with that result). */
export type EntryOutcome = void | { readonly result: unknown };

export class JournalConsumer {
  readonly #engine: EngineLink;
  readonly #options: ConsumerOptions;
  readonly #handle: (entry: JournalEntry) => Promise<EntryOutcome> | EntryOutcome;
  readonly #log: Logger;
  #stopping = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;

  constructor(engine: EngineLink, options: ConsumerOptions, handle: (entry: JournalEntry) => Promise<EntryOutcome> | EntryOutcome, log: Logger) {
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
      const completed: { id: number; result: unknown }[] = [];
      for (const entry of entries) {
        try {
          const outcome = await this.#handle(entry);
          if (outcome === undefined) done.push(entry.id);
          else completed.push({ id: entry.id, result: outcome.result });
        } catch (error) {
          const permanent = error instanceof PermanentEntryError;
          if (permanent) this.#log.warn("a journal entry was dead-lettered", { topic: entry.topic, entry: entry.id, key: entry.key, reason: error.message });
          await this.#engine.request("journal-fail", { claimant, id: entry.id, error: permanent ? error.message : String(error), ...(permanent ? { permanent } : {}) }).catch(() => "stale");
        }
      }
      if (done.length > 0) await this.#engine.request("journal-ack", { claimant, ids: done }).catch(() => []);
      if (completed.length > 0) await this.#engine.request("journal-complete", { claimant, done: completed }).catch(() => []);
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
