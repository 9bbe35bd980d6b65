/**
 * @module The gateway worker: serves the HTTP application, keeps a link to the engine, and feeds the
 * live event stream from the journal's `event` topic.
 */
import { getRequestListener } from "@hono/node-server";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Lifecycle } from "../../shared/protocol/lifecycle.ts";
import { claimantName, dataPaths, DEFAULT_ENGINE_LIMITS, DEFAULT_GATEWAY_LIMITS, DEFAULT_UPLOAD_LIMIT } from "../../shared/worker/config.ts";
import { EngineLink } from "../../shared/worker/engine-link.ts";
import { FatalError } from "../../shared/worker/fatal.ts";
import { JournalConsumer } from "../../shared/worker/journal-consumer.ts";
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";
import { loadOrCreateNodeKey } from "../../shared/identity/index.ts";
import { createApp } from "./app.ts";
import { commandListener } from "./routes/commands.ts";
import { mountReadRoutes } from "./reads/read-routes.ts";
import { mountSurfaces } from "./surfaces/mount-surfaces.ts";
import { mountTenantRoutes } from "./routes/tenants.ts";
import { compileInChild } from "../../contracts/compile-in-child.ts";
import type { AdminRequests } from "../../shared/protocol/admin.ts";
import { SocketLink } from "../../shared/worker/socket-link.ts";
import { mountWellKnown } from "./routes/well-known.ts";
import { EventHub } from "./event-hub.ts";
import { mountReadConsistency } from "./consistency.ts";
import { checkGrpcPort, GrpcSurface } from "./surfaces/grpc-surface.ts";
import { gracefulCloser } from "./graceful-close.ts";
import { guardConnections } from "./connection-guard.ts";
import { hostCheck } from "./host-check.ts";
import { type Logger, requestLogger } from "../../shared/log.ts";
import { problem } from "../../shared/problem.ts";
import { logAnswer, sendProblem } from "./problem-response.ts";
import { isApiTarget } from "./api/api-app.ts";
import { isPeerTarget } from "./api/peer/peer-app.ts";
import { endAguiRuns } from "./api/copilotkit/agui-run.ts";
import { type NodeApi, startNodeApi } from "./api/node-api.ts";
import { type EventSockets, isWebSocketUpgrade, startEvents, upgradeListener } from "./api/events/events.ts";
import { isLoopbackAddress } from "./api/account/sign-in-off.ts";
import { UnsafeStoreFileError } from "../../shared/store/open.ts";
import { serveAppPage } from "./app-page/app-page.ts";


/** How long to keep retrying a port that is busy, for a predecessor killed a moment ago to let go of it. */
const BIND_RETRY_MS = 1500;

