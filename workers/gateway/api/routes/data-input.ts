/**
 * @module The fields the record routes (`/api/data/*`, `/api/personal/*`, `/api/business/*`) read
 * from a body, a path or a query string: names, subjects, argument objects. Each check only says
 * whether the value has the shape a command or query can carry; what the value may be is the
 * contract's to decide. A wrong one is a `400` naming the field (`#/field`, or `?name` for a
 * query-string parameter).
 */
import { HttpProblem, problem } from "../../../../shared/problem.ts";

/** Longest tenant, namespace, action or query name accepted (the engine's own limits are tighter). */
export const NAME_MAX = 128;

/** `value` as a name of 1 to NAME_MAX characters, else a `400` naming `field`. */
export function nameField(value: unknown, field: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > NAME_MAX) throw badField(field, `${field} must be a name of 1 to ${NAME_MAX} characters`);
  return value;
}

/** `value` as a string (its content is the engine's to check), else a `400` naming `field`. */
export function stringField(value: unknown, field: string): string {
  if (typeof value !== "string") throw badField(field, `${field} must be a string`);
  return value;
}

/** `value` as a JSON object (`{}` when absent), else a `400` naming `field`. */
export function objectField(value: unknown, field: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw badField(field, `${field} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** An optional tenant handle of a body: undefined (the personal tenant) when absent. */
export function tenantField(value: unknown): string | undefined {
  return value === undefined ? undefined : nameField(value, "tenant");
}

/** A `400 malformed-body` naming one field of the body. */
export function badField(field: string, detail: string): HttpProblem {
  return new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: `#/${field}`, detail }]));
}

/** A `400 bad-parameters` naming one query-string parameter. */
export function badParameter(name: string, detail: string): HttpProblem {
  return new HttpProblem(problem(400, "bad-parameters", detail, [{ pointer: `?${name}`, detail }]));
}
