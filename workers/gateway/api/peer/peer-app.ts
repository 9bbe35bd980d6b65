/**
 * @module The node-to-node application of `charter node`: routes another node calls, never a
 * browser — a paired device's sync (`/sync/*`) and another person's node delivering a signed
 * document (`/exchange/*`). No session and no `Origin`: each route checks its caller's key itself
 * (a pinned device, a pinned relationship) before it acts. Bodies are JSON under the node's limit.
 */
import { Hono } from "hono";
import type { Logger } from "../../../../shared/log.ts";
import { requestLogger } from "../../../../shared/log.ts";
import { problem } from "../../../../shared/problem.ts";
import { answerLog, errorHandler, problemResponse } from "../../problem-response.ts";
import { apiBodyLimit } from "../body-limit.ts";

/** One family of peer routes, mounted on the peer app. */
export type PeerRoutes = (app: Hono) => void;

/** Builds the peer app from its families of routes. */
export function createPeerApp(options: { readonly bodyLimit: number; readonly log: Logger; readonly routes: readonly PeerRoutes[] }): Hono {
  const app = new Hono();
  app.onError(errorHandler(options.log));
  app.use("*", answerLog(requestLogger(options.log)));
  app.notFound((c) => problemResponse(c, problem(404, "not-found", `no route for ${c.req.method} ${c.req.path}`)));
  app.use("*", apiBodyLimit(options.bodyLimit, () => false) as never);
  for (const mount of options.routes) mount(app);
  return app;
}

/** Whether a request's raw target is for the peer app (`/sync/…`, `/exchange/…`). */
export function isPeerTarget(url: string | undefined): boolean {
  if (url === undefined) return false;
  const path = url.startsWith("/") ? url : URL.canParse(url) ? new URL(url).pathname : "";
  return /^\/(?:sync|exchange)\//.test(path);
}
