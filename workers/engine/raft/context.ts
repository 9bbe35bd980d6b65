/**
 * @module The working copy one call of `step` changes: a shallow copy of the node state (arrays
 * and records are replaced, never mutated in place, so the input state stays intact), plus the
 * effects and outgoing messages collected so far.
 */
import type { Effect } from "./effect.ts";
import type { Message } from "./message.ts";
import type { NodeState } from "./node-state.ts";

/** A node state whose fields may be reassigned. */
export type Draft = { -readonly [K in keyof NodeState]: NodeState[K] };

/** What one step works on. */
export interface StepContext {
  readonly s: Draft;
  readonly effects: Effect[];
  readonly sends: Message[];
  /** Lowest log index whose content changed this step (the log must be rewritten from there). */
  unstableFrom: number | null;
  snapshotChanged: boolean;
}

/** Marks the log as changed from `index` on. */
export function markUnstable(ctx: StepContext, index: number): void {
  ctx.unstableFrom = ctx.unstableFrom === null ? index : Math.min(ctx.unstableFrom, index);
}

/** Replaces one follower's progress record. */
export function setProgress(ctx: StepContext, peer: string, patch: Partial<NodeState["progress"][string]>): void {
  const old = ctx.s.progress[peer];
  if (!old) return;
  ctx.s.progress = { ...ctx.s.progress, [peer]: { ...old, ...patch } };
}
