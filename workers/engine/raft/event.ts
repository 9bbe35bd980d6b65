/**
 * @module Everything that can happen to a voter, as values: the runtime turns timers, sockets,
 * fsync completions and client requests into these and feeds them to `step`.
 */
import type { Message } from "./message.ts";

/** One unit of logical time passed (the runtime decides how many milliseconds a tick is). */
export interface Tick {
  readonly type: "tick";
}

/** A message from another voter arrived. */
export interface Receive {
  readonly type: "message";
  readonly message: Message;
}

/** A client asks to append `data` (a batch of commands) to the log. */
export interface Propose {
  readonly type: "propose";
  readonly id: string;
  readonly data: string;
}

/** A client asks for a linearizable read point. */
export interface ReadIndex {
  readonly type: "read-index";
  readonly id: string;
}

/** Every `persist` effect up to and including `id` is on disk (fsynced). */
export interface Persisted {
  readonly type: "persisted";
  readonly id: number;
}

/** The state machine has applied every entry up to `index`. */
export interface Applied {
  readonly type: "applied";
  readonly index: number;
}

/** The runtime saved a snapshot of its state machine as of `index` (≤ applied); the log before may go. */
export interface SnapshotTaken {
  readonly type: "snapshot-taken";
  readonly index: number;
  readonly data: string;
}

/** Any input to the step function. */
export type RaftEvent = Tick | Receive | Propose | ReadIndex | Persisted | Applied | SnapshotTaken;
