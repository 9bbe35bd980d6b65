/**
 * @module The updater worker: the process that is to follow the release channel — check, verify,
 * stage, switch, roll back. Updates are off (there is no release channel to follow yet), so it
 * idles, and its status says so.
 */
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";

/** What the updater reports while updates are off. */
export const IDLE_STATUS = "idle: updates off";

export async function startUpdater(ctx: WorkerContext): Promise<RunningWorker> {
  ctx.status(IDLE_STATUS);
  // Idle, it holds nothing and has nothing in flight: draining has nothing to finish.
  return { drain: async () => {} };
}
