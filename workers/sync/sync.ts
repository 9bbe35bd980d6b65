/**
 * @module The sync worker: the process that is to keep paired devices in step — exchanging history,
 * applying merge modes, recording conflicts. No device syncs with the node yet, so it idles, and
 * its status says so.
 */
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";

/** What sync reports while no device syncs with the node. */
export const IDLE_STATUS = "idle: no device to sync with";

export async function startSync(ctx: WorkerContext): Promise<RunningWorker> {
  ctx.status(IDLE_STATUS);
  // Idle, it holds nothing and has nothing in flight: draining has nothing to finish.
  return { drain: async () => {} };
}
