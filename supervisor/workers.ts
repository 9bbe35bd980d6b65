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
  /** Node options of the worker's process, besides those every worker has. */
  readonly execArgv?: readonly string[];
}

const entry = (name: string) => new URL(`../workers/${name}/main.ts`, import.meta.url);

export const workerTable: readonly WorkerSpec[] = [
  { name: "engine", entry: entry("engine"), editions: ["node", "serve"], required: true },
  // A young generation of 4 MB semi-spaces (V8's default grows to 16 or more): the gateway's
  // garbage is short-lived (requests, frames to fan out), and with the default its heap grew by
  // over 100 MB under `/api/events` at 1,000 clients for no speed (bench/events, bench/engine).
  { name: "gateway", entry: entry("gateway"), editions: ["node", "serve"], required: true, execArgv: ["--max-semi-space-size=4"] },
  { name: "assistant", entry: entry("assistant"), editions: ["node"], required: false },
  { name: "outbox", entry: entry("outbox"), editions: ["node"], required: false },
  { name: "sync", entry: entry("sync"), editions: ["node"], required: false },
  { name: "updater", entry: entry("updater"), editions: ["node"], required: false },
];

/** The workers an edition runs, in start order. */
export function workersFor(edition: Edition): WorkerSpec[] {
  return workerTable.filter((w) => w.editions.includes(edition));
}
