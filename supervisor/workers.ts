/**
 * @module The supervisor's table: which workers exist, in start order, and which edition runs them.
 * Later issues add their workers here (outbox, assistant, sync, updater).
 */
import type { Edition } from "../shared/worker/config.ts";

export interface WorkerSpec {
  readonly name: string;
  /** The worker's entry module. */
  readonly entry: URL;
  readonly editions: readonly Edition[];
  /** `/health` answers 503 while a required worker is not running. */
  readonly required: boolean;
}

export const workerTable: readonly WorkerSpec[] = [
  { name: "engine", entry: new URL("../workers/engine/main.ts", import.meta.url), editions: ["node", "serve"], required: true },
  { name: "gateway", entry: new URL("../workers/gateway/main.ts", import.meta.url), editions: ["node", "serve"], required: true },
];

/** The workers an edition runs, in start order. */
export function workersFor(edition: Edition): WorkerSpec[] {
  return workerTable.filter((w) => w.editions.includes(edition));
}
