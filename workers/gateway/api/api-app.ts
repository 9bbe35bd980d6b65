/**
 * @module The `/api` application of `charter node`: its own Hono app, so that the gate runs before
 * anything reads a body (the whole app's limits read JSON bodies first). The order is the point:
 * the answer log sees every answer; the gate decides who may go on; only then the body limit, and
 * the routes, which read the body. Unknown paths behind the gate are `404`.
 */
import { Hono } from "hono";
import { requestLogger } from "../../../shared/log.ts";
import { problem } from "../../../shared/problem.ts";
import { answerLog, errorHandler, problemResponse } from "../problem-response.ts";
import type { ApiEnv } from "./api-env.ts";
import { apiBodyLimit } from "./body-limit.ts";
import { apiGate } from "./gate.ts";
import type { AccountRouteDeps } from "./routes/account-deps.ts";
import { mountAccountAdminRoutes } from "./routes/account-admin.ts";
import { mountAccountRoutes } from "./routes/account.ts";
import { mountPairRoutes } from "./routes/pair.ts";
import { type BootstrapDeps, mountBootstrapRoute } from "./routes/bootstrap.ts";
import { mountDataRoutes } from "./routes/data.ts";
import { mountTaskRoutes } from "./routes/tasks.ts";
import { mountDataOverviewRoute } from "./routes/data-overview.ts";
import { mountRecordRoutes } from "./routes/records.ts";
import { mountAnalyticsRoute } from "./routes/analytics.ts";
import { mountWorkbenchRoutes } from "./routes/workbench.ts";
import { mountApprovalRoutes } from "./routes/approvals.ts";
import { mountIdentityRoutes } from "./routes/identity-routes.ts";
import { mountDashboardRoutes } from "./routes/dashboards.ts";
import type { Dashboards } from "./dashboards/dashboards.ts";
import { mountMemoryRoutes } from "./routes/memory.ts";
import { mountRulesRoutes } from "./routes/rules.ts";
import { mountPersonaRoutes } from "./routes/persona.ts";
import { mountToolSettingsRoutes } from "./routes/tool-settings.ts";
import type { PersonWriter } from "./personal/person-writer.ts";
import type { PersonReader } from "./personal/person-reader.ts";
import type { NodeSettings } from "./assistant-host/node-settings.ts";
import type { Connections } from "./assistant-host/connections.ts";
import { mountConnectionRoutes } from "./routes/connections.ts";
import { mountToolServerRoutes } from "./routes/tool-servers.ts";
import type { ToolServers } from "./tool-servers/tool-servers.ts";
import { mountOutboxRoutes } from "./routes/outbox.ts";
import { mountCommsRoutes } from "./routes/comms.ts";
import type { Comms } from "./comms/comms.ts";
import { mountWebhookRoutes } from "./routes/webhooks.ts";
import type { HookSettings } from "./hooks/hook-settings.ts";
import type { HookHost } from "./hooks/hook-host.ts";
import type { EngineLink } from "../../../shared/worker/engine-link.ts";
import type { ConnectorManifest } from "../../../shared/connectors/manifest.ts";
import type { ConnectorAccounts } from "./connectors/connector-accounts.ts";
import type { OutboxEffects, OutboxHost } from "./connectors/outbox-host.ts";
import { mountModelSettingsRoutes } from "./routes/model-settings.ts";
import { mountSetupModelRoutes } from "./routes/setup-model.ts";
import { mountConversationRoutes } from "./routes/conversation.ts";
import { mountCopilotkitRoutes } from "./routes/copilotkit.ts";
import { mountAskRoutes } from "./routes/asks.ts";
import { mountBranchRoutes } from "./routes/branches.ts";
import { mountMemorySettingsRoutes } from "./routes/memory-settings.ts";
import { mountLibraryRoutes } from "./routes/library.ts";
import { mountKnowledgeRoutes } from "./routes/knowledge.ts";
import type { Knowledge } from "./knowledge/knowledge.ts";
import type { CollabServer } from "./knowledge/collab.ts";
import type { BlobStore } from "./library/blob-store.ts";
import { DEFAULT_UPLOAD_LIMIT } from "../../../shared/worker/config.ts";
import type { TurnHost } from "./assistant-host/turn-host.ts";
import { routeChoices } from "./assistant-host/model-route.ts";
import type { Autonomy } from "./assistant-host/autonomy.ts";
import { mountAutonomyRoutes } from "./routes/autonomy.ts";
import { mountSuggestionRoutes } from "./routes/suggestions.ts";
import { mountCalcRoutes } from "./routes/calc.ts";
import { mountManualAssetRoutes } from "./routes/manual-assets.ts";
import { machineTimeZone } from "./time-zone.ts";
import { mountUpdateRoutes } from "./routes/updates.ts";
import type { UpdateHost } from "./updates/update-host.ts";
import { mountExchangeRoutes } from "./routes/exchange.ts";
import type { Exchange } from "./exchange/exchange.ts";
import type { Problem } from "../../../shared/problem.ts";

