/**
 * @module How the operator commands reach the store. While a charter holds the data directory they
 * ask its engine over `DATA/admin.sock`, so the engine stays the only writer; otherwise they take
 * the directory's lock themselves and run the same admin operation on the store
 * (workers/engine/offline-admin.ts) and let go. Either way the answer is the same value.
 */
import { existsSync } from "node:fs";
import { ChannelError } from "../shared/channel/messages.ts";
import { connectChannel } from "../shared/channel/socket.ts";
import { DataDirError, prepareDataDir } from "../shared/data-dir.ts";
import type { AdminRequests, AdminRequestType } from "../shared/protocol/admin.ts";
import { dataPaths } from "../shared/worker/config.ts";
import { DataLock, LockHeldError } from "../shared/store/lock.ts";
import { runAdminOffline } from "../workers/engine/offline-admin.ts";
import { noDataDirMessage } from "./options.ts";

type Response<K extends AdminRequestType> = AdminRequests[K]["response"];

/** How long to wait for a starting node's admin socket to appear. */
const CONNECT_RETRY_MS = 5000;

export interface AdminOptions {
  /**
   * Create `dataDir` when it is missing (default false): only for a caller about to start a node
   * on it, as the Workbench does. The operator commands, run from the wrong folder, must say so
   * (`no_data_dir`) rather than answer from, or write to, a new empty directory.
   */
  readonly create?: boolean;
}

/** Performs one admin operation on the data directory `dataDir`, through a live node or offline. */
export async function runAdmin<K extends AdminRequestType>(dataDir: string, type: K, body: AdminRequests[K]["request"], options: AdminOptions = {}): Promise<Response<K>> {
  const paths = dataPaths(dataDir);
  if (options.create !== true && !existsSync(dataDir)) return failure("no_data_dir", noDataDirMessage(dataDir));
  try {
    // The same checks as a starting node: a private directory, tightened with a warning if it was
    // not, and no symbolic links inside it.
    for (const warning of prepareDataDir(dataDir)) process.stderr.write(`charter: warning: ${warning}\n`);
  } catch (error) {
    if (error instanceof DataDirError) return failure(error.code, error.message);
    throw error;
  }
  let lock: DataLock;
  try {
    lock = DataLock.acquire(paths.lock);
  } catch (error) {
    if (error instanceof LockHeldError) return throughNode(paths.adminSocket, error.pid, type, body);
    return failure("data_dir_unwritable", `cannot lock the data directory ${dataDir}: ${(error as Error).message}`);
  }
  try {
    return await runAdminOffline(dataDir, type, body);
  } finally {
    lock.release();
  }
}

async function throughNode<K extends AdminRequestType>(socket: string, pid: number, type: K, body: AdminRequests[K]["request"]): Promise<Response<K>> {
  let channel;
  try {
    channel = await connectChannel<AdminRequests, Record<string, never>>(socket, { retryForMs: CONNECT_RETRY_MS });
  } catch (error) {
    return failure("node_unreachable", `a charter (pid ${pid}) holds the data directory but its admin socket ${socket} does not answer (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    return await channel.request(type, body);
  } catch (error) {
    if (error instanceof ChannelError) return failure(error.code === "channel_closed" ? "node_unreachable" : error.code, `the node failed to answer: ${error.message}`);
    throw error;
  } finally {
    channel.close();
  }
}

function failure<K extends AdminRequestType>(code: string, message: string): Response<K> {
  return { ok: false, error: { code, message } } as Response<K>;
}
