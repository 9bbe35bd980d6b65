/**
 * @module Starting `/api` for `charter node`: the gateway opens `DATA/accounts.db` (its only
 * writer; mode 0600 like the rest of the data directory), binds the account ceremonies to the
 * node's origin, makes set-up's identity step (the person's did:key, sealed under
 * `DATA/keys/account-kek`), and answers the request listener, the set-up code to print, and how
 * to close.
 */
import { createPeerApp } from "./peer/peer-app.ts";
import { SyncHost } from "./devices/sync-host.ts";
import { DeviceJoin } from "./devices/join.ts";
import { mountSyncRoutes, syncPeerRoutes, type SyncRouteDeps } from "./routes/sync.ts";
import type { KeyPair } from "../../../shared/identity/index.ts";
import { ok } from "../../../shared/result.ts";
import { getRequestListener } from "@hono/node-server";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../../../shared/log.ts";
import type { AdminRequests } from "../../../shared/protocol/admin.ts";
import type { EngineLink } from "../../../shared/worker/engine-link.ts";
import type { SocketLink } from "../../../shared/worker/socket-link.ts";
import { openDatabase } from "../../../shared/store/open.ts";
import { claimantName, dataPaths, DEFAULT_UPLOAD_LIMIT } from "../../../shared/worker/config.ts";
import { join } from "node:path";
import { AccountStore, type SessionRecord } from "./account/account-store.ts";
import { accountCeremonies } from "./account/ceremonies.ts";
import { createApiApp } from "./api-app.ts";
import { loadOrCreateKek } from "./identity/kek.ts";
import { openPersonKey, personIdentityMaker } from "./identity/person-key.ts";
import { personalSetUp } from "./personal/personal-setup.ts";
import { PersonWriter } from "./personal/person-writer.ts";
import { PersonReader } from "./personal/person-reader.ts";
import { PersonalLibrary } from "./personal/personal-library.ts";
import { finishApproved } from "./approvals/install-approval.ts";
import { finishMerges, MERGE_ORIGIN, mergeShape } from "./assistant-host/branch-merge.ts";
import { sealOf } from "./seal.ts";
import { DASHBOARDS, Dashboards, dashboardMinuteMs, SCHEDULE_ACTIONS } from "./dashboards/dashboards.ts";
import { DashboardScheduler } from "./dashboards/dashboard-scheduler.ts";
import { StoreView } from "../reads/store-view.ts";
import { NodeSettings } from "./assistant-host/node-settings.ts";
import { Connections } from "./assistant-host/connections.ts";
import { DEFAULT_BASE_URLS } from "./assistant-host/connection-rules.ts";
import { EgressList, hostOfUrl } from "./connectors/egress-list.ts";
import { loadManifests } from "../../../shared/connectors/manifest.ts";
import { ConnectorAccounts } from "./connectors/connector-accounts.ts";
import { OutboxEffects, OutboxHost } from "./connectors/outbox-host.ts";
import { HookSettings } from "./hooks/hook-settings.ts";
import { HookHost } from "./hooks/hook-host.ts";
import { HookConsumer } from "./hooks/hook-consumer.ts";
import { Comms } from "./comms/comms.ts";
import { TurnHost } from "./assistant-host/turn-host.ts";
import { ToolServers } from "./tool-servers/tool-servers.ts";
import { ServerStore } from "./tool-servers/server-store.ts";
import type { TurnShape } from "./assistant-host/turn-context.ts";
import { Autonomy } from "./assistant-host/autonomy.ts";
import { AUTONOMY_ORIGIN } from "./assistant-host/autonomy-records.ts";
import { AutonomyScheduler } from "./assistant-host/autonomy-scheduler.ts";
import { machineTimeZone } from "./time-zone.ts";
import { BlobStore } from "./library/blob-store.ts";
import { BlobSweeper } from "./library/blob-sweeper.ts";
import { LIBRARY } from "./library/library-records.ts";
import { attachmentsText } from "./library/attachment-text.ts";
import { Knowledge } from "./knowledge/knowledge.ts";
import { CollabServer } from "./knowledge/collab.ts";
import { UpdateHost } from "./updates/update-host.ts";
import { WriteHold } from "../../../shared/update/write-hold.ts";
import { updatePaths } from "../../../shared/update/update-state.ts";
import { frameJson } from "./events/frames.ts";
import { Exchange } from "./exchange/exchange.ts";
import { exchangeInbox } from "./exchange/exchange-inbox.ts";

