/**
 * @module Writing problem documents as Hono responses, and the gateway's single error mapper.
 */
import type { Context } from "hono";
import { HttpProblem, type Problem, problem } from "../../shared/problem.ts";
import type { Logger } from "../../shared/log.ts";

/** Answers with a problem document. */
export function problemResponse(c: Context, p: Problem): Response {
  c.header("content-type", "application/problem+json");
  if (p.retryAfter !== undefined) c.header("retry-after", String(p.retryAfter));
  return c.body(JSON.stringify(p), p.status as 400);
}

/** Maps anything thrown by a route to its problem document; unexpected errors are logged as bugs. */
export function errorHandler(log: Logger) {
  return function onError(error: Error, c: Context): Response {
    if (error instanceof HttpProblem) return problemResponse(c, error.problem);
    log.error("unhandled error", { path: c.req.path, error: error.stack ?? error.message });
    return problemResponse(c, problem(500, "internal", "the server failed to answer this request; the failure was logged"));
  };
}
