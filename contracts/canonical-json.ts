/**
 * @module Canonical JSON: object keys sorted recursively (by UTF-16 code units), no whitespace,
 * `undefined` members dropped. The schema's bytes, and so the artifact id, depend on nothing else.
 */

export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json | undefined };

/** The canonical text of `value`; non-integers and non-finite numbers are rejected (bugs). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`canonical JSON holds integers only, not ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  throw new Error(`cannot write ${typeof value} as canonical JSON`);
}
