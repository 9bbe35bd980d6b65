/**
 * @module Whether a charter holds the data directory, read from `DATA/charter.lock` without taking
 * it: the holder's pid, when it started, and its workers (in the order it started them, as the lock
 * lists them) with whether each process is alive.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "../shared/store/lock.ts";

export interface WorkerProcess {
  readonly name: string;
  readonly pid: number;
  readonly alive: boolean;
}

/** The holder of the data directory, or why there is none. */
export type NodeState =
  | { readonly running: true; readonly pid: number; readonly startedAt: string; readonly workers: readonly WorkerProcess[] }
  | { readonly running: false; readonly stale: { readonly pid: number } | null };

/** Reads `DATA/charter.lock`; a lock whose holder is gone is reported as stale, not running. */
export function readNodeState(dataDir: string): NodeState {
  let lock: { pid?: unknown; startedAt?: unknown; workers?: unknown };
  try {
    lock = JSON.parse(readFileSync(join(dataDir, "charter.lock"), "utf8")) as typeof lock;
  } catch {
    return { running: false, stale: null };
  }
  const pid = typeof lock.pid === "number" ? lock.pid : -1;
  if (pid <= 0 || !processAlive(pid)) return { running: false, stale: pid > 0 ? { pid } : null };
  const workers = Object.entries(typeof lock.workers === "object" && lock.workers !== null ? (lock.workers as Record<string, unknown>) : {})
    .filter((entry): entry is [string, number] => typeof entry[1] === "number")
    .map(([name, p]) => ({ name, pid: p, alive: processAlive(p) }));
  return { running: true, pid, startedAt: typeof lock.startedAt === "string" ? lock.startedAt : "", workers };
}
