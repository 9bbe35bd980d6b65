/**
 * @module The replicated log's entries. A `command` entry carries opaque data (the engine packs a
 * batch of signed commands into one entry: group commit); a `no-op` is what a new leader appends
 * so that it can commit — and learn the commit index of — its own term.
 */

/** An entry the leader appended to carry a batch of commands (opaque to Raft). */
export interface CommandEntry {
  readonly type: "command";
  readonly index: number;
  readonly term: number;
  readonly data: string;
}

/** The empty entry a new leader appends at the start of its term. */
export interface NoOpEntry {
  readonly type: "no-op";
  readonly index: number;
  readonly term: number;
}

/** One entry of the replicated log. */
export type LogEntry = CommandEntry | NoOpEntry;

/** True when two entries are the same entry (same place, same term, same content). */
export function sameEntry(a: LogEntry, b: LogEntry): boolean {
  if (a.index !== b.index || a.term !== b.term || a.type !== b.type) return false;
  return a.type === "no-op" || a.data === (b as CommandEntry).data;
}
