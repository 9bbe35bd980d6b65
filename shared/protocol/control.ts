/**
 * @module The control channel between the supervisor and each worker (the fork's IPC pipe).
 */
import type { Lifecycle } from "./lifecycle.ts";

/** What the supervisor asks of a worker. */
export type ControlRequests = {
  /** Stop taking new work, finish what is in flight, flush, then answer; the worker exits after. */
  drain: { request: Record<string, never>; response: null };
};

/** What a worker tells the supervisor, unasked. */
export type WorkerNotices = {
  /** The worker's lifecycle changed. */
  state: { state: Lifecycle };
  /** What the worker is doing or waiting for, in one line (`idle: no model configured`); replaces the last one. */
  status: { text: string };
  /** The worker cannot run at all (a port in use, a store too new): the supervisor shuts down. */
  fatal: { message: string };
  /** The gateway is serving HTTP at this URL (the real port when `--listen` asked for port 0). */
  listening: { url: string };
  /** The gateway started serving gRPC at `HOST:PORT` (the real port when `--grpc` asked for port 0). */
  "grpc-listening": { address: string };
  /** The outbox's webhook listener serves at this URL (`http://127.0.0.1:PORT`, the real port when `--hooks-port` is 0). */
  "hooks-listening": { url: string };
  /** The updater switched to a new release: drain the tree and exit with RELAUNCH_EXIT, for the launcher to start the new one. */
  relaunch: { reason: string };
  /** The gateway serves `/api` (charter node) for `origin`; `setupCode` while the node is not set up. */
  api: { origin: string; setupCode: string | null };
};

/** What the supervisor tells workers, unasked. */
export type SupervisorNotices = {
  /**
   * The state of every worker in the table (sent to every worker on each change), and the status
   * line of each worker that has reported one since it last started.
   */
  workers: { states: Record<string, Lifecycle>; required: readonly string[]; statuses: Record<string, string> };
};
