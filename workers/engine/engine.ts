/**
 * @module The engine worker: opens the store as its only writer (migrating it first), and serves
 * the engine channel to the other workers over a Unix socket in the data directory.
 */
import type { Socket } from "node:net";
import type { Channel } from "../../shared/channel/channel.ts";
import { listenChannels } from "../../shared/channel/socket.ts";
import { Journal } from "../../shared/journal.ts";
import { makeDirsSync } from "../../shared/make-dirs.ts";
import type { EngineRequests } from "../../shared/protocol/engine.ts";
import { assertNotNewer, migrate, StoreTooNewError } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { dataPaths } from "../../shared/worker/config.ts";
import { FatalError } from "../../shared/worker/fatal.ts";
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";
import { serveEngineRequests } from "./requests.ts";

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
  const journal = new Journal(db);
  const channels = new Set<Channel<Record<string, never>, EngineRequests>>();
  const server = await listenChannels<Record<string, never>, EngineRequests>(paths.engineSocket, (channel) => {
    channels.add(channel);
    channel.onClose(() => channels.delete(channel));
    serveEngineRequests(channel, { journal });
  });
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  return {
    async drain() {
      // Stop accepting connections, let requests in flight answer, then close the store cleanly.
      server.close();
      await new Promise((r) => setImmediate(r));
      for (const c of channels) c.flush();
      for (const s of sockets) s.end();
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      db.close();
    },
  };
}
