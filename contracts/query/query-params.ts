/**
 * @module Checking a query's parameters against their declared types before anything is read, and
 * turning each into the value its column holds (contracts/storage/columns.ts), ready to bind. Every bad
 * parameter is reported at once, as a field problem of a 400 problem document.
 */
import type { SQLInputValue } from "node:sqlite";
import type { Type } from "../ast.ts";
import { parseDate } from "../dates.ts";
import { toBigInt } from "../runtime/ints.ts";
import { isDidKey } from "../../shared/identity/index.ts";
import { toColumn } from "../storage/columns.ts";

/** A query parameter as the schema declares it. */
export interface ParamDecl {
  readonly name: string;
  readonly type: Type;
}

export interface ParamProblem {
  readonly pointer: string;
  readonly detail: string;
}

const SUBJECT = /^[A-Za-z0-9._:-]{1,128}$/;

/** The JSON Pointer (RFC 6901) of a parameter in the request body. */
const pointerOf = (name: string) => `#/params/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;

/** Why `value` is not a `type`, or null when it is one. */
export function checkValue(type: Type, value: unknown): string | null {
  switch (type.kind) {
    case "Text":
      if (typeof value !== "string") return "must be a string";
      return [...value].length > type.len ? `must be at most ${type.len} characters` : null;
    case "Int":
      return toBigInt(value) === null ? "must be a 64-bit integer (a number, or a decimal string beyond 2^53)" : null;
    case "Bool":
      return typeof value === "boolean" ? null : "must be true or false";
    case "Date":
      return typeof value === "string" && parseDate(value) !== null ? null : "must be a date written YYYY-MM-DD";
    case "Enum":
      return typeof value === "string" && type.values.includes(value) ? null : `must be one of ${type.values.join(", ")}`;
    case "Identity":
      return isDidKey(value) ? null : "must be an Ed25519 did:key";
    case "Ref":
      return typeof value === "string" && SUBJECT.test(value) ? null : `must be a subject of ${type.aggregate} (1–128 characters of A–Z, a–z, 0–9, '.', '_', ':', '-')`;
    case "List": {
      if (!Array.isArray(value)) return "must be a list";
      if (value.length > type.cap) return `must hold at most ${type.cap} elements`;
      for (const [i, element] of value.entries()) {
        const bad = checkValue(type.element, element);
        if (bad !== null) return `element ${i} ${bad}`;
      }
      return null;
    }
    case "Vector":
      if (!Array.isArray(value) || value.length !== type.dim || !value.every((x) => typeof x === "number" && Number.isFinite(x))) return `must be a list of ${type.dim} numbers`;
      return null;
    case "Float":
      return typeof value === "number" && Number.isFinite(value) ? null : "must be a number";
  }
}

/** A checked value as its column holds it. */
function bindable(type: Type, value: unknown): SQLInputValue {
  if (type.kind === "Int") return toBigInt(value);
  if (type.kind === "List") return JSON.stringify((value as unknown[]).map((x) => (type.element.kind === "Int" ? normalInt(x) : x)));
  return toColumn(type, value);
}

/** Ints inside a list as the runtime stores them: a number within ±(2^53−1), else a decimal string. */
function normalInt(x: unknown): number | string {
  const n = toBigInt(x) as bigint;
  return n >= -9007199254740991n && n <= 9007199254740991n ? Number(n) : n.toString();
}

/**
 * Checks `input` (the body's `params`) against `declared`: every declared parameter present and of
 * its type, none other; `counts` names the parameters used as `take`/`drop` counts, which must not
 * be negative. Answers the bindable values by name, or the problems.
 */
export function checkParams(
  declared: readonly ParamDecl[],
  input: unknown,
  counts: ReadonlySet<string>,
): { ok: true; values: ReadonlyMap<string, SQLInputValue> } | { ok: false; errors: ParamProblem[] } {
  if (input === undefined) input = {};
  if (input === null || typeof input !== "object" || Array.isArray(input)) return { ok: false, errors: [{ pointer: "#/params", detail: "must be an object of the query's parameters" }] };
  const given = input as Record<string, unknown>;
  const errors: ParamProblem[] = [];
  const values = new Map<string, SQLInputValue>();
  for (const p of declared) {
    const pointer = pointerOf(p.name);
    if (!Object.hasOwn(given, p.name)) {
      errors.push({ pointer, detail: "is required" });
      continue;
    }
    const value = given[p.name];
    const bad = checkValue(p.type, value);
    if (bad !== null) errors.push({ pointer, detail: bad });
    else if (counts.has(p.name) && (toBigInt(value) as bigint) < 0n) errors.push({ pointer, detail: "is a take/drop count and must not be negative" });
    else values.set(p.name, bindable(p.type, value));
  }
  for (const name of Object.keys(given)) {
    if (!declared.some((p) => p.name === name)) errors.push({ pointer: pointerOf(name), detail: "is not a parameter of this query" });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, values };
}
