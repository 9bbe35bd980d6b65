/**
 * @module Authorizing the node at an HTTP tool server that asks for OAuth: the person starts it
 * (the SDK discovers the server's authorization server, registers the node as a client, and makes
 * an authorization URL with a PKCE challenge and a single-use `state`), is sent to that URL, and
 * comes back to the callback with a code, which the node exchanges for tokens (kept sealed). The
 * server's connection is then made again, with them.
 */
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { PendingAuthorizations } from "./server-oauth.ts";
import type { StoredServer } from "./server-store.ts";
import type { ToolServers } from "./tool-servers.ts";

/** Starts authorizing `server` for `session`: already authorized (tokens kept and good), or the URL to send the person to. */
export async function beginAuthorization(servers: ToolServers, pending: PendingAuthorizations, server: StoredServer, session: string): Promise<{ authorized: true } | { authorized: false; authorizationUrl: string }> {
  if (server.url === null) throw new HttpProblem(problem(400, "bad-settings", "only an HTTP tool server is authorized: a stdio server runs with the environment it is given"));
  const state = pending.begin(server.id, session);
  const provider = servers.oauthOf(server, state);
  const result = await run(() => auth(provider, { serverUrl: server.url as string, fetchFn: servers.fetchOf(server) }));
  if (result === "AUTHORIZED") {
    pending.take(state);
    servers.stop(server.id);
    return { authorized: true };
  }
  if (provider.authorizationUrl === null) throw new HttpProblem(problem(502, "tool-server-failed", "the server's authorization gave no URL to send you to"));
  return { authorized: false, authorizationUrl: provider.authorizationUrl.href };
}

/** Finishes an authorization with the `code` its callback brought for `state`. */
export async function finishAuthorization(servers: ToolServers, pending: PendingAuthorizations, state: string, code: string): Promise<{ server: string; authorized: boolean }> {
  const started = pending.take(state);
  if (started === null) throw new HttpProblem(problem(400, "bad-authorization-state", "no authorization of a tool server waits for that state: it expired, was used, or was never started here; start it again"));
  const server = servers.store.get(started.server);
  if (server === null || server.url === null) throw new HttpProblem(problem(404, "not-found", `no tool server ${JSON.stringify(started.server)}`));
  const result = await run(() => auth(servers.oauthOf(server), { serverUrl: server.url as string, authorizationCode: code, fetchFn: servers.fetchOf(server) }));
  // The connection is made again, with the tokens.
  servers.stop(server.id);
  return { server: server.id, authorized: result === "AUTHORIZED" };
}

/** Runs a step of the SDK's auth; its failure (the authorization server refused, could not be reached) is `502`. */
async function run<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw new HttpProblem(problem(502, "tool-server-failed", `the server's authorization failed: ${(error instanceof Error ? error.message : String(error)).slice(0, 300)}`));
  }
}
