/**
 * @module Linearizable reads without a lease (§6.4 of Ongaro's thesis): the leader records its
 * commit index as the read point — only once it has committed an entry of its own term — starts
 * a heartbeat round, and answers when a majority has acknowledged that round and the state
 * machine has applied the read point.
 */
import { peersOf, quorum } from "./config.ts";
import type { StepContext } from "./context.ts";
import { termAt } from "./raft-log.ts";
import { broadcastAppend } from "./replication.ts";

/** A client asks for a read point. */
export function handleReadIndex(ctx: StepContext, id: string): void {
  const s = ctx.s;
  if (s.role !== "leader") {
    ctx.effects.push({ type: "rejected", id, request: "read-index", leader: s.leader });
    return;
  }
  s.reads = [...s.reads, { id, index: null, round: 0 }];
  startReads(ctx);
}

/** Gives waiting reads the commit index as read point and one new heartbeat round to confirm it. */
export function startReads(ctx: StepContext): void {
  const s = ctx.s;
  if (s.role !== "leader" || termAt(s, s.commit) !== s.term || !s.reads.some((r) => r.index === null)) return;
  s.round += 1;
  s.reads = s.reads.map((r) => (r.index === null ? { ...r, index: s.commit, round: s.round } : r));
  if (peersOf(s.config).length > 0) broadcastAppend(ctx);
}

/** Answers, in order, every read whose round a majority confirmed and whose point is applied. */
export function confirmReads(ctx: StepContext): void {
  const s = ctx.s;
  let done = 0;
  for (const r of s.reads) {
    if (r.index === null || r.index > s.applied) break;
    const acks = 1 + peersOf(s.config).filter((p) => !s.progress[p]!.recovering && s.progress[p]!.round >= r.round).length;
    if (acks < quorum(s.config)) break;
    ctx.effects.push({ type: "read-ready", id: r.id, index: r.index });
    done += 1;
  }
  if (done > 0) s.reads = s.reads.slice(done);
}

/** Rejects every waiting read (this voter is no longer the leader). */
export function failReads(ctx: StepContext): void {
  for (const r of ctx.s.reads) ctx.effects.push({ type: "rejected", id: r.id, request: "read-index", leader: null });
  ctx.s.reads = [];
}
