/**
 * @module The engine's admin operations on a data directory no node is running on: the one entry
 * the `charter` operator commands use when they hold the directory's lock themselves. Opens and
 * migrates the store, runs the same handler the admin socket runs (admin-ops.ts), and closes it,
 * so the answer is the same value either way.
 */
import { existsSync } from "node:fs";
import { systemClock } from "../../shared/clock.ts";
import type { AdminRequests, AdminRequestType } from "../../shared/protocol/admin.ts";
import { assertNotNewer, migrate, StoreTooNewError } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { dataPaths } from "../../shared/worker/config.ts";
import { adminHandlers } from "./admin-ops.ts";
import { REPLICATED_ADMIN } from "./cluster/entry.ts";
import { finishKeyRotations } from "./tenant-key-rotate.ts";

type Response<K extends AdminRequestType> = AdminRequests[K]["response"];

/** Runs one admin operation on `dataDir`'s store; the caller holds the data directory's lock. */
export async function runAdminOffline<K extends AdminRequestType>(dataDir: string, type: K, body: AdminRequests[K]["request"]): Promise<Response<K>> {
  const paths = dataPaths(dataDir);
  // A voter's store changes only through the replicated log: a change made here would exist on
  // this voter alone. Reading is fine.
  if (REPLICATED_ADMIN.has(type) && existsSync(paths.raft)) {
    return failure("voter_offline", `${dataDir} is a voter of a replicated engine (it has raft.db): start it (charter serve … --peers …) and run the command again, so the change goes through the voters' log`);
  }
  let db;
  try {
    db = openDatabase(paths.store, { check: assertNotNewer });
  } catch (error) {
    if (error instanceof StoreTooNewError) return failure("store_too_new", error.message);
    throw error;
  }
  try {
    migrate(db);
    // As a starting engine does: a key rotation a crash interrupted is finished or undone first.
    await finishKeyRotations(db, paths.keys);
    const handler = adminHandlers({ db, keysDir: paths.keys, clock: systemClock })[type] as (b: typeof body) => Response<K> | Promise<Response<K>>;
    return await handler(body);
  } finally {
    db.close();
  }
}

function failure<K extends AdminRequestType>(code: string, message: string): Response<K> {
  return { ok: false, error: { code, message } } as Response<K>;
}