/** What the `/api` app needs beyond the account routes' surroundings. */
export interface ApiAppOptions extends AccountRouteDeps, BootstrapDeps {
  readonly bodyLimit: number;
  /** Signs the person's writes. */
  readonly writer: PersonWriter;
  /** Reads the records and queries of the person's tenants. */
  readonly reader: PersonReader;
  /** The clock of the person's records (due dates, schedules). */
  readonly now: () => number;
  /** The person's dashboards, shared with the node's refresh scheduler. */
  readonly dashboards?: Dashboards;
  /** The assistant's settings (models, routing, tools, autonomy); absent where no assistant runs. */
  readonly settings?: NodeSettings;
  /** The person's model connections; absent where no assistant runs. */
  readonly connections?: Connections;
  /** The assistant's turns: queued for the assistant worker, stopped, resumed; absent where no assistant runs. */
  readonly turns?: TurnHost;
  /** The assistant's autonomy runs and their schedule's news; absent where no assistant runs. */
  readonly autonomy?: Autonomy;
  /** The library's blobs and its largest upload; absent: no library routes. */
  readonly blobs?: BlobStore;
  readonly uploadLimit?: number;
  /** The person's knowledge vaults; absent: no knowledge route. */
  readonly knowledge?: Knowledge;
  /** The co-editing sockets of the vaults' notes. */
  readonly collab?: CollabServer;
  /** The webhook listener's settings, its channel, and the engine its deliveries are journaled in; absent: no webhook routes. */
  readonly webhooks?: { readonly settings: HookSettings; readonly host: HookHost; readonly engine: EngineLink };
  /** Where the contracts' `effect pdf` documents are written (`DATA/documents`). */
  readonly documentsDir?: string;
  /** The assistant's tool servers (MCP); absent: no tool server routes. */
  readonly toolServers?: ToolServers;
  /** The outbox and the connectors; absent: no outbox or connector routes. */
  readonly outbox?: OutboxHost;
  readonly effects?: OutboxEffects;
  readonly manifests?: ReadonlyMap<string, ConnectorManifest>;
  readonly connectorAccounts?: ConnectorAccounts;
  /** The person's email (reading, sending, approvals of sends); absent: no comms routes. */
  readonly comms?: Comms;
  /** The updater worker's link; absent: no update routes. */
  readonly updates?: UpdateHost;
  /** Writes held while the node switches to a new release (shared/update/write-hold.ts): `503 updating`. */
  readonly writeHold?: { problem(): Problem | null };
  /** The person's relationships with other persons' nodes and the documents exchanged; absent: no exchange routes. */
  readonly exchange?: Exchange;
}

