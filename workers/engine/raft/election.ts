/**
 * @module Votes: answering pre-votes and requests for votes, and counting the answers. A voter
 * that has heard from a leader within the minimum election timeout ignores both (§9.6), so a
 * voter rejoining from a partition cannot depose a healthy leader; a voter recovering from an
 * empty disk never votes (recovery.ts).
 */
import type { StepContext } from "./context.ts";
import type { PreVote, PreVoteReply, RequestVote, RequestVoteReply } from "./message.ts";
import type { NodeState } from "./node-state.ts";
import { isUpToDate } from "./raft-log.ts";
import { becomeCandidate, becomeLeader, wonVotes } from "./roles.ts";

/** Heard from a live leader recently enough that elections are not needed. */
export function inLease(s: NodeState): boolean {
  return s.config.checkQuorum && s.leader !== null && s.electionElapsed < s.config.electionTicks;
}

/** Grants a pre-vote for a later term when this voter would vote and has no live leader. */
export function handlePreVote(ctx: StepContext, m: PreVote): void {
  const s = ctx.s;
  const granted = !s.recovering && m.term > s.term && !inLease(s) && isUpToDate(s, m.lastIndex, m.lastTerm);
  ctx.sends.push({ type: "pre-vote-reply", from: s.config.id, to: m.from, term: granted ? m.term : s.term, granted });
}

/** Counts a pre-vote; a majority makes this voter a real candidate. */
export function handlePreVoteReply(ctx: StepContext, m: PreVoteReply): void {
  const s = ctx.s;
  if (s.role !== "pre-candidate" || m.term !== s.term + 1) return;
  s.votes = { ...s.votes, [m.from]: m.granted };
  if (wonVotes(ctx)) becomeCandidate(ctx);
}

/** §5.2, §5.4.1: one vote per term, only for a log at least as up to date. */
export function handleRequestVote(ctx: StepContext, m: RequestVote): void {
  const s = ctx.s;
  const granted = !s.recovering && s.role !== "leader" && (s.votedFor === null || s.votedFor === m.from) && isUpToDate(s, m.lastIndex, m.lastTerm);
  if (granted) {
    s.votedFor = m.from;
    s.electionElapsed = 0;
  }
  ctx.sends.push({ type: "request-vote-reply", from: s.config.id, to: m.from, term: s.term, granted });
}

/** Counts a vote of this term; a majority makes this voter the leader. */
export function handleVoteReply(ctx: StepContext, m: RequestVoteReply): void {
  const s = ctx.s;
  if (s.role !== "candidate") return;
  if (m.term !== s.term && !(s.config.bugs?.countStaleVotes && m.term < s.term)) return;
  s.votes = { ...s.votes, [m.from]: m.granted };
  if (wonVotes(ctx)) becomeLeader(ctx);
}
