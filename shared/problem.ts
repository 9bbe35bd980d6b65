/**
 * @module RFC 9457 problem documents: the one shape of every HTTP error Charter answers with.
 * Handlers throw `HttpProblem`; the gateway's single error handler turns it into the response.
 */

/** A problem document (`application/problem+json`). */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** A stable machine-readable code (extension member), where the producer has one. */
  readonly code?: string;
  /** Field problems: which input was wrong and why. */
  readonly errors?: readonly object[];
  /** Seconds to wait before trying again (429, 503): also sent as `Retry-After`. */
  readonly retryAfter?: number;
}

const titles: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  421: "Misdirected Request",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  507: "Insufficient Storage",
};

/** Builds a problem; `type` is a stable URN naming the kind of problem. */
export function problem(status: number, kind: string, detail: string, errors?: Problem["errors"]): Problem {
  return { type: `urn:charter:problem:${kind}`, title: titles[status] ?? "Error", status, detail, ...(errors ? { errors } : {}) };
}

/**
 * The one 404 a caller who is not an owner or member of a tenant gets for a tenant, namespace,
 * query or action that is not there, whichever it is: telling them apart would let anyone list which
 * tenants exist and what they have installed (issue 16 #16). The gateway's reads and the engine's
 * write path both answer with it.
 */
export const NOT_FOUND_FOR_CALLER: Problem = Object.freeze(problem(404, "not-found", "no such tenant, namespace, query or action for this caller"));

/** Thrown by HTTP handlers; answered as its problem document. */
export class HttpProblem extends Error {
  readonly problem: Problem;
  constructor(p: Problem) {
    super(p.detail);
    this.problem = p;
  }
}
