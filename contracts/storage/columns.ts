/**
 * @module How a contract's records sit in SQLite, for the engine that writes them and for every
 * worker that reads them: one table per (namespace, aggregate), one `f_<field>` column per state
 * field, and the conversions between runtime values and column values.
 *
 * Column types: Text → TEXT, Int → INTEGER (SQLite integers are 64-bit), Bool → INTEGER 0/1,
 * Date → TEXT `YYYY-MM-DD` (ordered as text), Enum → TEXT (the value's name), Identity/Ref → TEXT
 * or NULL when unset, List → TEXT (JSON array), Vector → BLOB (float32 little-endian) or NULL.
 */
import type { SQLInputValue } from "node:sqlite";
import type { Type } from "../ast.ts";

/** Quotes an SQL identifier. */
export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The table holding the records of `aggregate` under the artifact whose schema this is (all
 * tenants that installed it). Tables are per contract version — named by the digest of the source
 * block the artifact was compiled from, which fixes its layout — so upgrading one tenant (which
 * moves its records into the new version's tables) never changes a table another tenant uses.
 */
export function tableName(schema: { readonly namespace: string; readonly source: { readonly sha256: string } }, aggregate: string): string {
  return `st_${schema.namespace.replace(/[^a-z0-9]/g, "_")}_${schema.source.sha256.slice(0, 12)}__${aggregate}`;
}

/** The column of a state field. */
export const columnName = (field: string) => `f_${field}`;

/** A state value as stored in its column. */
export function toColumn(type: Type, value: unknown): SQLInputValue {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case "Int":
      return typeof value === "string" ? BigInt(value) : (value as number);
    case "Bool":
      return value ? 1 : 0;
    case "List":
      return JSON.stringify(value);
    case "Vector":
      return new Uint8Array(Float32Array.from(value as number[]).buffer);
    default:
      return value as string;
  }
}

/** A column's value as a runtime state value. */
export function fromColumn(type: Type, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case "Int":
      return typeof value === "bigint" ? (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString()) : value;
    case "Bool":
      return value === 1 || value === 1n;
    case "List":
      return JSON.parse(value as string) as unknown;
    case "Vector": {
      const bytes = value as Uint8Array;
      return Array.from(new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)));
    }
    default:
      return value;
  }
}
