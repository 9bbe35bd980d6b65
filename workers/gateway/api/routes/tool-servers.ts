/**
 * @module The assistant's tool servers (MCP) in the settings:
 *
 * ```
 * GET    /api/settings/integrations/tools/catalogue      → {items: [{id, name, description, transport, command?, url?, args?}]}
 * GET    /api/settings/integrations/tools                → {items: [server…]}
 * POST   /api/settings/integrations/tools {catalogue, id?, name?, command?, args?, env?, url?, ceiling?} → 201 the server   (step-up)
 * GET    /api/settings/integrations/tools/{id}           → the server
 * PATCH  /api/settings/integrations/tools/{id} {name?, ceiling?, command?, env?, url?} → 200 the server (step-up to change what it runs)
 * DELETE /api/settings/integrations/tools/{id}           → 204   (step-up)
 * GET    /api/settings/integrations/tools/{id}/tools     → {server, listedAt, dropped, items: [tool…]} (listed now: the server starts)
 * PUT    /api/settings/integrations/tools/{id}/tools {tools: {"<tool>": "off" | "read" | "ask"}} → the same, each set tool pinned
 * POST   /api/settings/integrations/tools/{id}/authorize {} → {authorized: true} | {authorized: false, authorizationUrl}   (step-up)
 * GET    /api/settings/integrations/tools/oauth/callback?code=&state=  → {server, authorized}
 * POST   /api/settings/integrations/tools/oauth/callback {code, state} → the same
 * ```
 *
 * A thin adapter over tool-servers/: the input's rules are server-config.ts's, the modes' and pins'
 * tool-pins.ts's. Adding or removing a server, changing what it runs (command, environment, URL)
 * and authorizing it need a step-up; its name, its ceiling and its tools' modes do not (no mode
 * lets the assistant do anything without the person's approval but `read`, which the person sets).
 */
