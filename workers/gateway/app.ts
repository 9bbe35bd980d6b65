/**
 * @module The gateway's HTTP application: the error and not-found mappers, the answer log, the body
 * and JSON limits, and `/health`. Every route lives in its own file under routes/; the gateway
 * mounts `/v1`'s on this app.
 */
import { type Context, Hono } from "hono";
import type { HttpBindings } from "@hono/node-server";
import { bodyLimit } from "hono/body-limit";
import { type Logger, requestLogger } from "../../shared/log.ts";
import { type Problem, problem } from "../../shared/problem.ts";
import type { ConsensusStatus } from "../../shared/protocol/engine.ts";
import type { Lifecycle } from "../../shared/protocol/lifecycle.ts";
import { discardBody } from "./discard-body.ts";
import { checkJsonTextDepth } from "../../shared/json-limits.ts";
import { answerLog, errorHandler, noteProblem, problemResponse } from "./problem-response.ts";
import { mountHealthRoute } from "./routes/health.ts";

/** What the app needs to know about the rest of the process tree. */
export interface GatewayView {
  readonly version: string;
  readonly startedAt: number;
  /** Every worker's state, which are required, and the status lines they reported, as last told by the supervisor. */
  workers(): { states: Record<string, Lifecycle>; required: readonly string[]; statuses: Record<string, string> };
  /** A replicated engine's view of the voters (null for one voter, or while the engine is away). */
  consensus?(): Promise<ConsensusStatus | null>;
  /** Why writes are not working as they should (commits failing, the disk under its reserve). */
  degraded?(): Promise<readonly string[]>;
}

const GRAPHQL_PATH = /^\/v1\/[^/]+\/[^/]+\/graphql$/;

/** Refuses a request before its route runs: a problem document, or on a GraphQL endpoint (which answers every failure in GraphQL's own form) a GraphQL error. */
function refuse(c: Context, p: Problem, graphqlCode: string): Response {
  if (!GRAPHQL_PATH.test(c.req.path)) return problemResponse(c, p);
  noteProblem(c, p);
  return c.json({ errors: [{ message: p.detail, extensions: { code: graphqlCode } }] }, p.status as 400);
}

export function createApp(view: GatewayView, options: { bodyLimit: number; log: Logger }): Hono {
  const app = new Hono();
  app.onError(errorHandler(options.log));
  // First, so it sees every answer: the routes', the mappers' and the limits' below.
  app.use("*", answerLog(requestLogger(options.log)));
  app.notFound((c) => problemResponse(c, problem(404, "not-found", `no route for ${c.req.method} ${c.req.path}`)));
  // A declared body's rest is read and thrown away (discard-body.ts); a streamed one was cut off.
  const onTooLarge = async (c: Context, declared = false) => {
    // Unless the rest of the body is read (and thrown away), this connection cannot carry another request.
    const incoming = declared ? (c.env as Partial<HttpBindings> | undefined)?.incoming : undefined;
    if (incoming === undefined || !(await discardBody(incoming))) c.header("connection", "close");
    return refuse(c, problem(413, "body-too-large", `the request body is over the limit of ${options.bodyLimit} bytes`), "BODY_TOO_LARGE");
  };
  const streamedLimit = bodyLimit({ maxSize: options.bodyLimit, onError: (c) => onTooLarge(c) });
  app.use("*", async function limitBody(c, next) {
    // hono's bodyLimit reads `c.req.raw.body`, which makes @hono/node-server build a whole web
    // Request (undici + web streams) for every request — about a third of the gateway's CPU per
    // command. A declared Content-Length is checked as it is; only chunked bodies are streamed.
    const length = c.req.header("content-length");
    if (length !== undefined && c.req.header("transfer-encoding") === undefined) {
      return Number.parseInt(length, 10) > options.bodyLimit ? onTooLarge(c, true) : next();
    }
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    return streamedLimit(c, next);
  });

  // A JSON body nested past the limit is refused before any handler parses it and walks it.
  app.use("*", async function limitJsonDepth(c, next) {
    if (c.req.method === "GET" || c.req.method === "HEAD" || !/json/i.test(c.req.header("content-type") ?? "")) return next();
    const over = checkJsonTextDepth(await c.req.text());
    return over === null ? next() : refuse(c, problem(400, "json-over-limit", over.detail), "JSON_OVER_LIMIT");
  });

  mountHealthRoute(app, view);
  return app;
}
