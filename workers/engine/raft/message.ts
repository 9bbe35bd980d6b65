/**
 * @module Messages between voters: a closed union with kebab-case `type`. Every message names its
 * sender, its addressee and the sender's term. `round` on append-entries is the leader's
 * heartbeat round, echoed back so a read index can be confirmed by a majority (§6.4 of Ongaro's
 * thesis).
 */
import type { LogEntry } from "./log-entry.ts";
import type { Snapshot } from "./persistent-state.ts";

interface Envelope {
  readonly from: string;
  readonly to: string;
  readonly term: number;
}

/** A would-be candidate asks whether it could win an election at `term` (not yet its own term). */
export interface PreVote extends Envelope {
  readonly type: "pre-vote";
  readonly lastIndex: number;
  readonly lastTerm: number;
}

/** The answer to a pre-vote; when granted, `term` is the term asked about. */
export interface PreVoteReply extends Envelope {
  readonly type: "pre-vote-reply";
  readonly granted: boolean;
}

/** A candidate asks for a vote in its term. */
export interface RequestVote extends Envelope {
  readonly type: "request-vote";
  readonly lastIndex: number;
  readonly lastTerm: number;
}

/** The answer to a request for a vote; only sent once the vote is on disk. */
export interface RequestVoteReply extends Envelope {
  readonly type: "request-vote-reply";
  readonly granted: boolean;
}

/** Entries (possibly none: a heartbeat) following `prevIndex`, with the leader's commit index. */
export interface AppendEntries extends Envelope {
  readonly type: "append-entries";
  readonly prevIndex: number;
  readonly prevTerm: number;
  readonly entries: readonly LogEntry[];
  readonly commit: number;
  readonly round: number;
  /** Tells a voter that recovered from an empty disk that it may vote again (see recovery.ts). */
  readonly reinstate: boolean;
}

/**
 * The answer to append-entries. On success `match` is the last index known to agree with the
 * leader; on failure `hint` is where the follower's log might agree. Sent only once durable.
 */
export interface AppendEntriesReply extends Envelope {
  readonly type: "append-entries-reply";
  readonly success: boolean;
  readonly match: number;
  readonly rejectedPrev: number;
  readonly hint: number;
  readonly round: number;
  readonly recovering: boolean;
}

/** The leader's snapshot, for a follower whose next entry it has compacted away. */
export interface InstallSnapshot extends Envelope {
  readonly type: "install-snapshot";
  readonly snapshot: Snapshot;
  readonly round: number;
}

/** The answer to install-snapshot: the follower's log now agrees up to `match`. */
export interface InstallSnapshotReply extends Envelope {
  readonly type: "install-snapshot-reply";
  readonly match: number;
  readonly round: number;
  readonly recovering: boolean;
}

/** Any message between voters. */
export type Message = PreVote | PreVoteReply | RequestVote | RequestVoteReply | AppendEntries | AppendEntriesReply | InstallSnapshot | InstallSnapshotReply;

/** Message kinds a voter may send only after every write it has asked for is durable. */
export const REPLIES_AFTER_PERSIST: ReadonlySet<Message["type"]> = new Set(["request-vote", "request-vote-reply", "append-entries-reply", "install-snapshot-reply"]);