import type { Context, Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { ToolMode } from "../assistant-host/tool-modes.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import { beginAuthorization, finishAuthorization } from "../tool-servers/authorization.ts";
import { TOOL_SERVER_CATALOGUE } from "../tool-servers/catalogue.ts";
import { checkNewServer, checkServerChange, type FieldError, MAX_SERVERS, SERVER_ID } from "../tool-servers/server-config.ts";
import { PendingAuthorizations } from "../tool-servers/server-oauth.ts";
import type { StoredServer } from "../tool-servers/server-store.ts";
import { serverView, toolViews } from "../tool-servers/server-views.ts";
import { isToolMode } from "../tool-servers/tool-pins.ts";
import { type ServerUnavailable, type ToolServers, ServerUnavailable as Unavailable } from "../tool-servers/tool-servers.ts";

/** What the tool server routes need. */
export interface ToolServerRouteDeps {
  readonly toolServers: ToolServers;
  readonly account: Pick<AccountCeremonies, "context">;
  readonly now: () => number;
  readonly timeZone: () => string;
}

const BASE = "/api/settings/integrations/tools";
/** Ids a server may not have: they are routes of their own. */
const RESERVED = new Set(["catalogue", "oauth"]);
/** The most tools one change sets. */
const MAX_CHANGES = 200;

/** Mounts the tool server routes. */
export function mountToolServerRoutes(api: Hono<ApiEnv>, deps: ToolServerRouteDeps): void {
  const servers = deps.toolServers;
  const { store } = servers;
  const pending = new PendingAuthorizations(deps.now);
  const view = (server: StoredServer) =>
    serverView(store.settings, server, servers.status(server.id), server.transport === "http" ? { authorized: servers.oauthOf(server).authorized } : null, deps.now(), deps.timeZone(), store.seen(server.id));
  const found = (c: Context<ApiEnv>): StoredServer => {
    const id = c.req.param("id") ?? "";
    const server = SERVER_ID.test(id) ? store.get(id) : null;
    if (server === null) throw new HttpProblem(problem(404, "not-found", `no tool server ${JSON.stringify(id.slice(0, 64))}`));
    return server;
  };

  api.get(`${BASE}/catalogue`, (c) => {
    sessionOf(c);
    return c.json({ items: TOOL_SERVER_CATALOGUE });
  });

  // Before `/{id}`: `oauth` is never a server's id.
  api.get(`${BASE}/oauth/callback`, async (c) => {
    sessionOf(c);
    const code = c.req.query("code");
    const state = c.req.query("state");
    const error = c.req.query("error");
    if (error !== undefined) throw new HttpProblem(problem(502, "tool-server-failed", `the authorization was not given: ${error.slice(0, 200)}`));
    return c.json(await finishAuthorization(servers, pending, callbackField(state, "?state"), callbackField(code, "?code")));
  });

  api.post(`${BASE}/oauth/callback`, async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["code", "state"]);
    return c.json(await finishAuthorization(servers, pending, callbackField(body.state, "#/state"), callbackField(body.code, "#/code")));
  });

  api.get(BASE, (c) => {
    sessionOf(c);
    return c.json({ items: store.list().map(view) });
  });

  api.post(BASE, async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    const body = await jsonBody(c, ["id", "name", "catalogue", "command", "args", "env", "url", "ceiling"]);
    const checked = checkNewServer(body);
    if (!checked.ok) throw badFields(checked.errors);
    const { config, env } = checked.value;
    if (RESERVED.has(config.id)) throw badFields([{ pointer: "#/id", detail: `${config.id} is a reserved word: choose another id` }]);
    if (store.get(config.id) !== null) throw new HttpProblem(problem(409, "tool-server-exists", `a tool server ${config.id} is there already: give another id`));
    if (store.list().length >= MAX_SERVERS) throw new HttpProblem(problem(409, "too-many-tool-servers", `a node keeps at most ${MAX_SERVERS} tool servers: remove one first`));
    const server = store.add(config, env);
    servers.declareHosts();
    return c.json(view(server), 201);
  });

  api.get(`${BASE}/:id`, (c) => {
    sessionOf(c);
    return c.json(view(found(c)));
  });

  api.patch(`${BASE}/:id`, async (c) => {
    sessionOf(c);
    const server = found(c);
    const body = await jsonBody(c, ["name", "ceiling", "command", "env", "url"]);
    const checked = checkServerChange(server, body);
    if (!checked.ok) throw badFields(checked.errors);
    if (checked.runs) requireSteppedUp(c, deps.account);
    const updated = store.update(server.id, checked.config, checked.env) ?? server;
    if (updated.url !== server.url) {
      // Another endpoint: what the old one's authorization gave is not for it.
      store.setOAuth(server.id, {});
      store.setAuthHosts(server.id, []);
    }
    if (checked.runs) {
      // What it runs changed: the next use starts the new one.
      servers.stop(server.id);
      servers.declareHosts();
    }
    return c.json(view(updated));
  });

  api.delete(`${BASE}/:id`, (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    const server = found(c);
    servers.stop(server.id);
    store.remove(server.id);
    servers.declareHosts();
    return c.body(null, 204);
  });

  api.get(`${BASE}/:id/tools`, async (c) => {
    sessionOf(c);
    const server = found(c);
    const seen = await listed(servers, server.id);
    return c.json(toolViews(store.settings, store.get(server.id) ?? server, seen, deps.now(), deps.timeZone()));
  });

  api.put(`${BASE}/:id/tools`, async (c) => {
    sessionOf(c);
    const server = found(c);
    const body = await jsonBody(c, ["tools"]);
    const asked = modesOf(body.tools);
    // The modes are pinned to the tools as the server describes them now.
    const seen = await listed(servers, server.id);
    const byName = new Map(seen.tools.map((t) => [t.name, t]));
    const errors: FieldError[] = [];
    const pins = new Map<string, { mode: ToolMode; digest: string }>();
    for (const [name, mode] of asked) {
      const tool = byName.get(name);
      const pointer = `#/tools/${name.slice(0, 128).replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (tool === undefined) errors.push({ pointer, detail: `${JSON.stringify(name.slice(0, 128))} is not a tool of ${server.id}` });
      else if (tool.inputSchema === null && mode !== "off") errors.push({ pointer, detail: `${name} has no input schema the node can offer (not an object schema, or over 16 KiB): it stays off` });
      else pins.set(name, { mode, digest: tool.digest });
    }
    if (errors.length > 0) throw badFields(errors.slice(0, 50), "bad-settings");
    const updated = store.pin(server.id, pins) ?? server;
    return c.json(toolViews(store.settings, updated, seen, deps.now(), deps.timeZone()));
  });

  api.post(`${BASE}/:id/authorize`, async (c) => {
    const session = sessionOf(c);
    requireSteppedUp(c, deps.account);
    const server = found(c);
    await jsonBody(c, []);
    return c.json(await beginAuthorization(servers, pending, server, session.id));
  });
}

/** The server's tools, listed now; a server that cannot be used is `502` (or `409` when it waits for authorization). */
async function listed(servers: ToolServers, id: string) {
  try {
    return await servers.list(id);
  } catch (error) {
    if (!(error instanceof Unavailable)) throw error;
    throw unavailableProblem(error);
  }
}

function unavailableProblem(error: ServerUnavailable): HttpProblem {
  if (error.kind === "unauthorized") return new HttpProblem(problem(409, "tool-server-unauthorized", `${error.message}: POST …/authorize`));
  return new HttpProblem(problem(502, "tool-server-failed", `the tool server cannot be used now: ${error.message}`));
}

/** `{tools: {name: mode}}` as pairs; each wrong entry is named. */
function modesOf(value: unknown): [string, ToolMode][] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw badFields([{ pointer: "#/tools", detail: "tools is an object of tool names to off, read or ask" }]);
  const entries = Object.entries(value);
  if (entries.length > MAX_CHANGES) throw badFields([{ pointer: "#/tools", detail: `at most ${MAX_CHANGES} tools in one change` }]);
  const errors = entries.filter(([, mode]) => !isToolMode(mode)).map(([name]) => ({ pointer: `#/tools/${name.slice(0, 128).replaceAll("~", "~0").replaceAll("/", "~1")}`, detail: "a mode is off, read or ask" }));
  if (errors.length > 0) throw badFields(errors.slice(0, 50));
  return entries as [string, ToolMode][];
}

function callbackField(value: unknown, pointer: string): string {
  if (typeof value === "string" && value !== "" && value.length <= 2048) return value;
  const detail = `${pointer.replace(/^[#?]\/?/, "")} is the value the authorization server sent back`;
  throw new HttpProblem(problem(400, pointer.startsWith("?") ? "bad-parameters" : "malformed-body", detail, [{ pointer, detail }]));
}

function badFields(errors: readonly FieldError[], code: "malformed-body" | "bad-settings" = "malformed-body"): HttpProblem {
  return new HttpProblem(problem(400, code, errors.map((e) => e.detail).join("; "), errors.map((e) => ({ pointer: e.pointer, detail: e.detail }))));
}
