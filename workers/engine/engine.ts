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
import { ContractEffects } from "./contract-effects.ts";
import { startJournalCompaction } from "./journal-compaction.ts";
import { makeDirsSync } from "../../shared/make-dirs.ts";
import { systemClock } from "../../shared/clock.ts";
import { loadOrCreateNodeKey } from "../../shared/identity/index.ts";
import type { EngineNotices, EngineRequests } from "../../shared/protocol/engine.ts";
import { assertNotNewer, migrate, StoreTooNewError } from "../../shared/store/migrations.ts";
import { openDatabase, transaction } from "../../shared/store/open.ts";
import { dataPaths, DEFAULT_ENGINE_LIMITS } from "../../shared/worker/config.ts";
import { FatalError } from "../../shared/worker/fatal.ts";
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";
import { delegatesTo } from "../../contracts/schema.ts";
import { ArtifactCache } from "./artifact-cache.ts";
import { SyncEngine } from "./merge/sync-engine.ts";
import type { Receipt } from "../../shared/identity/index.ts";
import { logRefusals, slowBatchMs, TimedCommandProcessor } from "./write-path-log.ts";
import { CommandPreviewer } from "./command-preview.ts";
import { ExecutorPool } from "./executor/pool.ts";
import { serveEngineRequests } from "./requests.ts";
import { startAdminSocket } from "./admin.ts";
import { adminHandlers, type AdminHandlers } from "./admin-ops.ts";
import { ClusterEngine } from "./cluster/cluster.ts";
import { StoreMachine } from "./cluster/store-machine.ts";
import { installStandardLibrary } from "./std-library.ts";
import { moveSharedFulltext } from "./read-indexes.ts";
import { rolesOf, tenantExists } from "./tenants.ts";
import { finishKeyRotations } from "./tenant-key-rotate.ts";
import { Admission } from "./admission/admission.ts";
import { requestLogger } from "../../shared/log.ts";
import { updatePaths } from "../../shared/update/update-state.ts";
import { WriteHold } from "../../shared/update/write-hold.ts";

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
  // A key rotation a crash interrupted is finished (its commit happened) or undone (it did not).
  for (const r of await finishKeyRotations(db, paths.keys)) {
    if (r.outcome === "kept") ctx.log.warn("an interrupted key rotation's new key file is unreadable; left in place", { tenant: r.tenant, reason: r.reason });
    else ctx.log.info(r.outcome === "finished" ? "interrupted key rotation finished" : "interrupted key rotation undone", { tenant: r.tenant, did: r.did });
  }
  // Tenants made before a standard-library contract existed get it now (once; see std-library.ts).
  // Not on a replicated voter: its store changes only through the log.
  if (ctx.config.cluster === undefined) {
    for (const { handle } of db.prepare("SELECT handle FROM tenants").all() as { handle: string }[]) installStandardLibrary(db, handle, null, Date.now());
    // Full-text rows of a store from before per-tenant search tables move to their tenants' own.
    const moved = transaction(db, () => moveSharedFulltext(db));
    if (moved > 0) ctx.log.info("moved full-text rows into per-tenant tables", { rows: moved });
  }
  const journal = new Journal(db);
  const nodeKey = await loadOrCreateNodeKey(ctx.config.dataDir);
  if (!nodeKey.ok) throw new FatalError(nodeKey.error.message);
  const artifacts = new ArtifactCache(db);
  const executor = new ExecutorPool({ threads: EXECUTOR_THREADS, storePath: paths.store, inline: (id) => artifacts.get(id).program });
  const channels = new Set<EngineChannel>();
  const admission = new Admission({
    db,
    clock: systemClock,
    dataDir: ctx.config.dataDir,
    limits: ctx.config.engineLimits ?? DEFAULT_ENGINE_LIMITS,
    known: (tenant, namespace, did, now) => {
      if (!tenantExists(db, tenant)) return null;
      const roles = rolesOf(db, tenant, did, now);
      if (roles.member) return true;
      const active = roles.known ? artifacts.active(tenant, namespace) : null;
      return active !== null && delegatesTo(active.schema, roles.scopes);
    },
  });
  let commitFailure: string | null = null;
  // Only channels that asked hear about commits: a receipt is otherwise serialised twice per command.
  const watchers = new Set<EngineChannel>();
  // Channels told when a batch queued contract-declared effects (the outbox).
  const effectWatchers = new Set<EngineChannel>();
  // A replicated store never queues them: every voter would, and each would act.
  const effects = ctx.config.cluster === undefined ? new ContractEffects(db, journal) : undefined;
  // Refusals and slow batches: per-request lines, which CHARTER_LOG_REQUESTS=off silences.
  const requestLog = requestLogger(ctx.log);
  const roles = (tenant: string, did: string, now: number) => (tenantExists(db, tenant) ? rolesOf(db, tenant, did, now) : null);
  const onCommitted = (receipts: readonly Receipt[]) => {
    logRefusals(requestLog, receipts);
    for (const c of watchers) c.notify("committed", { receipts });
  };
  // Paired devices (charter node, one voter): commands of synced tenants are stamped as they commit.
  let sync: SyncEngine | null = null;
  const commands: TimedCommandProcessor = new TimedCommandProcessor(
    {
      db,
      artifacts,
      executor,
      clock: systemClock,
      nodeDid: nodeKey.value.did,
      roles,
      onCommitted,
      onUsage: (usage) => admission.committed(usage),
      ...(ctx.config.edition === "node" && ctx.config.cluster === undefined ? { stamper: { stamp: (c) => sync?.log.stamp(c) ?? false, forget: () => sync?.log.forget() } } : {}),
      ...(effects === undefined ? {} : { effects, onEffectsQueued: () => effectWatchers.forEach((c) => c.notify("effects-queued", {})) }),
      onCommitHealth: (failure) => {
        if (failure !== null && commitFailure === null) ctx.log.error("commits are failing", { error: failure });
        else if (failure === null && commitFailure !== null) ctx.log.info("commits succeed again");
        commitFailure = failure;
      },
    },
    requestLog,
    { slowMs: slowBatchMs() },
  );
  if (ctx.config.edition === "node" && ctx.config.cluster === undefined) {
    sync = new SyncEngine({ db, artifacts, executor, nodeKey: nodeKey.value, roles, exclusive: (fn) => commands.exclusive(fn) as never, now: () => Date.now(), onCommitted, onUsage: (usage) => admission.committed(usage) });
  }
  const syncEngine = sync;
  // A personal node's journal drops the bulk of entries done long ago (journal-compaction.ts).
  const compaction = ctx.config.edition === "node" && ctx.config.cluster === undefined ? startJournalCompaction({ journal, exclusive: (fn) => commands.exclusive(fn), now: () => Date.now(), log: ctx.log }) : null;
  // Previews plan with the write path's checks and programs, beside the batches, and commit nothing.
  const previewer = new CommandPreviewer({ db, artifacts, executor, clock: systemClock, roles });
  const adminDeps = {
    db,
    keysDir: paths.keys,
    clock: systemClock,
    log: ctx.log,
    onInstalled: (t: string, ns: string) => artifacts.invalidate(t, ns),
    exclusive: <T>(fn: () => T) => commands.exclusive(fn),
  };
  // A replicated engine: writes go through the voters' log (workers/engine/cluster).
  let cluster: ClusterEngine | null = null;
  if (ctx.config.cluster !== undefined) {
    // Entries are durable in raft.db; the store is synced before the log behind it is compacted.
    db.exec("PRAGMA synchronous = NORMAL");
    const machine = new StoreMachine({
      db,
      storePath: paths.store,
      keysDir: paths.keys,
      runDir: paths.run,
      commands,
      // Applied entries run one at a time already: no `exclusive`, and the entry's time, not the clock.
      admin: (clock, tenantKey) => adminHandlers({ db, keysDir: paths.keys, clock, log: ctx.log, onInstalled: adminDeps.onInstalled, tenantKey }),
      onReplaced: () => {
        artifacts.invalidateAll();
        admission.reset();
        for (const c of channels) c.notify("store-replaced", {});
      },
    });
    // A voter that cannot take its place (a wrong identity, a peer port in use) will not do better on a restart.
    cluster = await ClusterEngine.start({
      config: ctx.config.cluster,
      nodeKey: nodeKey.value,
      raftPath: paths.raft,
      machine,
      preview: (command) => previewer.preview(command),
      log: ctx.log,
      onFatal: (error) => {
        ctx.log.error("the voter cannot go on; restarting it", { error: error.message });
        process.exit(1);
      },
    }).catch((error: unknown) => {
      throw new FatalError(`cannot start as voter ${ctx.config.cluster?.voterId}: ${(error as Error).message}`);
    });
  }
  const replicated = cluster;
  // Self-update (charter node): writes held while a switch or a new release's trial is under way.
  const hold = ctx.config.edition === "node" && replicated === null ? new WriteHold(updatePaths(ctx.config.dataDir)) : null;
  const server = await listenChannels<Record<string, never>, EngineRequests>(paths.engineSocket, (channel) => {
    const c = channel as unknown as EngineChannel;
    channels.add(c);
    c.onClose(() => {
      channels.delete(c);
      watchers.delete(c);
      effectWatchers.delete(c);
    });
    serveEngineRequests(channel, {
      journal,
      nodeKey: nodeKey.value,
      submit: replicated === null ? (command) => commands.submit(command) : (command) => replicated.submit(command),
      preview: replicated === null ? (command) => previewer.preview(command) : (command) => replicated.preview(command),
      ...(replicated === null ? {} : { cluster: replicated }),
      watchCommits: (watch) => (watch ? watchers.add(c) : watchers.delete(c)),
      watchEffects: (watch) => (watch ? effectWatchers.add(c) : effectWatchers.delete(c)),
      ...(effects === undefined ? {} : { effects }),
      admit: (command) => admission.check(command),
      degraded: () => [commitFailure, admission.diskShortfall()].filter((reason): reason is string => reason !== null),
      ...(hold === null ? {} : { hold }),
      barrier: () => commands.exclusive(() => undefined),
      ...(syncEngine === null ? {} : { sync: syncEngine }),
      log: ctx.log,
    });
  });
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  // Operators and the gateway's tenant routes: DATA/admin.sock, mode 0600 (workers/engine/admin.ts).
  const admin = await startAdminSocket(paths.adminSocket, adminDeps, replicated === null ? undefined : replicatedHandlers(adminHandlers(adminDeps), replicated));

  return {
    async drain() {
      // Stop accepting connections, let requests in flight answer, then close the store cleanly.
      server.close();
      hold?.close();
      await admin.close();
      await replicated?.close();
      await compaction?.stop();
      await commands.drain();
      await executor.close();
      for (const c of channels) c.flush();
      for (const s of sockets) s.end();
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.close();
    },
  };
}

/** The admin handlers of a replicated voter: each request goes through `cluster.admin`. */
function replicatedHandlers(local: AdminHandlers, cluster: ClusterEngine): AdminHandlers {
  const out: Record<string, (body: unknown) => unknown> = {};
  for (const [type, handler] of Object.entries(local)) {
    out[type] = (body) => cluster.admin(type as keyof AdminHandlers, body, async (b) => (await (handler as (b: unknown) => unknown)(b)) as never);
  }
  return out as unknown as AdminHandlers;
}
