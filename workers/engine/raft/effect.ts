/**
 * @module What the step function asks the runtime to do, as values, in the order to do them.
 * Writes are asked for with `persist` and confirmed with the `persisted` event; messages that
 * promise something about durable state are held inside the core until then, so a runtime cannot
 * send them too early.
 */
import type { LogEntry } from "./log-entry.ts";
import type { Message } from "./message.ts";
import type { PersistRecord, Snapshot } from "./persistent-state.ts";
import type { Role } from "./node-state.ts";

/** Send a message to another voter (best effort: it may be lost, and Raft copes). */
export interface Send {
  readonly type: "send";
  readonly message: Message;
}

/** Write this to disk, in order after earlier writes, then feed back `persisted {id}`. */
export interface Persist extends PersistRecord {
  readonly type: "persist";
  readonly id: number;
  /** The last log index this write makes durable (for `durability local` receipts). */
  readonly lastIndex: number;
}

/** Apply these committed entries to the state machine, in order, then feed back `applied`. */
export interface Apply {
  readonly type: "apply";
  readonly entries: readonly LogEntry[];
}

/** Replace the state machine with this snapshot (sent by the leader); it counts as applied. */
export interface InstallSnapshotEffect {
  readonly type: "install-snapshot";
  readonly snapshot: Snapshot;
}

/** The proposal `id` was appended at `index` in `term`; it is committed once applied there with that term. */
export interface Proposed {
  readonly type: "proposed";
  readonly id: string;
  readonly index: number;
  readonly term: number;
}

/** The read `id` may be served from the state machine now: it has applied at least `index`. */
export interface ReadReady {
  readonly type: "read-ready";
  readonly id: string;
  readonly index: number;
}

/** A proposal or read this voter cannot serve: it is not (or no longer) the leader. */
export interface Rejected {
  readonly type: "rejected";
  readonly id: string;
  readonly request: "propose" | "read-index";
  readonly leader: string | null;
}

/** The voter's role, term or known leader changed. */
export interface RoleChanged {
  readonly type: "role-changed";
  readonly role: Role;
  readonly term: number;
  readonly leader: string | null;
}

/** Anything the runtime must do. */
export type Effect = Send | Persist | Apply | InstallSnapshotEffect | Proposed | ReadReady | Rejected | RoleChanged;
