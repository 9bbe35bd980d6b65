/**
 * @module What a voter tells the console and `/health`: role, term, leader, commit and applied
 * index, and for a leader each follower's match, lag and last contact (in ticks ago).
 */
import { peersOf } from "./config.ts";
import type { NodeState } from "./node-state.ts";
import { lastIndex } from "./raft-log.ts";

/** One follower as its leader sees it. */
export interface FollowerStatus {
  readonly match: number;
  readonly next: number;
  readonly lag: number;
  readonly lastContactTicksAgo: number;
  readonly recovering: boolean;
}

/** A voter's visible state. A pre-candidate reports itself as a candidate. */
export interface RaftStatus {
  readonly id: string;
  readonly role: "leader" | "follower" | "candidate";
  readonly term: number;
  readonly leader: string | null;
  readonly commitIndex: number;
  readonly appliedIndex: number;
  readonly lastIndex: number;
  readonly snapshotIndex: number;
  readonly recovering: boolean;
  readonly followers: Readonly<Record<string, FollowerStatus>>;
}

/** The status of a voter. */
export function status(s: NodeState): RaftStatus {
  const last = lastIndex(s);
  const followers: Record<string, FollowerStatus> = {};
  if (s.role === "leader") {
    for (const p of peersOf(s.config)) {
      const pr = s.progress[p]!;
      followers[p] = { match: pr.match, next: pr.next, lag: last - pr.match, lastContactTicksAgo: s.now - pr.lastContact, recovering: pr.recovering };
    }
  }
  return {
    id: s.config.id,
    role: s.role === "pre-candidate" ? "candidate" : s.role,
    term: s.term,
    leader: s.leader,
    commitIndex: s.commit,
    appliedIndex: s.applied,
    lastIndex: last,
    snapshotIndex: s.snapshot.lastIndex,
    recovering: s.recovering,
    followers,
  };
}
