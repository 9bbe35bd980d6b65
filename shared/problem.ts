/**
 * @module RFC 9457 problem documents: the one shape of every HTTP error Charter answers with.
 * Handlers throw `HttpProblem`; the gateway's single error handler turns it into the response.
 * Every problem is built here from a code of the catalogue (problem-catalog.ts).
 */
import { problemCatalog, type ProblemCode, type ProblemStatus, type ProblemType, problemType } from "./problem-catalog.ts";

export type { ProblemCode } from "./problem-catalog.ts";

/** A problem document (`application/problem+json`). */
export interface Problem {
  /** `urn:charter:problem:<code>`. */
  readonly type: ProblemType;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** The stable machine-readable code (an extension member), one of the catalogue's. */
  readonly code: ProblemCode;
  /** Field problems: which input was wrong and why. */
  readonly errors?: readonly object[];
  /** Seconds to wait before trying again (429, 503): also sent as `Retry-After`. */
  readonly retryAfter?: number;
  /** A `query-failed`'s cause, in the refusal reasons' vocabulary (`overflow`, `division_by_zero`). */
  readonly reason?: string;
}

/**
 * Builds the problem of `code`: its status, type and title come from the catalogue. The status is
 * also written at the call site, for the reader; the type checks it is the catalogue's.
 */
export function problem<C extends ProblemCode>(_status: ProblemStatus<C>, code: C, detail: string, errors?: Problem["errors"]): Problem {
  return problemOf(code, detail, errors);
}

/** The problem of a code known only at run time (mapped from another vocabulary, such as the admin channel's). */
export function problemOf(code: ProblemCode, detail: string, errors?: Problem["errors"]): Problem {
  const { status, title } = problemCatalog[code];
  const base = { type: problemType(code), title, status, detail, code };
  return errors === undefined ? base : { ...base, errors };
}

/**
 * The one 404 a caller who is not an owner or member of a tenant gets for a tenant, namespace,
 * query or action that is not there, whichever it is: telling them apart would let anyone list which
 * tenants exist and what they have installed. The gateway's reads and the engine's
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
