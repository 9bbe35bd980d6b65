/**
 * @module The supervisor's table: which workers exist, in start order, and which edition runs them.
 * Both editions run the engine and the gateway; the personal node (`charter node`) also runs the
 * assistant, the outbox, sync and the updater, each of which idles, saying what it waits for,
 * until it has something to do.
 */
import type { Edition } from "../shared/worker/config.ts";

export interface WorkerSpec {
  readonly name: string;
  /** The worker's entry module. */
  readonly entry: URL;
  readonly editions: readonly Edition[];
  /** `/health` answers 503 while a required worker is not running; one that is not required and has failed makes it `degraded`. */
  readonly required: boolean;
}

const entry = (name: string) => new URL(`../workers/${name}/main.ts`, import.meta.url);

export const workerTable: readonly WorkerSpec[] = [
  { name: "engine", entry: entry("engine"), editions: ["node", "serve"], required: true },
  { name: "gateway", entry: entry("gateway"), editions: ["node", "serve"], required: true },
  { name: "assistant", entry: entry("assistant"), editions: ["node"], required: false },
  { name: "outbox", entry: entry("outbox"), editions: ["node"], required: false },
  { name: "sync", entry: entry("sync"), editions: ["node"], required: false },
  { name: "updater", entry: entry("updater"), editions: ["node"], required: false },
];

/** The workers an edition runs, in start order. */
export function workersFor(edition: Edition): WorkerSpec[] {
  return workerTable.filter((w) => w.editions.includes(edition));
}
