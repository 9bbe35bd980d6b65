/**
 * @module Writing problem documents as responses — Hono's and the command route's plain node:http
 * ones alike — the gateway's single error mapper, and the log line of every answer ≥ 400.
 */
import type { ServerResponse } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { HttpProblem, type Problem, problem, type ProblemCode } from "../../shared/problem.ts";
import type { Logger } from "../../shared/log.ts";

const PROBLEM_JSON = "application/problem+json";

/** The problem each request was answered with, for the answer's log line. */
const answered = new WeakMap<Context, ProblemCode>();

/** Answers with a problem document. */
export function problemResponse(c: Context, p: Problem): Response {
  answered.set(c, p.code);
  c.header("content-type", PROBLEM_JSON);
  if (p.retryAfter !== undefined) c.header("retry-after", String(p.retryAfter));
  return c.body(JSON.stringify(p), p.status as 400);
}

/** Records that `c` is answered with `p` by a route that writes the body itself (`/health`'s 503). */
export function noteProblem(c: Context, p: Problem): void {
  answered.set(c, p.code);
}

/** Answers a plain node:http request with a problem document (the command route, a foreign Host). */
export function sendProblem(res: ServerResponse, p: Problem, extra?: Record<string, string>): void {
  const body = JSON.stringify(p);
  res.writeHead(p.status, {
    "content-type": PROBLEM_JSON,
    "content-length": Buffer.byteLength(body),
    ...(p.retryAfter === undefined ? {} : { "retry-after": String(p.retryAfter) }),
    ...extra,
  });
  res.end(body);
}

/** The 500 for anything a route threw that it should not have; the error itself is logged, never sent. */
export function internalProblem(): Problem {
  return problem(500, "internal", "the server failed to answer this request; the failure was logged");
}

/** Maps anything thrown by a route to its problem document; unexpected errors are logged as bugs. */
export function errorHandler(log: Logger) {
  return function onError(error: Error, c: Context): Response {
    if (error instanceof HttpProblem) return problemResponse(c, error.problem);
    log.error("unhandled error", { method: c.req.method, route: routeOf(c), error: error.stack ?? error.message });
    return problemResponse(c, internalProblem());
  };
}

/** What an answer's log line says: never a body, a header, a raw path (it holds ids) or a JWS. */
export interface AnswerFields {
  readonly method: string;
  /** The route's pattern (`/v1/:tenant/:namespace/actions/:action`), or null when no route matched. */
  readonly route: string | null;
  readonly status: number;
  /** The problem's code, when the answer was a problem document. */
  readonly code?: ProblemCode;
}

/** Logs an answer ≥ 400 as one `answered` line: 4xx at info (the caller's doing), 5xx at error (ours). */
export function logAnswer(log: Logger, fields: AnswerFields, extra?: Record<string, unknown>): void {
  if (fields.status < 400) return;
  const line = { ...fields, ...extra };
  if (fields.status >= 500) log.error("answered", line);
  else log.info("answered", line);
}

/** Middleware: after the route (or the not-found and error mappers) answered, logs an answer ≥ 400. */
export function answerLog(log: Logger): MiddlewareHandler {
  return async function logAnswers(c, next) {
    await next();
    if (c.res.status < 400) return;
    const code = answered.get(c);
    logAnswer(log, { method: c.req.method, route: routeOf(c), status: c.res.status, ...(code === undefined ? {} : { code }) });
  };
}

/**
 * The pattern of the route that answered, or null for none: the last matched handler of one method,
 * else the last `all` route that is not a wildcard middleware's.
 */
function routeOf(c: Context): string | null {
  const routes = matchedRoutes(c);
  const handler = routes.findLast((r) => r.method !== "ALL") ?? routes.findLast((r) => !r.path.endsWith("*"));
  return handler?.path ?? null;
}