/** Builds the `/api` app; every route it serves has a path under `/api`. */
export function createApiApp(options: ApiAppOptions): Hono<ApiEnv> {
  const api = new Hono<ApiEnv>();
  api.onError(errorHandler(options.log));
  api.use("*", answerLog(requestLogger(options.log)));
  api.notFound((c) => problemResponse(c, problem(404, "not-found", `no route for ${c.req.method} ${c.req.path}`)));
  api.use("*", apiGate({ origin: options.origin, session: (token) => options.account.session(token) }));
  // While the node switches to a new release, nothing is changed: the switch's backup must hold it all.
  const hold = options.writeHold;
  if (hold !== undefined) {
    api.use("*", async (c, next) => {
      const held = c.req.method === "GET" || c.req.method === "HEAD" ? null : hold.problem();
      if (held !== null) return problemResponse(c, held);
      await next();
    });
  }
  // A library upload streams to disk under its own limit (routes/library.ts), never read whole.
  api.use("*", apiBodyLimit(options.bodyLimit, (c) => c.req.method === "POST" && c.req.path === "/api/library"));
  // Ahead of every route: it refuses a traversal whose normalised path another route would answer.
  mountManualAssetRoutes(api);
  mountAccountRoutes(api, options);
  mountAccountAdminRoutes(api, options);
  mountPairRoutes(api, options);
  mountBootstrapRoute(api, options);
  mountDataRoutes(api, options);
  mountTaskRoutes(api, options);
  mountDataOverviewRoute(api, options);
  mountRecordRoutes(api, options);
  mountAnalyticsRoute(api, options);
  mountWorkbenchRoutes(api, options);
  mountApprovalRoutes(api, options);
  mountIdentityRoutes(api, options);
  mountDashboardRoutes(api, options);
  mountMemoryRoutes(api, options);
  mountRulesRoutes(api, options);
  mountPersonaRoutes(api, options);
  mountToolSettingsRoutes(api, options);
  if (options.webhooks !== undefined) mountWebhookRoutes(api, { ...options, hooks: options.webhooks.settings, hookHost: options.webhooks.host, engine: options.webhooks.engine });
  mountCalcRoutes(api, { ...options, timeZone: () => options.account.settings()?.timeZone ?? machineTimeZone() });
  if (options.blobs !== undefined) mountLibraryRoutes(api, { ...options, blobs: options.blobs, uploadLimit: options.uploadLimit ?? DEFAULT_UPLOAD_LIMIT });
  if (options.knowledge !== undefined) mountKnowledgeRoutes(api, { knowledge: options.knowledge, ...(options.collab === undefined ? {} : { collab: options.collab }) });
  if (options.outbox !== undefined && options.effects !== undefined && options.manifests !== undefined && options.connectorAccounts !== undefined && options.documentsDir !== undefined) {
    mountOutboxRoutes(api, { ...options, outbox: options.outbox, effects: options.effects, manifests: options.manifests, connectorAccounts: options.connectorAccounts, documentsDir: options.documentsDir });
  }
  if (options.updates !== undefined) mountUpdateRoutes(api, { ...options, updates: options.updates });
  if (options.exchange !== undefined) mountExchangeRoutes(api, { ...options, exchange: options.exchange });
  if (options.comms !== undefined && options.connectorAccounts !== undefined) mountCommsRoutes(api, { ...options, comms: options.comms, connectorAccounts: options.connectorAccounts });
  if (options.settings !== undefined && options.connections !== undefined) {
    const models = { ...options, settings: options.settings, connections: options.connections, onAutonomyChanged: () => options.autonomy?.settingChanged() };
    mountConnectionRoutes(api, models);
    if (options.toolServers !== undefined) mountToolServerRoutes(api, { ...options, toolServers: options.toolServers, timeZone: () => options.account.settings()?.timeZone ?? machineTimeZone() });
    mountModelSettingsRoutes(api, models);
    mountSetupModelRoutes(api, models);
    mountMemorySettingsRoutes(api, models);
    if (options.turns !== undefined) {
      const turns = options.turns;
      const conversation = { ...options, turns, modelConfigured: () => routeChoices("conversation", models.settings, models.connections).length > 0 };
      mountConversationRoutes(api, conversation);
      mountCopilotkitRoutes(api, conversation);
      mountAskRoutes(api, conversation);
      mountBranchRoutes(api, { ...conversation, summariesConfigured: () => routeChoices("summaries", models.settings, models.connections).length > 0 });
      if (options.autonomy !== undefined) mountAutonomyRoutes(api, { ...models, autonomy: options.autonomy });
      mountSuggestionRoutes(api, { ...models, timeZone: () => options.account.settings()?.timeZone ?? machineTimeZone() });
    }
  }
  return api;
}

/** Whether a request's raw target (`req.url`: origin-form, or absolute-form as a proxy may send) is for the `/api` app (`/api` and AG-UI's `/copilotkit`). */
export function isApiTarget(url: string | undefined): boolean {
  if (url === undefined) return false;
  const path = url.startsWith("/") ? url : URL.canParse(url) ? new URL(url).pathname : "";
  return /^\/(?:api|copilotkit)(?:[/?#]|$)/.test(path);
}