/** What starting `/api` needs. */
export interface NodeApiOptions {
  readonly dataDir: string;
  /** The node's origin (`--origin`, or `http://localhost:PORT`). */
  readonly origin: string;
  /** The node's own did:key: its seal is shown to a signed-in person. */
  readonly nodeDid: string;
  /** The node's key: it signs what this node says to paired devices. */
  readonly nodeKey: KeyPair;
  readonly bodyLimit: number;
  readonly log: Logger;
  readonly version: string;
  /** Whether the node listens on loopback only (sign-in may be turned off there). */
  readonly loopback: boolean;
  /** Hears each session ended by its person (sign-out, ended from another session). */
  readonly onSessionEnded?: (sessionId: string) => void;
  /** The engine: the person's writes go to it as signed commands. */
  readonly engine: EngineLink;
  /** The engine's admin channel: set-up creates the personal tenant through it. */
  readonly admin: SocketLink<AdminRequests>;
  /** Sends a frame to every `/api/events` client (the assistant's text, turns, approvals). */
  readonly broadcast?: (json: Buffer) => void;
  /** The library's limits: the largest upload, the blobs' quota (0: none), the free disk kept. */
  readonly library?: { readonly uploadLimit: number; readonly quotaBytes: number; readonly reserveBytes: number };
}

/** How long a blob no file refers to is kept (`CHARTER_BLOB_GRACE_MS`, else an hour). */
function blobGraceMs(env: NodeJS.ProcessEnv = process.env): number {
  const ms = Number(env.CHARTER_BLOB_GRACE_MS);
  return env.CHARTER_BLOB_GRACE_MS !== undefined && Number.isInteger(ms) && ms >= 0 ? ms : 3_600_000;
}

/** How long co-edits pause before they are saved (`CHARTER_COLLAB_SAVE_MS`, else half a second). */
function collabQuietMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const ms = Number(env.CHARTER_COLLAB_SAVE_MS);
  return env.CHARTER_COLLAB_SAVE_MS !== undefined && Number.isInteger(ms) && ms >= 0 ? ms : undefined;
}

/** `/api`, started. */
export interface NodeApi {
  readonly listener: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** The node-to-node routes (`/sync/…`, `/exchange/…`: peer/peer-app.ts). */
  readonly peerListener: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** The code that creating the account needs; null once the node is set up. */
  setupCode(): string | null;
  /** The live session a cookie's token opens now, or null (the `/api/events` sockets check theirs). */
  session(token: string | null): SessionRecord | null;
  /** The person's did:key once set up, else null. */
  personDid(): string | null;
  /** The co-editing sockets (`/api/collab/{note}`). */
  readonly collab: CollabServer;
  /** The hosts the node's workers may reach, by the configuration that declares each. */
  readonly egress: EgressList;
  /** The outbox worker's channel: effects queued (once per idempotency key), accounts read. */
  readonly outbox: OutboxHost;
  close(): void;
}

