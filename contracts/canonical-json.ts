/**
 * @module Canonical JSON: object keys sorted recursively (by UTF-16 code units), no whitespace,
 * `undefined` members dropped. The schema's bytes, and so the artifact id, depend on nothing else.
 */

export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json | undefined };

/** The canonical text of `value`; non-integers and non-finite numbers are rejected (bugs). */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts);
  return parts.join("");
}

function write(value: unknown, out: string[]): void {
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    out.push(JSON.stringify(value));
  } else if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`canonical JSON holds integers only, not ${value}`);
    out.push(String(value));
  } else if (Array.isArray(value)) {
    out.push("[");
    value.forEach((v, i) => {
      if (i > 0) out.push(",");
      write(v === undefined ? null : v, out);
    });
    out.push("]");
  } else if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
    out.push("{");
    keys.forEach((k, i) => {
      out.push(i > 0 ? `,${JSON.stringify(k)}:` : `${JSON.stringify(k)}:`);
      write(record[k], out);
    });
    out.push("}");
  } else {
    throw new Error(`cannot write ${typeof value} as canonical JSON`);
  }
}
