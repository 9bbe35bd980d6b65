/**
 * @module The types of an identity route's body fields, checked together: every wrong field is
 * named in one `400 malformed-body` (`errors: [{pointer: "#/field", detail}]`). Only types and the
 * closed choices of the route itself are checked here; what a did, scope, handle or end may be is
 * the engine's to say, and a name's length the contract's.
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";

/** One field's problem. */
interface FieldError {
  readonly pointer: string;
  readonly detail: string;
}

/** Reads fields of a body; `done()` throws the `400` if any was wrong. */
export class BodyFields {
  readonly #errors: FieldError[] = [];

  /** A string field; undefined when absent (a problem when `required`). */
  text(value: unknown, field: string, required: true): string;
  text(value: unknown, field: string, required: false): string | undefined;
  text(value: unknown, field: string, required: boolean): string | undefined {
    if (typeof value === "string") return value;
    if (value !== undefined) this.#fail(field, `${field} must be a string`);
    else if (required) this.#fail(field, `${field} is required`);
    return required ? "" : undefined;
  }

  /** A boolean field; false when absent. */
  flag(value: unknown, field: string): boolean {
    if (value === undefined || typeof value === "boolean") return value === true;
    this.#fail(field, `${field} must be true or false`);
    return false;
  }

  /** One of `choices` (required). */
  choice<C extends string>(value: unknown, field: string, choices: readonly C[]): C {
    if (typeof value === "string" && (choices as readonly string[]).includes(value)) return value as C;
    this.#fail(field, `${field} must be one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`);
    return choices[0] as C;
  }

  /** A list of strings (required); the first few elements that are not strings are named. */
  texts(value: unknown, field: string): string[] {
    if (!Array.isArray(value)) {
      this.#fail(field, `${field} must be a list of strings`);
      return [];
    }
    // The body's JSON limits bound the list; a few wrong elements are enough to name.
    const wrong = value.flatMap((element: unknown, i) => (typeof element === "string" ? [] : [i])).slice(0, 10);
    for (const i of wrong) this.#fail(`${field}/${i}`, `${field}[${i}] must be a string`);
    return wrong.length === 0 ? (value as string[]) : [];
  }

  /** A problem of the route's own (two fields that do not go together). */
  reject(field: string, detail: string): void {
    this.#fail(field, detail);
  }

  /** Throws the `400` naming every wrong field, if any. */
  done(): void {
    if (this.#errors.length === 0) return;
    throw new HttpProblem(problem(400, "malformed-body", this.#errors.map((e) => e.detail).join("; "), this.#errors));
  }

  #fail(field: string, detail: string): void {
    this.#errors.push({ pointer: `#/${field}`, detail });
  }
}
