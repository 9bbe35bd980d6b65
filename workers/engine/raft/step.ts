/**
 * @module The voter as a pure function: `step(state, event) → {state, effects}`. This is the
 * dispatch hub; the rules live in election.ts, replication.ts, snapshots.ts, read-index.ts and
 * recovery.ts. After each event it works out, in one place, what must be written (a `persist`
 * effect covering every change to term, vote, snapshot and log made by this step) and holds back
 * every reply that promises durable state until the runtime confirms the write with `persisted`.
 */
import { peersOf } from "./config.ts";
import type { Draft, StepContext } from "./context.ts";
import { markUnstable } from "./context.ts";
import type { Effect } from "./effect.ts";
import { handlePreVote, handlePreVoteReply, handleRequestVote, handleVoteReply, inLease } from "./election.ts";
import type { RaftEvent } from "./event.ts";
import type { Message } from "./message.ts";
import { REPLIES_AFTER_PERSIST } from "./message.ts";
import type { NodeState } from "./node-state.ts";
import { entriesBetween, lastIndex } from "./raft-log.ts";
import { confirmReads, handleReadIndex, startReads } from "./read-index.ts";
import { applyReady, broadcastAppend, handleAppend, handleAppendReply, maybeCommit, sendAppend } from "./replication.ts";
import { becomeFollower, campaign } from "./roles.ts";
import { handleInstallSnapshot, takeSnapshot } from "./snapshots.ts";

/** The result of one step: the next state and what the runtime must do, in order. */
export interface StepResult {
  readonly state: NodeState;
  readonly effects: readonly Effect[];
}

