/**
 * @module The checker's view of types: how a type is printed in messages, and the three relations
 * the language uses — `comparable` (`==`, `!=`, `in`), `assignable` (apply, migrate, defaults) and
 * `fitsColumn` (a query's result against its declared row).
 *
 * Text lengths and list capacities are bounds, not identities: `Text(len=100) == Text(len=200)` is a
 * fine comparison, and assigning a longer Text to a shorter field is accepted here and refused at
 * run time with `text_too_long` when a value really is too long (the reference: "exceeding a list's
 * capacity or a text's length refuses the command").
 */
import type { Type } from "../ast.ts";

export const INT: Type = { kind: "Int" };
export const BOOL: Type = { kind: "Bool" };
export const DATE: Type = { kind: "Date" };
export const IDENTITY: Type = { kind: "Identity" };
export const FLOAT: Type = { kind: "Float" };
/** A subject or key: at most 128 characters (reference §3). */
export const SUBJECT: Type = { kind: "Text", len: 128 };

/** The type as a user would write it; a named enum by its name. */
export function typeName(t: Type): string {
  switch (t.kind) {
    case "Text":
      return `Text(len=${t.len})`;
    case "Enum":
      return t.name ?? `Enum(${t.values.join(", ")})`;
    case "Ref":
      return `Ref<${t.aggregate}>`;
    case "List":
      return `List<${typeName(t.element)}>(cap=${t.cap})`;
    case "Vector":
      return `Vector(dim=${t.dim})`;
    case "Int":
    case "Bool":
    case "Date":
    case "Identity":
    case "Float":
      return t.kind;
    default: {
      const never: never = t;
      return String(never);
    }
  }
}

/** Whether two values of these types may meet in `==`, `!=` or `in` (lengths and capacities aside). */
export function comparable(a: Type, b: Type): boolean {
  switch (a.kind) {
    case "Enum":
      return b.kind === "Enum" && sameValues(a.values, b.values);
    case "Ref":
      return b.kind === "Ref" && a.aggregate === b.aggregate;
    case "List":
      return b.kind === "List" && comparable(a.element, b.element);
    case "Vector":
      return b.kind === "Vector" && a.dim === b.dim;
    default:
      return a.kind === b.kind;
  }
}

/** Whether a value of `source` may be stored where `target` is declared (bounds checked at run time). */
export function assignable(target: Type, source: Type): boolean {
  return comparable(target, source);
}

/** Whether a result column of type `actual` satisfies a row that declares `declared`. */
export function fitsColumn(declared: Type, actual: Type): boolean {
  if (declared.kind === "Text" && actual.kind === "Text") return actual.len <= declared.len;
  if (declared.kind === "List" && actual.kind === "List") return actual.cap <= declared.cap && fitsColumn(declared.element, actual.element);
  return comparable(declared, actual);
}

/** Exactly the same type, bounds included (a named enum equals its inline spelling). */
export function sameType(a: Type, b: Type): boolean {
  if (a.kind === "Text" && b.kind === "Text") return a.len === b.len;
  if (a.kind === "List" && b.kind === "List") return a.cap === b.cap && sameType(a.element, b.element);
  return comparable(a, b);
}

/** Int, Date and Text order; in queries Float columns (score, distance, avg) order too. */
export function orderable(t: Type, inQuery: boolean): boolean {
  return t.kind === "Int" || t.kind === "Date" || t.kind === "Text" || (inQuery && t.kind === "Float");
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
