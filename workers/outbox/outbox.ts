/**
 * @module The outbox worker: the process that is to run connectors and their effects — the durable
 * outbox, retries, the webhook listener. No connector can be configured yet, so it idles (it opens
 * no port), and its status says so.
 */
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";

/** What the outbox reports while it has no connector to deliver to. */
export const IDLE_STATUS = "idle: no connector configured";

export async function startOutbox(ctx: WorkerContext): Promise<RunningWorker> {
  ctx.status(IDLE_STATUS);
  // Idle, it holds nothing and has nothing in flight: draining has nothing to finish.
  return { drain: async () => {} };
}
