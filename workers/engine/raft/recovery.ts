/**
 * @module Rejoining after losing the disk. A voter restarted on empty storage forgets which
 * votes it cast, so it could vote twice in one term and elect a leader that lacks committed
 * entries. It therefore starts `recovering`: it neither votes nor campaigns, and the leader does
 * not count it toward commits or read confirmations. The leader appends a no-op once it learns of
 * the recovery and, when that entry commits without the recovering voter, reinstates it. With
 * three voters both others acknowledged that entry in the leader's term T after the disk was
 * lost, so no candidate the lost votes went to had a term above T; the reinstated voter takes
 * the leader as its vote for T and votes only in later terms.
 */
import type { StepContext } from "./context.ts";
import { markUnstable, setProgress } from "./context.ts";
import type { NodeState } from "./node-state.ts";
import { lastIndex } from "./raft-log.ts";

/** The leader notes a recovering follower and appends the entry its reinstatement waits for. */
export function maybeReinstate(ctx: StepContext, peer: string): void {
  const s = ctx.s;
  const p = s.progress[peer];
  if (!p) return;
  if (!p.recovering) {
    if (p.reinstateAt !== null) setProgress(ctx, peer, { reinstateAt: null });
    return;
  }
  if (p.reinstateAt !== null) return;
  const index = lastIndex(s) + 1;
  s.log = [...s.log, { type: "no-op", index, term: s.term }];
  markUnstable(ctx, index);
  setProgress(ctx, peer, { reinstateAt: index });
}

/** True when the leader may tell `peer` it votes again: its reinstatement entry is committed and held. */
export function reinstateNow(s: NodeState, peer: string): boolean {
  const p = s.progress[peer];
  return s.role === "leader" && !!p && p.recovering && p.reinstateAt !== null && s.commit >= p.reinstateAt && p.match >= p.reinstateAt;
}
