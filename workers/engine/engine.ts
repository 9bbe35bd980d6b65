/**
 * @module The engine worker: opens the store as its only writer (migrating it first), runs the
 * command write path, and serves the engine channel to the other workers over a Unix socket in the
 * data directory. After each commit it tells the workers that asked what was committed.
 */
import type { Socket } from "node:net";
import { availableParallelism } from "node:os";
import type { Channel } from "../../shared/channel/channel.ts";
import { listenChannels } from "../../shared/channel/socket.ts";
import { Journal } from "../../shared/journal.ts";
import { makeDirsSync } from "../../shared/make-dirs.ts";
import { systemClock } from "../../shared/clock.ts";
import { loadOrCreateNodeKey } from "../../shared/identity/index.ts";
import type { EngineNotices, EngineRequests } from "../../shared/protocol/engine.ts";
import { assertNotNewer, migrate, StoreTooNewError } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { dataPaths } from "../../shared/worker/config.ts";
import { FatalError } from "../../shared/worker/fatal.ts";
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";
import { ArtifactCache } from "./artifact-cache.ts";
import { CommandProcessor } from "./commands.ts";
import { ExecutorPool } from "./executor/pool.ts";
import { serveEngineRequests } from "./requests.ts";
import { startAdminSocket } from "./admin.ts";
import { installStandardLibrary } from "./std-library.ts";
import { rolesOf, tenantExists } from "./tenants.ts";

type EngineChannel = Channel<Record<string, never>, EngineRequests, EngineNotices>;

/**
 * Executor threads. A contract program runs in microseconds, so handing a batch to a thread pays
 * only when cores are left over after the gateway and the engine's own loop: on a machine with two
 * cores or fewer the programs run inline (measured: the hand-off cost more than it saved).
 * `CHARTER_EXECUTORS=N` overrides.
 */
const EXECUTOR_THREADS = process.env.CHARTER_EXECUTORS !== undefined ? Number(process.env.CHARTER_EXECUTORS) : Math.max(0, availableParallelism() - 2);

export async function startEngine(ctx: WorkerContext): Promise<RunningWorker> {
  const paths = dataPaths(ctx.config.dataDir);
  makeDirsSync(paths.run);
  let db;
  try {
    db = openDatabase(paths.store, { check: assertNotNewer });
  } catch (error) {
    if (error instanceof StoreTooNewError) throw new FatalError(error.message);
    throw error;
  }
  const applied = migrate(db);
  if (applied.length > 0) ctx.log.info("store migrated", { versions: applied });
  // Tenants made before a standard-library contract existed get it now (once; see std-library.ts).
  for (const { handle } of db.prepare("SELECT handle FROM tenants").all() as { handle: string }[]) installStandardLibrary(db, handle, null, Date.now());
  const journal = new Journal(db);
  const nodeKey = await loadOrCreateNodeKey(ctx.config.dataDir);
  if (!nodeKey.ok) throw new FatalError(nodeKey.error.message);
  const artifacts = new ArtifactCache(db);
  const executor = new ExecutorPool({ threads: EXECUTOR_THREADS, storePath: paths.store, inline: (id) => artifacts.get(id).program });
  const channels = new Set<EngineChannel>();
  // Only channels that asked hear about commits: a receipt is otherwise serialised twice per command.
  const watchers = new Set<EngineChannel>();
  const commands = new CommandProcessor({
    db,
    artifacts,
    executor,
    clock: systemClock,
    nodeDid: nodeKey.value.did,
    roles: (tenant, did, now) => (tenantExists(db, tenant) ? rolesOf(db, tenant, did, now) : null),
    onCommitted: (receipts) => {
      for (const c of watchers) c.notify("committed", { receipts });
    },
  });
  const server = await listenChannels<Record<string, never>, EngineRequests>(paths.engineSocket, (channel) => {
    const c = channel as unknown as EngineChannel;
    channels.add(c);
    c.onClose(() => {
      channels.delete(c);
      watchers.delete(c);
    });
    serveEngineRequests(channel, { journal, commands, watchCommits: (watch) => (watch ? watchers.add(c) : watchers.delete(c)) });
  });
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  // Operators and the gateway's tenant routes: DATA/admin.sock, mode 0600 (workers/engine/admin.ts).
  const admin = await startAdminSocket(paths.adminSocket, { db, keysDir: paths.keys, clock: systemClock, onInstalled: (t, ns) => artifacts.invalidate(t, ns), exclusive: (fn) => commands.exclusive(fn) });

  return {
    async drain() {
      // Stop accepting connections, let requests in flight answer, then close the store cleanly.
      server.close();
      await admin.close();
      await commands.drain();
      await executor.close();
      for (const c of channels) c.flush();
      for (const s of sockets) s.end();
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.close();
    },
  };
}
