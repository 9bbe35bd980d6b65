/**
 * @module The assistant worker: the process that is to run the assistant's turns — model calls,
 * streaming, tool requests, waiting for approvals, resuming a turn after a crash. No model can be
 * configured yet, so it idles, and its status says so.
 */
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";

/** What the assistant reports while it has no model to call. */
export const IDLE_STATUS = "idle: no model configured";

export async function startAssistant(ctx: WorkerContext): Promise<RunningWorker> {
  ctx.status(IDLE_STATUS);
  // Idle, it holds nothing and has nothing in flight: draining has nothing to finish.
  return { drain: async () => {} };
}
