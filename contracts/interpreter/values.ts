/**
 * @module The reference interpreter's values: JSON-style input ↔ plain JS values (Int as bigint,
 * Date as a day number, Enum as its name, unset as null), and equality / ordering written from the
 * language reference rather than from the WebAssembly layout.
 */
import type { Type } from "../ast.ts";
import { formatDate, parseDate } from "../dates.ts";
import { fromBigInt, toBigInt } from "../runtime/ints.ts";

export type Value = bigint | string | boolean | number | null | Value[];

/** The number of code points in a text. */
export function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/** Text ordering by code points (not UTF-16 units). */
export function compareText(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done === true || y.done === true) return x.done === true ? (y.done === true ? 0 : -1) : 1;
    const ca = x.value.codePointAt(0) as number;
    const cb = y.value.codePointAt(0) as number;
    if (ca !== cb) return ca < cb ? -1 : 1;
  }
}

/** `==` of the language: unset equals only unset; lists compare element by element. */
export function equal(a: Value, b: Value): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i] as Value));
  return a === b;
}

/** A JSON-style value → an interpreter value; a string problem when it does not fit the type's shape. */
export function fromJson(t: Type, x: unknown): Value | { problem: string } {
  const bad = (problem: string) => ({ problem });
  switch (t.kind) {
    case "Int": {
      const n = toBigInt(x);
      return n === null ? bad("must be a 64-bit integer") : n;
    }
    case "Bool":
      return typeof x === "boolean" ? x : bad("must be true or false");
    case "Date": {
      const d = typeof x === "string" ? parseDate(x) : null;
      return d === null ? bad("must be a date") : d;
    }
    case "Enum":
      return typeof x === "string" && t.values.includes(x) ? x : bad("must be an enum value");
    case "Text":
      return typeof x === "string" && x.isWellFormed() ? x : bad("must be a string");
    case "Identity":
      return x === null || (typeof x === "string" && x.startsWith("did:key:") && x.length <= 128 && /^[\x20-\x7e]*$/.test(x)) ? x : bad("must be a did:key or null");
    case "Ref":
      return x === null || (typeof x === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(x)) ? x : bad("must be a subject or null");
    case "List": {
      if (!Array.isArray(x)) return bad("must be a list");
      const out: Value[] = [];
      for (const [i, el] of x.entries()) {
        const v = fromJson(t.element, el);
        if (isProblem(v)) return bad(`[${i}] ${v.problem}`);
        out.push(v);
      }
      return out;
    }
    case "Vector":
      if (x === null) return null;
      return Array.isArray(x) && x.length === t.dim && x.every((n) => typeof n === "number" && Number.isFinite(n)) ? x.map((n) => Math.fround(n as number)) : bad("must be numbers or null");
    case "Float":
      throw new Error("Float values exist only in query results");
  }
}

export function isProblem(v: Value | { problem: string }): v is { problem: string } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** An interpreter value → its JSON-style form. */
export function toJson(t: Type, v: Value): unknown {
  switch (t.kind) {
    case "Int":
      return fromBigInt(v as bigint);
    case "Date":
      return formatDate(v as number);
    case "List":
      return (v as Value[]).map((x) => toJson(t.element, x));
    default:
      return v;
  }
}
