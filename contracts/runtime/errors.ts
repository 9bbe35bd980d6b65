/** @module Errors of the runtime's callers: arguments of the wrong shape (the gateway answers 400). */

/** One problem with one argument (`field` is the parameter's name, with `[i]` for list elements). */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

/** Arguments that do not match the action's parameter types; lists every problem found. */
export class ArgumentError extends Error {
  readonly problems: readonly FieldProblem[];

  constructor(problems: readonly FieldProblem[]) {
    super(`invalid arguments: ${problems.map((p) => `${p.field} ${p.message}`).join("; ")}`);
    this.name = "ArgumentError";
    this.problems = problems;
  }
}