/** Advances a voter by one event. Pure: the input state is not changed. */
export function step(state: NodeState, event: RaftEvent): StepResult {
  const ctx: StepContext = { s: { ...state } as Draft, effects: [], sends: [], unstableFrom: null, snapshotChanged: false };
  switch (event.type) {
    case "tick":
      onTick(ctx);
      break;
    case "message":
      onMessage(ctx, event.message);
      break;
    case "propose":
      onPropose(ctx, event.id, event.data);
      break;
    case "read-index":
      handleReadIndex(ctx, event.id);
      break;
    case "persisted":
      onPersisted(ctx, event.id);
      break;
    case "applied":
      if (event.index > ctx.s.applied) ctx.s.applied = Math.min(event.index, ctx.s.applying);
      break;
    case "snapshot-taken":
      takeSnapshot(ctx, event.index, event.data);
      break;
    default: {
      const never: never = event;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
  return finish(ctx, state);
}

function onTick(ctx: StepContext): void {
  const s = ctx.s;
  s.now += 1;
  s.electionElapsed += 1;
  if (s.role !== "leader") {
    const alone = peersOf(s.config).length === 0;
    if (!s.recovering && (alone || s.electionElapsed >= s.electionTimeout)) campaign(ctx);
    return;
  }
  if (s.electionElapsed >= s.config.electionTicks) {
    // Check quorum: a leader that has not heard from a majority in an election timeout steps down.
    const active = 1 + peersOf(s.config).filter((p) => s.progress[p]!.active).length;
    if (s.config.checkQuorum && active < Math.floor(s.config.voters.length / 2) + 1) return becomeFollower(ctx, s.term, null);
    s.progress = Object.fromEntries(Object.entries(s.progress).map(([p, pr]) => [p, { ...pr, active: false }]));
    s.electionElapsed = 0;
  }
  s.heartbeatElapsed += 1;
  if (s.heartbeatElapsed >= s.config.heartbeatTicks) {
    s.heartbeatElapsed = 0;
    broadcastAppend(ctx);
  }
}

function onMessage(ctx: StepContext, m: Message): void {
  const s = ctx.s;
  if (m.to !== s.config.id || !s.config.voters.includes(m.from) || m.from === s.config.id) return;
  if (m.term > s.term) {
    const keepsTerm = m.type === "pre-vote" || (m.type === "pre-vote-reply" && m.granted);
    if (m.type === "request-vote" && inLease(s)) return;
    if (!keepsTerm) becomeFollower(ctx, m.term, m.type === "append-entries" || m.type === "install-snapshot" ? m.from : null);
  } else if (m.term < s.term) {
    return onStaleMessage(ctx, m);
  }
  switch (m.type) {
    case "pre-vote":
      return handlePreVote(ctx, m);
    case "pre-vote-reply":
      return handlePreVoteReply(ctx, m);
    case "request-vote":
      return handleRequestVote(ctx, m);
    case "request-vote-reply":
      return handleVoteReply(ctx, m);
    case "append-entries":
      return handleAppend(ctx, m);
    case "install-snapshot":
      return handleInstallSnapshot(ctx, m);
    case "append-entries-reply":
    case "install-snapshot-reply":
      return handleAppendReply(ctx, m);
    default: {
      const never: never = m;
      throw new Error(`unknown message ${JSON.stringify(never)}`);
    }
  }
}

/** A message from an older term: tell a stale leader or pre-candidate our term; drop the rest. */
function onStaleMessage(ctx: StepContext, m: Message): void {
  const s = ctx.s;
  const base = { from: s.config.id, to: m.from, term: s.term };
  if (m.type === "append-entries") ctx.sends.push({ ...base, type: "append-entries-reply", success: false, match: 0, rejectedPrev: m.prevIndex, hint: 0, round: m.round, recovering: s.recovering });
  else if (m.type === "install-snapshot") ctx.sends.push({ ...base, type: "install-snapshot-reply", match: 0, round: m.round, recovering: s.recovering });
  else if (m.type === "pre-vote") ctx.sends.push({ ...base, type: "pre-vote-reply", granted: false });
  else if (m.type === "request-vote-reply" && s.config.bugs?.countStaleVotes) handleVoteReply(ctx, m);
}

function onPropose(ctx: StepContext, id: string, data: string): void {
  const s = ctx.s;
  if (s.role !== "leader") {
    ctx.effects.push({ type: "rejected", id, request: "propose", leader: s.leader });
    return;
  }
  const index = lastIndex(s) + 1;
  s.log = [...s.log, { type: "command", index, term: s.term, data }];
  markUnstable(ctx, index);
  ctx.effects.push({ type: "proposed", id, index, term: s.term });
  // Followers that are caught up get the entry now; the others catch up from their replies.
  for (const peer of peersOf(s.config)) if (s.progress[peer]!.next === index) sendAppend(ctx, peer);
}

function onPersisted(ctx: StepContext, id: number): void {
  const s = ctx.s;
  if (id <= s.durableSeq) return;
  s.durableSeq = Math.min(id, s.persistSeq);
  for (const w of s.inflightWrites) if (w.id <= s.durableSeq) s.durableIndex = Math.max(s.durableIndex, w.upTo);
  s.inflightWrites = s.inflightWrites.filter((w) => w.id > s.durableSeq);
  const ready = s.held.filter((h) => h.after <= s.durableSeq);
  s.held = s.held.filter((h) => h.after > s.durableSeq);
  for (const h of ready) ctx.effects.push({ type: "send", message: h.message });
  maybeCommit(ctx);
  startReads(ctx);
}

/** Applies, confirms reads, then turns this step's changes into one persist and releases or holds sends. */
function finish(ctx: StepContext, before: NodeState): StepResult {
  const s = ctx.s;
  applyReady(ctx);
  if (s.role === "leader") confirmReads(ctx);
  const head: Effect[] = [];
  if (s.role !== before.role || s.term !== before.term || s.leader !== before.leader) head.push({ type: "role-changed", role: s.role, term: s.term, leader: s.leader });
  if (ctx.unstableFrom !== null) {
    const keep = ctx.unstableFrom - 1;
    s.durableIndex = Math.min(s.durableIndex, keep);
    s.inflightWrites = s.inflightWrites.map((w) => (w.upTo > keep ? { ...w, upTo: keep } : w));
  }
  if (ctx.unstableFrom !== null || ctx.snapshotChanged || s.term !== before.term || s.votedFor !== before.votedFor || s.recovering !== before.recovering) {
    const last = lastIndex(s);
    const fromIndex = Math.max(ctx.unstableFrom ?? last + 1, s.snapshot.lastIndex + 1);
    s.persistSeq += 1;
    s.inflightWrites = [...s.inflightWrites, { id: s.persistSeq, upTo: last }];
    head.push({
      type: "persist",
      id: s.persistSeq,
      term: s.term,
      votedFor: s.votedFor,
      recovering: s.recovering,
      ...(ctx.snapshotChanged ? { snapshot: s.snapshot } : {}),
      fromIndex,
      entries: fromIndex <= last ? entriesBetween(s, fromIndex, last) : [],
      lastIndex: last,
    });
  }
  const waiting = s.persistSeq > s.durableSeq && !s.config.bugs?.replyBeforePersist;
  const sends: Effect[] = [];
  for (const message of ctx.sends) {
    if (waiting && REPLIES_AFTER_PERSIST.has(message.type)) s.held = [...s.held, { after: s.persistSeq, message }];
    else sends.push({ type: "send", message });
  }
  return { state: s, effects: [...head, ...ctx.effects, ...sends] };
}
