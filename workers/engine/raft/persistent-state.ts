/**
 * @module What a voter keeps on disk: current term, the vote it cast in that term, the log after
 * its snapshot, and the snapshot itself. The runtime writes it when the core emits `persist`
 * (in order, coalescing as it likes) and hands it back to `restore` after a restart.
 */
import type { LogEntry } from "./log-entry.ts";

/** A state-machine image covering every entry up to `lastIndex` (whose term was `lastTerm`). */
export interface Snapshot {
  readonly lastIndex: number;
  readonly lastTerm: number;
  readonly data: string;
}

/** A voter's durable state. `log` holds the entries after `snapshot.lastIndex`, in order. */
export interface PersistentState {
  readonly term: number;
  readonly votedFor: string | null;
  readonly snapshot: Snapshot;
  readonly log: readonly LogEntry[];
  /** Set by the runtime when it starts on a lost disk; cleared once a leader reinstates the voter (recovery.ts). */
  readonly recovering: boolean;
}

/** The snapshot of nothing: index 0, term 0. */
export const EMPTY_SNAPSHOT: Snapshot = Object.freeze({ lastIndex: 0, lastTerm: 0, data: "" });

/** A voter's storage on first start (or after losing its disk). */
export const EMPTY_STORAGE: PersistentState = Object.freeze({ term: 0, votedFor: null, snapshot: EMPTY_SNAPSHOT, log: Object.freeze([]), recovering: false });

/**
 * One durable write, as the core asks for it: set term and vote; when `snapshot` is present,
 * replace the snapshot and drop the entries it covers; then drop every entry from `fromIndex` on
 * and append `entries`. Applying these in order to storage reproduces the core's own view.
 */
export interface PersistRecord {
  readonly term: number;
  readonly votedFor: string | null;
  readonly recovering: boolean;
  readonly snapshot?: Snapshot;
  readonly fromIndex: number;
  readonly entries: readonly LogEntry[];
}

/** Applies one persist record to a storage image (used by runtimes and the simulation alike). */
export function applyPersist(storage: PersistentState, write: PersistRecord): PersistentState {
  let snapshot = storage.snapshot;
  let log = storage.log;
  if (write.snapshot) {
    const s = write.snapshot;
    const at = log.find((e) => e.index === s.lastIndex);
    log = at && at.term === s.lastTerm ? log.filter((e) => e.index > s.lastIndex) : [];
    snapshot = s;
  }
  const kept = log.filter((e) => e.index < write.fromIndex);
  return { term: write.term, votedFor: write.votedFor, recovering: write.recovering, snapshot, log: kept.length === log.length && write.entries.length === 0 ? log : [...kept, ...write.entries] };
}
