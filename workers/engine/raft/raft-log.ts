/**
 * @module Reading the log behind a snapshot: the last index and term, the term at an index (known
 * for the snapshot's last entry and everything after it), and slices for sending. Pure helpers
 * over the node state; they never change it.
 */
import type { LogEntry } from "./log-entry.ts";
import type { Snapshot } from "./persistent-state.ts";

/** The parts of a node state that hold the log. */
export interface LogView {
  readonly snapshot: Snapshot;
  readonly log: readonly LogEntry[];
}

/** Index of the last entry (the snapshot's when the log after it is empty). */
export function lastIndex(v: LogView): number {
  return v.log.length > 0 ? v.log[v.log.length - 1]!.index : v.snapshot.lastIndex;
}

/** Term of the last entry. */
export function lastTerm(v: LogView): number {
  return v.log.length > 0 ? v.log[v.log.length - 1]!.term : v.snapshot.lastTerm;
}

/** The entry at `index`, if it is in the log (not compacted, not beyond the end). */
export function entryAt(v: LogView, index: number): LogEntry | undefined {
  const first = v.snapshot.lastIndex + 1;
  return index >= first ? v.log[index - first] : undefined;
}

/** Term at `index`: the snapshot's term at its last index (0 at index 0), undefined when compacted or beyond the end. */
export function termAt(v: LogView, index: number): number | undefined {
  if (index === v.snapshot.lastIndex) return v.snapshot.lastTerm;
  return entryAt(v, index)?.term;
}

/** Entries from `from` to `to` inclusive (both must be after the snapshot). */
export function entriesBetween(v: LogView, from: number, to: number): LogEntry[] {
  if (from <= v.snapshot.lastIndex) throw new Error(`entries from ${from} are compacted (snapshot at ${v.snapshot.lastIndex})`);
  const first = v.snapshot.lastIndex + 1;
  return v.log.slice(from - first, to - first + 1) as LogEntry[];
}

/** §5.4.1: a candidate's log is at least as up to date as ours. */
export function isUpToDate(v: LogView, candidateLastIndex: number, candidateLastTerm: number): boolean {
  const t = lastTerm(v);
  return candidateLastTerm > t || (candidateLastTerm === t && candidateLastIndex >= lastIndex(v));
}
