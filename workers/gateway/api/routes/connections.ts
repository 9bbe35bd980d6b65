/**
 * @module The person's model connections (assistant/connections.ts):
 *
 * ```
 * GET    /api/connections                                     → {items: [{id, provider, baseUrl, hasKey, memory, createdAt, updatedAt}]}
 * PUT    /api/connections/{id}/key {provider, key, baseUrl?, memory?} → 200 the connection   (step-up)
 * DELETE /api/connections/{id}/key                            → 204; 404 when there is none   (step-up)
 * PATCH  /api/connections/{id} {memory}                       → 200 the connection; 404 when there is none
 * ```
 *
 * No answer holds a key, not even part of one. Setting or deleting a key needs a step-up, and so
 * does letting a provider see memory notes (turning it off does not). A connection id is 1 to 64
 * of `A-Z a-z 0-9 _ . -` (another is `400` on PUT, `404` elsewhere); a node keeps at most 50
 * connections (`409 too-many-connections`).
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { connectionInputErrors, isConnectionId, MAX_CONNECTIONS, type ProviderKind } from "../assistant-host/connection-rules.ts";
import type { Connections } from "../assistant-host/connections.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import { badField, badParameter } from "./data-input.ts";

/** What the connection routes need. */
export interface ConnectionRouteDeps {
  readonly connections: Connections;
  readonly account: Pick<AccountCeremonies, "context">;
}

/** Mounts the connection routes. */
export function mountConnectionRoutes(api: Hono<ApiEnv>, deps: ConnectionRouteDeps): void {
  const { connections } = deps;

  api.get("/api/connections", (c) => {
    sessionOf(c);
    return c.json({ items: connections.list() });
  });

  api.put("/api/connections/:id/key", async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    const id = c.req.param("id");
    if (!isConnectionId(id)) throw badParameter("id", "a connection id is 1 to 64 of A-Z a-z 0-9 _ . -");
    const body = await jsonBody(c, ["provider", "key", "baseUrl", "memory"]);
    const errors = connectionInputErrors(body);
    if (errors.length > 0) {
      throw new HttpProblem(problem(400, "malformed-body", errors.map((e) => e.detail).join("; "), errors.map((e) => ({ pointer: `#/${e.field}`, detail: e.detail }))));
    }
    if (connections.get(id) === null && connections.list().length >= MAX_CONNECTIONS) {
      throw new HttpProblem(problem(409, "too-many-connections", `a node keeps at most ${MAX_CONNECTIONS} connections: delete one first`));
    }
    const input = body as { provider: ProviderKind; key: string; baseUrl?: string | null; memory?: boolean };
    return c.json(connections.setKey(id, input));
  });

  api.delete("/api/connections/:id/key", (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    if (!connections.deleteKey(c.req.param("id"))) throw noSuchConnection();
    return c.body(null, 204);
  });

  api.patch("/api/connections/:id", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["memory"]);
    if (typeof body.memory !== "boolean") throw badField("memory", "memory must be true or false");
    const current = connections.get(c.req.param("id"));
    if (current === null) throw noSuchConnection();
    // Letting a provider read memory notes is sensitive; taking it back is not.
    if (body.memory && !current.memory) requireSteppedUp(c, deps.account);
    return c.json(connections.setMemory(current.id, body.memory));
  });
}

function noSuchConnection(): HttpProblem {
  return new HttpProblem(problem(404, "not-found", "no such connection"));
}