export async function startGateway(ctx: WorkerContext): Promise<RunningWorker> {
  const { config, log, control } = ctx;
  let workers: { states: Record<string, Lifecycle>; required: readonly string[]; statuses: Record<string, string> } = { states: {}, required: ["engine", "gateway"], statuses: {} };
  control.onNotice("workers", (w) => (workers = w));

  // The engine sends commits only while someone here listens (it asks again after a reconnect).
  const events = new EventHub((watched) => void engine.request("watch-commits", { watch: watched }).catch(() => {}));
  const engine: EngineLink = new EngineLink(dataPaths(config.dataDir).engineSocket, {
    onConnect: (channel) => {
      channel.onNotice("committed", ({ receipts }) => {
        for (const receipt of receipts) events.publish({ source: "commit", id: receipt.seq, payload: receipt });
      });
      if (events.watched) void channel.request("watch-commits", { watch: true }).catch(() => {});
    },
  });
  const consumer = new JournalConsumer(engine, { claimant: claimantName("gateway", process.pid), topics: ["event"] }, (entry) => events.publish({ source: "journal", id: entry.id, payload: entry.payload }), log);

  const app = createApp(
    {
      version: config.version,
      startedAt: config.startedAt,
      // The gateway answering is itself proof it runs, even before the supervisor's next notice.
      workers: () => ({ states: { ...workers.states, gateway: "running" }, required: workers.required, statuses: workers.statuses }),
      ...(config.cluster ? { consensus: () => engine.request("consensus-status", {}).catch(() => null) } : {}),
      degraded: () => engine.request("engine-health", {}).then((h) => h.degraded, () => []),
    },
    { bodyLimit: config.bodyLimit, log },
  );
  // The node's identity, published for verifying receipts (the engine signs them).
  const nodeKey = await loadOrCreateNodeKey(config.dataDir);
  if (!nodeKey.ok) throw new FatalError(nodeKey.error.message);
  const grpc = new GrpcSurface({
    app,
    engine,
    now: () => Date.now(),
    storePath: dataPaths(config.dataDir).store,
    host: config.grpc.host,
    port: config.grpc.port,
    maxMessageBytes: config.bodyLimit,
    log,
    onListening: (address) => control.notify("grpc-listening", { address }),
    onFatal: (message) => control.notify("fatal", { message }),
  });
  mountWellKnown(app, { identity: nodeKey.value.did, version: config.version, grpc: () => grpc.address(), voters: config.cluster?.voters.map((v) => v.did) });
  if (config.cluster) mountReadConsistency(app, engine);
  mountReadRoutes(app, { storePath: dataPaths(config.dataDir).store, now: () => Date.now() });
  mountSurfaces(app, { engine, now: () => Date.now(), storePath: dataPaths(config.dataDir).store, log });
  const admin = new SocketLink<AdminRequests>(dataPaths(config.dataDir).adminSocket);
  mountTenantRoutes(app, { admin, compile: (source, context) => compileInChild(source, context), now: () => Date.now(), installed: () => grpc.refresh() });
  // The command route is served ahead of the app (routes/commands.ts); the app answers the rest.
  const postCommand = commandListener({ engine, now: () => Date.now(), bodyLimit: config.bodyLimit, log });
  const appListener = getRequestListener(app.fetch);
  const limits = config.gatewayLimits ?? DEFAULT_GATEWAY_LIMITS;
  const isOwnHost = hostCheck(limits.allowedHosts);
  // `/api` and AG-UI's `/copilotkit` (charter node only) are their own app, started once the port, and so the origin, is known.
  let api: NodeApi | null = null;
  let eventSockets: EventSockets | null = null;
  const answers = requestLogger(log);
  // Only WebSocket upgrades leave the request handler (an `Upgrade: h2c` stays a plain request).
  const server = createServer({ shouldUpgradeCallback: isWebSocketUpgrade }, (req, res) => {
    if (!isOwnHost(req.headers.host)) return misdirected(req, res, answers);
    if (config.edition === "node" && isApiTarget(req.url)) {
      if (api === null) return sendProblem(res, problem(503, "unavailable", "the node is starting; try again"));
      return void api.listener(req, res);
    }
    if (config.edition === "node" && isPeerTarget(req.url)) {
      if (api === null) return sendProblem(res, problem(503, "unavailable", "the node is starting; try again"));
      return void api.peerListener(req, res);
    }
    if (config.edition === "node" && serveAppPage(req, res)) return;
    if (!postCommand(req, res)) void appListener(req, res);
  });
  server.on("upgrade", upgradeListener({ isOwnHost, events: config.edition === "node" ? () => eventSockets : undefined, collab: config.edition === "node" ? () => api?.collab ?? null : undefined, log: answers }));
  guardConnections(server, { maxConnections: limits.maxConnections, onShed: (shed) => log.warn("connections over the cap: closed idle ones to make room", { shed, max: limits.maxConnections }) });
  const closer = gracefulCloser(server);
  // gRPC is served only once a contract is installed, but a port it could never have is fatal now,
  // before the HTTP port answers anything: a start either has every port or fails.
  const grpcPortProblem = await checkGrpcPort(config.grpc.host, config.grpc.port);
  if (grpcPortProblem !== null) throw new FatalError(grpcPortProblem);
  await listen(server, config.listen.host, config.listen.port);
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  if (config.edition === "node") {
    const origin = config.origin ?? `http://localhost:${address.port}`;
    try {
      api = startNodeApi({ dataDir: config.dataDir, origin, nodeDid: nodeKey.value.did, nodeKey: nodeKey.value, bodyLimit: config.bodyLimit, log, version: config.version, engine, admin, loopback: isLoopbackAddress(address.address), library: { uploadLimit: limits.uploadLimit ?? DEFAULT_UPLOAD_LIMIT, quotaBytes: limits.libraryQuota ?? 0, reserveBytes: (config.engineLimits ?? DEFAULT_ENGINE_LIMITS).diskReserveBytes }, onSessionEnded: (id) => eventSockets?.closeSession(id), broadcast: (json) => eventSockets?.broadcast(json) });
    } catch (error) {
      // A link in place of accounts.db would fail every restart the same way: stop with the reason.
      if (error instanceof UnsafeStoreFileError) throw new FatalError(error.message);
      throw error;
    }
    const { session, personDid } = api;
    eventSockets = startEvents({ hub: events, storePath: dataPaths(config.dataDir).store, origin, session, personDid, log });
    control.notify("api", { origin, setupCode: api.setupCode() });
  }
  control.notify("listening", { url });
  log.info("listening", { url });
  consumer.start();
  grpc.start();

  return {
    async drain() {
      // Stop accepting; requests and calls in flight finish, and a connection that has not sent its
      // request yet gets a moment to (idle keep-alive connections are closed). Event sockets close first (1001),
      // and AG-UI runs end (RUN_ERROR) rather than hold their answers open.
      eventSockets?.close();
      endAguiRuns();
      // Co-edited notes are saved (their commands need the engine still) and their sockets closed.
      await api?.collab.close();
      await Promise.all([closer.close(), grpc.close()]);
      await consumer.stop();
      await engine.close();
      await admin.close();
      api?.close();
    },
  };
}

async function listen(server: Server, host: string, port: number): Promise<void> {
  const deadline = Date.now() + BIND_RETRY_MS;
  for (;;) {
    try {
      // Each attempt removes both of its listeners, whichever way it ends (retries add none up).
      await new Promise<void>((resolve, reject) => {
        const onError = (error: Error) => {
          server.off("listening", onListening);
          reject(error);
        };
        const onListening = () => {
          server.off("error", onError);
          resolve();
        };
        server.once("error", onError);
        server.once("listening", onListening);
        server.listen(port, host);
      });
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EADDRINUSE" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      if (code === "EADDRINUSE") throw new FatalError(`port ${host}:${port} is in use; choose another with --listen HOST:PORT`);
      if (code === "EACCES") throw new FatalError(`not allowed to listen on ${host}:${port}`);
      if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") throw new FatalError(`cannot listen on ${host}:${port}: no such local address`);
      throw error;
    }
  }
}

/** A request for a host name that is not this node's (host-check.ts): 421, and the connection closes. */
function misdirected(req: IncomingMessage, res: ServerResponse, answers: Logger): void {
  const p = problem(421, "misdirected-request", "this node does not answer for that host name; use its IP address, localhost, or a name given with --allow-host");
  // The body is not read: the connection cannot carry another request.
  sendProblem(res, p, { connection: "close" });
  logAnswer(answers, { method: req.method ?? "", route: null, status: p.status, code: p.code }, { host: String(req.headers.host).slice(0, 200) });
}
