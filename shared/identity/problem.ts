/**
 * @module Problem documents for input the identity layer rejects: shared/problem.ts's, with field
 * problems typed as RFC 9457's own example shape. Their codes are the catalogue's
 * (shared/problem-catalog.ts), like every other problem's.
 */
import { type Problem as BaseProblem, problem as baseProblem } from "../problem.ts";
import type { ProblemCode, ProblemStatus } from "../problem-catalog.ts";

export type { ProblemCode } from "../problem-catalog.ts";

/** One field-level problem: `pointer` a JSON Pointer fragment into the payload. */
export interface FieldProblem {
  readonly pointer: string;
  readonly detail: string;
}

/** A problem document whose field problems, if any, point into the payload. */
export interface Problem extends BaseProblem {
  readonly errors?: readonly FieldProblem[];
}

/** A problem document with the title and type its code implies. */
export function problem<C extends ProblemCode>(status: ProblemStatus<C>, code: C, detail: string, errors?: readonly FieldProblem[]): Problem {
  // The field problems given are the only `errors` it carries.
  return baseProblem(status, code, detail, errors) as Problem;
}
