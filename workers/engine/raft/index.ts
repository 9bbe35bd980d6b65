/**
 * @module The Raft core's public surface: a pure, deterministic state machine for one voter.
 * `restore` builds a voter from its storage, `step` advances it by one event and returns the
 * effects the runtime must carry out; `status` reports it. The runtime owns sockets, disk and timers.
 */
export { raftConfig, quorum } from "./config.ts";
export type { InjectedBugs, RaftConfig } from "./config.ts";
export type { Effect } from "./effect.ts";
export type { RaftEvent } from "./event.ts";
export type { CommandEntry, LogEntry, NoOpEntry } from "./log-entry.ts";
export { sameEntry } from "./log-entry.ts";
export type { Message } from "./message.ts";
export { restore } from "./node-state.ts";
export type { NodeState, RestoreOptions, Role } from "./node-state.ts";
export { applyPersist, EMPTY_STORAGE } from "./persistent-state.ts";
export type { PersistentState, PersistRecord, Snapshot } from "./persistent-state.ts";
export { lastIndex, termAt, entryAt } from "./raft-log.ts";
export { Random } from "../../../shared/random.ts";
export { status } from "./status.ts";
export type { RaftStatus } from "./status.ts";
export { step } from "./step.ts";
export type { StepResult } from "./step.ts";
