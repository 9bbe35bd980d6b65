/**
 * @module Storage derived from a contract: one table per (namespace, aggregate) with one typed
 * column per state field, the tenant and subject as its key, and the artifact id and history
 * sequence that last decided each row. Converts between runtime states and rows.
 *
 * Column types: Text → TEXT, Int → INTEGER (SQLite integers are 64-bit), Bool → INTEGER 0/1,
 * Date → TEXT `YYYY-MM-DD` (ordered as text), Enum → TEXT (the value's name), Identity/Ref → TEXT
 * or NULL when unset, List → TEXT (JSON array), Vector → BLOB (float32 little-endian) or NULL.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { Type } from "../../contracts/ast.ts";
import type { Schema, SchemaField } from "../../contracts/schema.ts";

/** Quotes an SQL identifier. */
export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The table holding the records of `aggregate` in `namespace` (all tenants). */
export function tableName(namespace: string, aggregate: string): string {
  return `st_${namespace.replace(/[^a-z0-9]/g, "_")}__${aggregate}`;
}

/** The column of a state field. */
export const columnName = (field: string) => `f_${field}`;

function sqlType(type: Type): string {
  switch (type.kind) {
    case "Int":
    case "Bool":
      return "INTEGER";
    case "Vector":
      return "BLOB";
    case "Text":
    case "Date":
    case "Enum":
    case "Identity":
    case "Ref":
    case "List":
      return "TEXT";
    case "Float":
      return "REAL";
  }
}

/** Creates the aggregate's table, or adds the columns a newer version introduces. Idempotent. */
export function deriveTable(db: DatabaseSync, namespace: string, aggregate: string, fields: readonly SchemaField[]): void {
  const table = quote(tableName(namespace, aggregate));
  const existing = new Set((db.prepare(`SELECT name FROM pragma_table_info(?)`).all(tableName(namespace, aggregate)) as { name: string }[]).map((r) => r.name));
  if (existing.size === 0) {
    const columns = fields.map((f) => `${quote(columnName(f.name))} ${sqlType(f.type)}`);
    db.exec(
      `CREATE TABLE ${table} (tenant TEXT NOT NULL, subject TEXT NOT NULL, artifact TEXT NOT NULL, seq INTEGER NOT NULL, ` +
        `${columns.join(", ")}${columns.length ? ", " : ""}PRIMARY KEY (tenant, subject)) WITHOUT ROWID`,
    );
    return;
  }
  for (const f of fields) {
    if (!existing.has(columnName(f.name))) db.exec(`ALTER TABLE ${table} ADD COLUMN ${quote(columnName(f.name))} ${sqlType(f.type)}`);
  }
}

/** Derives every aggregate table of a schema. */
export function deriveTables(db: DatabaseSync, schema: Schema): void {
  for (const [aggregate, { fields }] of Object.entries(schema.aggregates)) deriveTable(db, schema.namespace, aggregate, fields);
}

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

/** Prepared reads and writes of one aggregate table, with the conversions of its fields. */
export class StateTable {
  readonly fields: readonly SchemaField[];
  readonly #select: StatementSync;
  readonly #upsert: StatementSync;

  constructor(db: DatabaseSync, namespace: string, aggregate: string, fields: readonly SchemaField[]) {
    this.fields = fields;
    const table = quote(tableName(namespace, aggregate));
    const cols = fields.map((f) => quote(columnName(f.name)));
    this.#select = db.prepare(`SELECT artifact, seq${cols.map((c) => `, ${c}`).join("")} FROM ${table} WHERE tenant = ? AND subject = ?`);
    this.#select.setReadBigInts(true);
    const all = ["tenant", "subject", "artifact", "seq", ...cols];
    this.#upsert = db.prepare(
      `INSERT INTO ${table} (${all.join(", ")}) VALUES (${all.map(() => "?").join(", ")}) ` +
        `ON CONFLICT (tenant, subject) DO UPDATE SET ${all.slice(2).map((c) => `${c} = excluded.${c}`).join(", ")}`,
    );
  }

  /** The stored state of a subject, or null when it has no record. */
  read(tenant: string, subject: string): { state: Record<string, unknown>; artifact: string; seq: number } | null {
    const row = this.#select.get(tenant, subject) as Record<string, unknown> | undefined;
    if (row === undefined) return null;
    const state: Record<string, unknown> = {};
    for (const f of this.fields) state[f.name] = fromColumn(f.type, row[columnName(f.name)]);
    return { state, artifact: row.artifact as string, seq: Number(row.seq) };
  }

  /** Writes a subject's whole state, bound to the artifact and history entry that decided it. */
  write(tenant: string, subject: string, artifact: string, seq: number, state: Record<string, unknown>): void {
    const values: SQLInputValue[] = [tenant, subject, artifact, seq];
    for (const f of this.fields) values.push(toColumn(f.type, state[f.name]));
    this.#upsert.run(...values);
  }
}