/** Opens the account and serves `/api` for `origin`. */
export function startNodeApi(options: NodeApiOptions): NodeApi {
  const paths = dataPaths(options.dataDir);
  const db = openDatabase(paths.accounts);
  const store = new AccountStore(db);
  const ceremonies = accountCeremonies({ store, origin: options.origin, loopback: options.loopback });
  // A session that ends here (signed out, ended from another) takes its event sockets with it.
  const account: typeof ceremonies = {
    ...ceremonies,
    signOut: (session) => {
      ceremonies.signOut(session);
      options.onSessionEnded?.(session.id);
      collab.closeSession(session.id);
    },
    endSession: (current, id) => {
      const ended = ceremonies.endSession(current, id);
      if (ended.ok) {
        options.onSessionEnded?.(id);
        collab.closeSession(id);
      }
      return ended;
    },
  };
  // The store, read-only (the engine is its only writer), opened on first use.
  const storeView = new StoreView(paths.store);
  const kek = () => loadOrCreateKek(paths.accountKek);
  // Paired devices: the sync worker's link; its status is shown on /api/events and the home node's host declared for egress.
  let syncFrames = 0;
  const syncHost = new SyncHost({
    socketPath: join(paths.run, "sync.sock"),
    onStatus: (status) => {
      egress.declare("sync", status.peers.flatMap((p) => (p.url === null || p.revokedAt !== null ? [] : [hostOfUrl(p.url)].filter((h): h is string => h !== null))));
      syncFrames += 1;
      options.broadcast?.(frameJson("sync", `sync-${process.pid}-${syncFrames}`, { tenant: status.tenant, commands: status.commands, peers: status.peers.map((p) => ({ did: p.did, name: p.name, connected: p.connected, lastContact: p.lastContact, pendingIn: p.pendingIn, pendingOut: p.pendingOut, revokedAt: p.revokedAt })) }));
    },
  });
  const deviceJoin = new DeviceJoin({
    db,
    kek,
    nodeKey: options.nodeKey,
    sync: syncHost,
    declareHost: (url) => egress.declare("sync-join", [hostOfUrl(url)].filter((h): h is string => h !== null)),
    now: () => Date.now(),
  });
  const newIdentity = personIdentityMaker({ db, kek, now: () => Date.now() });
  // A device that joined its home node is the same person: the key it was given, not a new one.
  const makeIdentity: typeof newIdentity = async (plan) => {
    const joined = deviceJoin.joined();
    return joined === null ? newIdentity(plan) : ok({ did: joined.person });
  };
  const person = () => {
    const a = store.account();
    return a?.ready === true ? { did: a.did, tenant: a.tenant } : { did: null, tenant: null };
  };
  // The node's own contracts in the personal tenant: after set-up, and at start (a node set up
  // before one of them existed gains it).
  const library = new PersonalLibrary({
    admin: options.admin,
    person: () => {
      const p = person();
      return p.did === null || p.tenant === null ? null : { did: p.did, tenant: p.tenant };
    },
    log: options.log,
    // Then what a stop left half done: installs approved but not carried out, branches merged but not summarised.
    onReady: async () => {
      await finishApproved({ admin: options.admin, writer, reader, now }, options.log);
      await finishMerges({ reader, writer, log: options.log });
      // The knowledge vaults: scanned (what changed in their folders while the node was stopped), then watched.
      await knowledge.start();
      // Emails approved but not queued when the node stopped.
      await comms.finishApproved();
    },
  });
  const personalSetup = personalSetUp({ makeIdentity, admin: options.admin, handle: () => deviceJoin.joined()?.tenant ?? null });
  const setUp: typeof personalSetup = async (plan) => {
    const made = await personalSetup(plan);
    // A device that joined its home node syncs its personal tenant from the start.
    if (made.ok && deviceJoin.joined() !== null) {
      const tenant = made.value.tenant;
      void syncHost.request("enable", { tenant }).catch((error: unknown) => options.log.error("sync could not start for the joined tenant", { error: String(error) }));
    }
    // The account is ready only once this answers; the library follows it.
    if (made.ok) setImmediate(() => void library.ensure());
    return made;
  };
  const now = () => Date.now();
  const writer = new PersonWriter({
    engine: options.engine,
    now,
    // Only a finished set-up's key: a pending attempt's identity signs nothing.
    personKey: () => (store.account()?.ready === true ? openPersonKey({ db, kek }) : null),
    personalTenant: () => store.account()?.tenant ?? null,
  });
  const reader = new PersonReader({ store: storeView, personDid: () => person().did, personalTenant: () => person().tenant, now });
  void library.ensure();
  // The dashboards' refresh schedule: due times live in std.dashboards, so a restart resumes it.
  const minuteMs = dashboardMinuteMs();
  const dashboards = new Dashboards({ reader, writer, now, minuteMs });
  const scheduler = new DashboardScheduler({ dashboards, now, log: options.log, recheckMs: 5 * minuteMs });
  // The library's bytes: blobs by digest under DATA/blobs, removed a grace period after nothing refers to them.
  const libraryLimits = options.library ?? { uploadLimit: DEFAULT_UPLOAD_LIMIT, quotaBytes: 0, reserveBytes: 0 };
  const graceMs = blobGraceMs();
  const blobs = new BlobStore({ dir: join(options.dataDir, "blobs"), quotaBytes: libraryLimits.quotaBytes, reserveBytes: libraryLimits.reserveBytes, graceMs });
  // The knowledge vaults' notes: folders under DATA/vaults, every revision's text a blob.
  const knowledge = new Knowledge({ dataDir: options.dataDir, blobs, reader, writer, store: storeView, now, log: options.log });
  const collab = new CollabServer({ knowledge, origin: options.origin, session: (token) => account.session(token), log: options.log, saveQuietMs: collabQuietMs() });
  const sweeper = new BlobSweeper({
    blobs,
    referenced: (sha256) => knowledge.referenced(sha256) || reader.query(undefined, LIBRARY, "OfBlob", { sha256, limit: 1 }).rows.length > 0,
    graceMs,
    intervalMs: Math.max(60_000, Math.min(graceMs, 3_600_000)),
    log: options.log,
  });
  const settings = new NodeSettings(db, now);
  // What the workers may reach: each source of configuration declares its hosts (shared/worker/egress.ts).
  const egress = new EgressList(paths.egress, options.log);
  const connections = new Connections({ db, kek, now, changed: () => declareModelHosts() });
  const declareModelHosts = () =>
    egress.declare("model-connections", connections.list().flatMap((c) => hostOfUrl(c.baseUrl ?? DEFAULT_BASE_URLS[c.provider]) ?? []));
  declareModelHosts();
  // Connectors: their manifests (checked at load), their accounts (each declaring the hosts it
  // reaches), and the outbox worker's channel, through which effects are queued and accounts read.
  const manifests = loadManifests();
  const outbox: OutboxHost = new OutboxHost({ engine: options.engine, manifests, account: (connector, id) => connectorAccounts.config(connector, id), mailAccounts: () => comms.mailAccounts(), log: options.log });
  const connectorAccounts = new ConnectorAccounts({
    db,
    kek,
    now,
    manifests,
    changed: (connector, id) => {
      egress.declare(`connector:${connector}`, connectorAccounts.hosts(connector));
      outbox.accountChanged(connector, id);
    },
  });
  for (const name of manifests.keys()) egress.declare(`connector:${name}`, connectorAccounts.hosts(name));
  void outbox.listen(paths.outboxSocket).catch((error: unknown) => options.log.error("the outbox's socket could not be opened", { error: String(error) }));
  // Webhooks: the listener (in the outbox worker) asks for its secrets over its own socket; what it
  // journals is acted on here, as the person, by the mappings in settings.
  const hookHost = new HookHost({ secrets: () => hookSettings.secrets(), log: options.log });
  const hookSettings = new HookSettings({ settings, kek, now, changed: () => hookHost.secretsChanged() });
  void hookHost.listen(paths.hooksSocket).catch((error: unknown) => options.log.error("the webhook listener's socket could not be opened", { error: String(error) }));
  const hookConsumer = new HookConsumer({ engine: options.engine, writer, reader, settings: hookSettings, claimant: claimantName("gateway", process.pid), log: options.log });
  // Tool servers (MCP): started when a listing or a call needs them, stopped with the node; their hosts declared for egress.
  const toolServers = new ToolServers({
    store: new ServerStore({ settings, kek, now }),
    egress,
    log: options.log,
    now,
    timeZone: () => account.settings()?.timeZone ?? machineTimeZone(),
    dir: join(options.dataDir, "tool-servers"),
    ledgerFile: join(options.dataDir, "run", "tool-servers.json"),
    origin: options.origin,
    version: options.version,
    broadcast: (json) => options.broadcast?.(json),
  });
  // The assistant worker's side of the conversation: turns queued, loaded, recorded; tool calls decided.
  // How the turns the node starts itself differ, by origin: filled in below, once what each needs exists.
  const shapes = new Map<string, TurnShape>();
  // A branch's merge: a summary of it, written into the conversation it was opened from.
  shapes.set(MERGE_ORIGIN, mergeShape({ reader, writer, log: options.log }));
  const turns = new TurnHost({
    reader,
    writer,
    settings,
    shapes,
    attachments: (ids) => attachmentsText(reader, blobs, ids),
    connections,
    now,
    timeZone: () => account.settings()?.timeZone ?? machineTimeZone(),
    engine: options.engine,
    log: options.log,
    broadcast: (json) => options.broadcast?.(json),
  });
  void turns.listen(paths.assistantSocket).catch((error: unknown) => options.log.error("the assistant's socket could not be opened", { error: String(error) }));
  // Email: what the outbox worker reads is recorded as the person; what the person sends goes through the outbox.
  const comms: Comms = new Comms({ reader, writer, engine: options.engine, outbox, accounts: connectorAccounts, claimant: claimantName("gateway", process.pid), now, log: options.log, approvalFrame: (a) => turns.approvalFrame(a) });
  // Autonomy runs (off by default): started by the person or on the schedule, each a turn of its own shape.
  const autonomy = new Autonomy({ reader, writer, settings, connections, turns, now, timeZone: () => account.settings()?.timeZone ?? machineTimeZone(), log: options.log });
  shapes.set(AUTONOMY_ORIGIN, autonomy.shape);
  const autonomyScheduler = new AutonomyScheduler({ runs: autonomy, now, log: options.log, recheckMs: 5 * 60_000 });
  // Self-update: the updater worker's link; its status is shown on /api/events and its channel's host declared for egress.
  let updateFrames = 0;
  const updates = new UpdateHost({
    socketPath: join(paths.run, "updater.sock"),
    onStatus: (status, event) => {
      const channel = status.settings.channel;
      egress.declare("updates", channel !== null && !channel.startsWith("/") ? [hostOfUrl(channel)].filter((h): h is string => h !== null) : []);
      updateFrames += 1;
      options.broadcast?.(frameJson("update", `update-${process.pid}-${updateFrames}`, { state: status.state, mode: status.settings.mode, running: status.running, available: status.available, event, last: status.history[0] ?? null }));
    },
  });
  const writeHold = new WriteHold(updatePaths(options.dataDir));
  let exchangeFrames = 0;
  // The exchange: relationships with other persons' nodes (their hosts declared for egress) and the signed documents sent and received.
  const exchange = new Exchange({
    db,
    reader,
    personDid: () => person().did,
    personKey: () => (store.account()?.ready === true ? openPersonKey({ db, kek }) : null),
    nodeKey: options.nodeKey,
    egress,
    now,
    log: options.log,
    onEvent: (event) => {
      exchangeFrames += 1;
      options.broadcast?.(frameJson("exchange", `exchange-${process.pid}-${exchangeFrames}`, event));
    },
  });
  const app = createApiApp({
    settings,
    connections,
    turns,
    autonomy,
    account,
    origin: options.origin,
    seal: sealOf(options.nodeDid),
    setUp,
    log: options.log,
    bodyLimit: options.bodyLimit,
    blobs,
    uploadLimit: libraryLimits.uploadLimit,
    knowledge,
    collab,
    toolServers,
    outbox,
    effects: new OutboxEffects(options.engine),
    documentsDir: paths.documents,
    webhooks: { settings: hookSettings, host: hookHost, engine: options.engine },
    manifests,
    connectorAccounts,
    comms,
    writer,
    reader,
    now,
    dashboards,
    admin: options.admin,
    version: options.version,
    person,
    updates,
    writeHold,
    exchange,
    updateStatus: () => updates.last(),
    lastSeq: () => Number((storeView.prepare("SELECT COALESCE(MAX(seq), 0) AS seq FROM history").get() as { seq: bigint }).seq),
  });
  // A schedule changed through any route (the generic ones too) is kept from then on, not at the next re-check.
  writer.onAccepted((write) => {
    if (write.namespace === DASHBOARDS && SCHEDULE_ACTIONS.has(write.action) && write.tenant === person().tenant) scheduler.wake();
  });
  // A file deleted by any route (the assistant's tools too): its blob may go once its grace is over.
  writer.onAccepted((write) => {
    if (write.namespace === LIBRARY && write.action === "Delete") sweeper.deleted();
  });
  scheduler.start();
  autonomyScheduler.start();
  sweeper.start();
  hookConsumer.start();
  comms.start();
  // Node-to-node routes: each family checks its caller's pinned key itself.
  const syncRoutes: SyncRouteDeps = {
    sync: syncHost,
    join: deviceJoin,
    account,
    reader,
    writer,
    origin: options.origin,
    nodeKey: options.nodeKey,
    store: () => storeView.db(),
    accounts: db,
    personKey: () => (store.account()?.ready === true ? openPersonKey({ db, kek }) : null),
    firstName: () => (store.account()?.ready === true ? (store.account()?.firstName ?? null) : null),
    ready: () => store.account()?.ready === true,
    now,
  };
  mountSyncRoutes(app, syncRoutes);
  const peerApp = createPeerApp({ bodyLimit: options.bodyLimit, log: options.log, routes: [exchangeInbox(exchange), syncPeerRoutes(syncRoutes)] });
  return {
    listener: getRequestListener(app.fetch),
    peerListener: getRequestListener(peerApp.fetch),
    setupCode: () => account.setupCode(),
    session: (token) => account.session(token),
    personDid: () => {
      const a = store.account();
      return a?.ready === true ? a.did : null;
    },
    collab,
    egress,
    outbox,
    close: () => {
      updates.close();
      syncHost.close();
      exchange.close();
      writeHold.close();
      toolServers.close();
      scheduler.close();
      autonomyScheduler.close();
      sweeper.close();
      knowledge.close();
      void blobs.close();
      turns.close();
      outbox.close();
      hookHost.close();
      void hookConsumer.stop();
      void comms.stop();
      library.close();
      db.close();
      storeView.close();
    },
  };
}
