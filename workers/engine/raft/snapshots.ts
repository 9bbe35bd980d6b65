/**
 * @module Snapshots and log compaction (§7): the runtime reports a snapshot of its state machine
 * and the core drops the log it covers; a follower whose next entry was compacted away gets the
 * snapshot instead (InstallSnapshot, unchunked), keeping any later entries that still agree.
 */
import type { StepContext } from "./context.ts";
import { markUnstable } from "./context.ts";
import { setProgress } from "./context.ts";
import type { InstallSnapshot } from "./message.ts";
import { termAt } from "./raft-log.ts";
import { becomeFollower } from "./roles.ts";

/** Compacts the log up to `index`, which the state machine has applied and saved as `data`. */
export function takeSnapshot(ctx: StepContext, index: number, data: string): void {
  const s = ctx.s;
  if (index <= s.snapshot.lastIndex || index > s.applied) return;
  const lastTerm = termAt(s, index);
  if (lastTerm === undefined) return;
  s.snapshot = { lastIndex: index, lastTerm, data };
  s.log = s.log.filter((e) => e.index > index);
  ctx.snapshotChanged = true;
}

/** Sends the snapshot to a follower, at most once per election timeout while unanswered. */
export function sendSnapshot(ctx: StepContext, peer: string): void {
  const s = ctx.s;
  const p = s.progress[peer];
  if (!p || (p.snapshotSentAt !== null && s.now - p.snapshotSentAt < s.config.electionTicks)) return;
  ctx.sends.push({ type: "install-snapshot", from: s.config.id, to: peer, term: s.term, snapshot: s.snapshot, round: s.round });
  setProgress(ctx, peer, { snapshotSentAt: s.now });
}

/** A follower installs the leader's snapshot unless it already has everything it covers. */
export function handleInstallSnapshot(ctx: StepContext, m: InstallSnapshot): void {
  const s = ctx.s;
  if (s.role === "leader") return;
  if (s.role !== "follower" || s.leader !== m.from) becomeFollower(ctx, s.term, m.from);
  s.electionElapsed = 0;
  const snap = m.snapshot;
  const answer = (match: number): void => {
    ctx.sends.push({ type: "install-snapshot-reply", from: s.config.id, to: m.from, term: s.term, match, round: m.round, recovering: s.recovering });
  };
  if (snap.lastIndex <= s.commit) return answer(s.commit);
  if (termAt(s, snap.lastIndex) === snap.lastTerm) {
    s.log = s.log.filter((e) => e.index > snap.lastIndex);
  } else {
    markUnstable(ctx, s.snapshot.lastIndex + 1);
    s.log = [];
  }
  s.snapshot = snap;
  ctx.snapshotChanged = true;
  s.commit = snap.lastIndex;
  s.applying = snap.lastIndex;
  s.applied = snap.lastIndex;
  ctx.effects.push({ type: "install-snapshot", snapshot: snap });
  answer(snap.lastIndex);
}
