/**
 * @module Role transitions: follower, pre-candidate (§9.6 pre-vote: asks without raising its
 * term), candidate, leader. A new leader appends a no-op so it can commit an entry of its own
 * term; a voter that stops leading rejects the reads it was holding.
 */
import { peersOf, quorum } from "./config.ts";
import type { StepContext } from "./context.ts";
import { markUnstable } from "./context.ts";
import { drawTimeout, freshProgress } from "./node-state.ts";
import { lastIndex, lastTerm } from "./raft-log.ts";
import { broadcastAppend } from "./replication.ts";
import { failReads } from "./read-index.ts";

/** Restarts the election timer with a fresh random timeout. */
export function resetElectionTimer(ctx: StepContext): void {
  const [timeout, rng] = drawTimeout(ctx.s.config, ctx.s.rng);
  ctx.s.electionTimeout = timeout;
  ctx.s.rng = rng;
  ctx.s.electionElapsed = 0;
}

/** Becomes a follower in `term` (a higher term forgets the vote) under `leader` if known. */
export function becomeFollower(ctx: StepContext, term: number, leader: string | null): void {
  const s = ctx.s;
  if (term > s.term) {
    s.term = term;
    s.votedFor = null;
  }
  if (s.role === "leader" || s.reads.length > 0) failReads(ctx);
  const wasLeader = s.role === "leader";
  s.role = "follower";
  s.leader = leader;
  s.votes = {};
  // Only hearing from a leader or granting a vote restarts the timer (Figure 2): a voter that
  // merely learns a higher term keeps counting, or a candidate with a stale log that keeps
  // raising the term would stop everyone else from ever standing.
  if (wasLeader) resetElectionTimer(ctx);
}

/** Starts an election: by pre-vote when configured, else directly. */
export function campaign(ctx: StepContext): void {
  if (ctx.s.config.preVote) becomePreCandidate(ctx);
  else becomeCandidate(ctx);
}

function grantedCount(votes: Readonly<Record<string, boolean>>): number {
  return Object.values(votes).filter(Boolean).length;
}

/** True when the recorded votes make a majority. */
export function wonVotes(ctx: StepContext): boolean {
  return grantedCount(ctx.s.votes) >= quorum(ctx.s.config);
}

function becomePreCandidate(ctx: StepContext): void {
  const s = ctx.s;
  s.role = "pre-candidate";
  s.leader = null;
  s.votes = { [s.config.id]: true };
  resetElectionTimer(ctx);
  if (wonVotes(ctx)) return becomeCandidate(ctx);
  for (const to of peersOf(s.config)) ctx.sends.push({ type: "pre-vote", from: s.config.id, to, term: s.term + 1, lastIndex: lastIndex(s), lastTerm: lastTerm(s) });
}

/** Raises the term, votes for itself and asks the others (sent once the vote is durable). */
export function becomeCandidate(ctx: StepContext): void {
  const s = ctx.s;
  s.term += 1;
  s.votedFor = s.config.id;
  s.role = "candidate";
  s.leader = null;
  s.votes = { [s.config.id]: true };
  resetElectionTimer(ctx);
  if (wonVotes(ctx)) return becomeLeader(ctx);
  for (const to of peersOf(s.config)) ctx.sends.push({ type: "request-vote", from: s.config.id, to, term: s.term, lastIndex: lastIndex(s), lastTerm: lastTerm(s) });
}

/** Takes the lead: fresh progress for every follower, a no-op of this term, a first round of appends. */
export function becomeLeader(ctx: StepContext): void {
  const s = ctx.s;
  s.role = "leader";
  s.leader = s.config.id;
  s.votes = {};
  s.electionElapsed = 0;
  s.heartbeatElapsed = 0;
  const index = lastIndex(s) + 1;
  s.progress = Object.fromEntries(peersOf(s.config).map((p) => [p, freshProgress(index)]));
  s.log = [...s.log, { type: "no-op", index, term: s.term }];
  markUnstable(ctx, index);
  broadcastAppend(ctx);
}
