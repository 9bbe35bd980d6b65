/**
 * @module A voter's whole state as one plain value: the persistent part (term, vote, snapshot,
 * log) as the core sees it, and the volatile part (role, commit, timers, per-follower progress,
 * writes in flight, held replies, pending reads). `restore` builds it from storage.
 */
import type { RaftConfig } from "./config.ts";
import { peersOf } from "./config.ts";
import type { LogEntry } from "./log-entry.ts";
import type { Message } from "./message.ts";
import type { PersistentState, Snapshot } from "./persistent-state.ts";
import { nextInt } from "../../../shared/random.ts";

/** A voter's role; a pre-candidate is still a follower to the world (it has not changed term). */
export type Role = "follower" | "pre-candidate" | "candidate" | "leader";

/** What a leader knows of one follower. */
export interface Progress {
  /** Next index to send (optimistically advanced while pipelining). */
  readonly next: number;
  /** Highest index known to be durable on the follower and equal to ours. */
  readonly match: number;
  /** Heard from since the last check-quorum period. */
  readonly active: boolean;
  /** Tick of the last reply. */
  readonly lastContact: number;
  /** Highest heartbeat round the follower answered. */
  readonly round: number;
  /** Tick a snapshot was last sent, so it is not resent every heartbeat. */
  readonly snapshotSentAt: number | null;
  /** The follower restarted on an empty disk and may not vote yet; set from its replies. */
  readonly recovering: boolean;
  /** Index the follower's reinstatement waits for to commit (recovery.ts). */
  readonly reinstateAt: number | null;
}

/** A read waiting for its confirmation round and then for the state machine to catch up. */
export interface PendingRead {
  readonly id: string;
  /** Null until the leader has committed an entry of its own term. */
  readonly index: number | null;
  readonly round: number;
}

/** A message held until every write asked for up to `after` is durable. */
export interface HeldMessage {
  readonly after: number;
  readonly message: Message;
}

/** The complete state of one voter. Treat as immutable: `step` returns a new one. */
export interface NodeState {
  readonly config: RaftConfig;
  readonly term: number;
  readonly votedFor: string | null;
  readonly snapshot: Snapshot;
  readonly log: readonly LogEntry[];
  readonly role: Role;
  readonly leader: string | null;
  readonly commit: number;
  /** Highest index handed to the runtime in `apply` (or installed by snapshot). */
  readonly applying: number;
  /** Highest index the runtime confirmed applied. */
  readonly applied: number;
  readonly now: number;
  readonly electionElapsed: number;
  readonly electionTimeout: number;
  readonly heartbeatElapsed: number;
  readonly rng: number;
  readonly votes: Readonly<Record<string, boolean>>;
  readonly progress: Readonly<Record<string, Progress>>;
  readonly round: number;
  readonly reads: readonly PendingRead[];
  /** Id of the last `persist` asked for, and of the last confirmed. */
  readonly persistSeq: number;
  readonly durableSeq: number;
  /** Every log index up to this one is on disk as the core sees it. */
  readonly durableIndex: number;
  readonly inflightWrites: readonly { readonly id: number; readonly upTo: number }[];
  readonly held: readonly HeldMessage[];
  /** Started on an empty disk in a cluster that has history: may not vote until reinstated. */
  readonly recovering: boolean;
}

/** Options for `restore`. */
export interface RestoreOptions {
  /** Seed of the election-timeout random source (any 32-bit integer; from crypto in production). */
  readonly seed: number;
  /** The state machine is durable and has applied up to here (defaults to the snapshot index). */
  readonly applied?: number;
}

/** A fresh election timeout in [electionTicks, 2·electionTicks). */
export function drawTimeout(config: RaftConfig, rng: number): [number, number] {
  const [v, next] = nextInt(rng, config.electionTicks);
  return [config.electionTicks + v, next];
}

/** Builds a voter's state from what its storage holds (empty storage on first start). */
export function restore(config: RaftConfig, storage: PersistentState, options: RestoreOptions): NodeState {
  const [electionTimeout, rng] = drawTimeout(config, options.seed);
  const last = storage.log.length > 0 ? storage.log[storage.log.length - 1]!.index : storage.snapshot.lastIndex;
  const applied = Math.min(Math.max(storage.snapshot.lastIndex, options.applied ?? 0), last);
  return {
    config,
    term: storage.term,
    votedFor: storage.votedFor,
    snapshot: storage.snapshot,
    log: storage.log,
    role: "follower",
    leader: null,
    commit: applied,
    applying: applied,
    applied,
    now: 0,
    electionElapsed: 0,
    electionTimeout,
    heartbeatElapsed: 0,
    rng,
    votes: {},
    progress: Object.fromEntries(peersOf(config).map((p) => [p, freshProgress(last + 1)])),
    round: 0,
    reads: [],
    persistSeq: 0,
    durableSeq: 0,
    durableIndex: last,
    inflightWrites: [],
    held: [],
    recovering: storage.recovering,
  };
}

/** Progress for a follower nothing is known about yet. */
export function freshProgress(next: number): Progress {
  return { next, match: 0, active: false, lastContact: 0, round: 0, snapshotSentAt: null, recovering: false, reinstateAt: null };
}
