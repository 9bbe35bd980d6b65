/**
 * @module The journal's compaction on a personal node (shared/protocol/outbox.ts
 * `COMPACTED_MEMBERS`): once at start and every `everyMs` after, the bulk of entries done for longer
 * than `COMPACT_AFTER_MS` — a webhook delivery's body, a message's text — is dropped from the store,
 * in batches that each take the write path's turn (so no command waits behind a long one). The
 * entries stay, with their keys and results: a delivery is still admitted once, and what came of
 * each is still shown.
 */
import type { Journal } from "../../shared/journal.ts";
import type { Logger } from "../../shared/log.ts";
import { COMPACT_AFTER_MS, COMPACTED_MEMBERS } from "../../shared/protocol/outbox.ts";

/** Entries looked at per batch (one write-path turn each). */
const WINDOW = 500;

export interface CompactionDeps {
  readonly journal: Pick<Journal, "compact" | "lastId">;
  /** Runs `fn` in the write path's turn (the engine's command processor). */
  readonly exclusive: <T>(fn: () => T) => Promise<T>;
  readonly now: () => number;
  readonly log: Logger;
  /** How often a pass runs after the first (6 h). */
  readonly everyMs?: number;
}

/** One pass: every topic's old done entries, batch by batch; answers how many were compacted. */
export async function compactJournal(deps: Omit<CompactionDeps, "everyMs">): Promise<number> {
  const before = deps.now() - COMPACT_AFTER_MS;
  let total = 0;
  const last = deps.journal.lastId();
  for (const { topic, member } of COMPACTED_MEMBERS) {
    // A window of entries per batch: a pass reads the journal once, and no batch holds the write
    // path for longer than a window takes, however large the journal.
    for (let from = 0; from < last; from += WINDOW) {
      total += await deps.exclusive(() => deps.journal.compact(topic, member, before, from, from + WINDOW));
    }
  }
  if (total > 0) deps.log.info("journal compacted", { entries: total, doneBefore: new Date(before).toISOString() });
  return total;
}

/** Starts the passes (the first at once); `stop` ends them, waiting for one under way. */
export function startJournalCompaction(deps: CompactionDeps): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const pass = () => {
    if (stopped) return;
    running = compactJournal(deps).catch((error: unknown) => deps.log.warn("journal compaction failed", { error: (error as Error).message }));
  };
  pass();
  const timer = setInterval(pass, deps.everyMs ?? 6 * 3_600_000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
