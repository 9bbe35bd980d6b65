/**
 * @module Type checks of an `/api` body's fields, collected rather than thrown one at a time: a
 * request with several wrong fields is one `400 malformed-body` naming each (`errors: [{pointer:
 * "#/field", detail}]`). Only types are checked here; lengths, counts and every other rule are the
 * contract's to decide, so its refusal (with the receipt) is what a caller sees.
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";

/** One field's problem, as a problem document lists it. */
export interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

/** Collects field problems; `done()` throws them all as one `400`. */
export class FieldCheck {
  readonly #errors: FieldError[] = [];

  /** `value` as a string, or undefined when absent (an error when `required`). */
  text(value: unknown, field: string, required: boolean): string | undefined {
    if (value === undefined) {
      if (required) this.#fail(field, `${field} is required`);
      return undefined;
    }
    if (typeof value === "string") return value;
    this.#fail(field, `${field} must be a string`);
    return undefined;
  }

  /** `value` as a list of strings, or undefined when absent; each element that is not a string is named. */
  texts(value: unknown, field: string): string[] | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.#fail(field, `${field} must be a list of strings`);
      return undefined;
    }
    // The body's JSON limits bound the list; report a few wrong elements, not every one.
    const wrong = value.flatMap((element, i) => (typeof element === "string" ? [] : [i])).slice(0, 10);
    for (const i of wrong) this.#fail(`${field}/${i}`, `${field}[${i}] must be a string`);
    return wrong.length === 0 ? (value as string[]) : undefined;
  }

  /** Throws the `400` when any field was wrong. */
  done(): void {
    if (this.#errors.length === 0) return;
    const detail = this.#errors.map((e) => e.detail).join("; ");
    throw new HttpProblem(problem(400, "malformed-body", detail, this.#errors));
  }

  #fail(field: string, detail: string): void {
    this.#errors.push({ pointer: `#/${field}`, detail });
  }
}
