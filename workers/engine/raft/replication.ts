/**
 * @module Log replication (§5.3): the leader pipelines entries to each follower, optimistically
 * advancing `next` and backing off on rejection; a follower checks the previous entry, truncates
 * only real conflicts and advances its commit to what it has verified. The leader commits by
 * counting durable replicas — its own only once fsynced — and only entries of its own term (§5.4.2).
 */
import { peersOf, quorum } from "./config.ts";
import type { StepContext } from "./context.ts";
import { markUnstable, setProgress } from "./context.ts";
import type { AppendEntries, AppendEntriesReply, InstallSnapshotReply } from "./message.ts";
import { entriesBetween, lastIndex, termAt } from "./raft-log.ts";
import { startReads } from "./read-index.ts";
import { maybeReinstate, reinstateNow } from "./recovery.ts";
import { becomeFollower } from "./roles.ts";
import { sendSnapshot } from "./snapshots.ts";

/** Sends a follower what it lacks: the next entries (or none: a heartbeat), or the snapshot. */
export function sendAppend(ctx: StepContext, peer: string): void {
  const s = ctx.s;
  const p = s.progress[peer];
  if (!p) return;
  const prevIndex = p.next - 1;
  const prevTerm = termAt(s, prevIndex);
  if (prevTerm === undefined) return sendSnapshot(ctx, peer);
  const to = Math.min(lastIndex(s), prevIndex + s.config.maxEntriesPerMessage);
  const entries = to > prevIndex ? entriesBetween(s, prevIndex + 1, to) : [];
  ctx.sends.push({ type: "append-entries", from: s.config.id, to: peer, term: s.term, prevIndex, prevTerm, entries, commit: s.commit, round: s.round, reinstate: reinstateNow(s, peer) });
  if (entries.length > 0) setProgress(ctx, peer, { next: to + 1 });
}

/** Sends every follower an append (new entries, or a heartbeat). */
export function broadcastAppend(ctx: StepContext): void {
  for (const peer of peersOf(ctx.s.config)) sendAppend(ctx, peer);
}

function reply(ctx: StepContext, m: AppendEntries, success: boolean, match: number, hint: number): void {
  const s = ctx.s;
  ctx.sends.push({ type: "append-entries-reply", from: s.config.id, to: m.from, term: s.term, success, match, rejectedPrev: m.prevIndex, hint, round: m.round, recovering: s.recovering });
}

/** A follower's side of append-entries (the term already equals ours). */
export function handleAppend(ctx: StepContext, m: AppendEntries): void {
  const s = ctx.s;
  if (s.role === "leader") return; // a second leader in one term: impossible unless a bug is injected
  if (s.role !== "follower" || s.leader !== m.from) becomeFollower(ctx, s.term, m.from);
  s.electionElapsed = 0;
  if (m.reinstate && s.recovering) {
    s.recovering = false;
    if (s.votedFor === null) s.votedFor = m.from;
  }
  // Entries up to our commit are committed and equal everywhere (some are compacted here).
  if (m.prevIndex < s.commit) return reply(ctx, m, true, s.commit, 0);
  const prevTerm = termAt(s, m.prevIndex);
  if (prevTerm !== m.prevTerm) return reply(ctx, m, false, 0, Math.min(m.prevIndex - 1, lastIndex(s)));
  let log = s.log;
  for (const e of m.entries) {
    const have = termAt({ snapshot: s.snapshot, log }, e.index);
    if (have === e.term) continue;
    if (have !== undefined) {
      if (e.index <= s.commit) throw new Error(`invariant: leader ${m.from} overwrites committed entry ${e.index}`);
      log = log.filter((x) => x.index < e.index);
    }
    log = [...log, ...m.entries.filter((x) => x.index >= e.index)];
    markUnstable(ctx, e.index);
    break;
  }
  s.log = log;
  const lastNew = m.prevIndex + m.entries.length;
  if (m.commit > s.commit) s.commit = Math.max(s.commit, Math.min(m.commit, lastNew));
  reply(ctx, m, true, lastNew, 0);
}

/** The leader's side of an append-entries or install-snapshot reply. */
export function handleAppendReply(ctx: StepContext, m: AppendEntriesReply | InstallSnapshotReply): void {
  const s = ctx.s;
  const p = s.progress[m.from];
  if (s.role !== "leader" || !p) return;
  setProgress(ctx, m.from, { active: true, lastContact: s.now, round: Math.max(p.round, m.round), recovering: m.recovering });
  const success = m.type === "install-snapshot-reply" || m.success;
  if (success) {
    if (m.match > p.match) setProgress(ctx, m.from, { match: m.match });
    if (m.match + 1 > p.next) setProgress(ctx, m.from, { next: m.match + 1 });
    if (m.type === "install-snapshot-reply" || m.match >= s.snapshot.lastIndex) setProgress(ctx, m.from, { snapshotSentAt: null });
    maybeReinstate(ctx, m.from);
    maybeCommit(ctx);
    // Catching up is stop-and-wait: only the reply to the latest batch sends the next one, so
    // duplicated replies cannot multiply the messages in flight.
    const caughtUpToSent = s.progress[m.from]!.next === m.match + 1;
    if ((caughtUpToSent && s.progress[m.from]!.next <= lastIndex(s)) || reinstateNow(s, m.from)) sendAppend(ctx, m.from);
    return;
  }
  if (m.type !== "append-entries-reply") return;
  // A voter that lost its disk no longer has what it acknowledged before (never otherwise).
  if (m.hint < p.match && m.rejectedPrev >= p.match) return resetTo(ctx, m.from, m.hint);
  if (m.rejectedPrev < p.match) return; // stale
  const next = Math.max(p.match + 1, Math.min(p.next, m.hint + 1));
  if (next >= p.next) return; // a duplicate: resending on it would multiply messages
  setProgress(ctx, m.from, { next });
  sendAppend(ctx, m.from);
}

function resetTo(ctx: StepContext, peer: string, last: number): void {
  setProgress(ctx, peer, { match: last, next: last + 1 });
  sendAppend(ctx, peer);
}

/** Advances the commit index to the highest current-term entry a majority holds durably. */
export function maybeCommit(ctx: StepContext): void {
  const s = ctx.s;
  if (s.role !== "leader") return;
  const matches = [s.durableIndex, ...peersOf(s.config).filter((p) => !s.progress[p]!.recovering).map((p) => s.progress[p]!.match)].sort((a, b) => b - a);
  const n = matches[quorum(s.config) - 1];
  if (n === undefined || n <= s.commit) return;
  if (termAt(s, n) !== s.term && !s.config.bugs?.commitPreviousTerm) return;
  s.commit = n;
  startReads(ctx);
  for (const peer of peersOf(s.config)) if (reinstateNow(s, peer)) sendAppend(ctx, peer);
}

/** Hands the runtime every committed entry that is also durable here, in order. */
export function applyReady(ctx: StepContext): void {
  const s = ctx.s;
  const upTo = Math.min(s.commit, s.durableIndex);
  if (upTo <= s.applying) return;
  ctx.effects.push({ type: "apply", entries: entriesBetween(s, s.applying + 1, upTo) });
  s.applying = upTo;
}
