/**
 * @module Storage derived from a contract: one table per (namespace, aggregate) with one typed
 * column per state field, the tenant and subject as its key, and the artifact id and history
 * sequence that last decided each row. Converts between runtime states and rows (the column layout
 * and value conversions live in contracts/storage/columns.ts, which readers use too).
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { Type } from "../../contracts/ast.ts";
import type { Schema, SchemaField } from "../../contracts/schema.ts";
import { columnName, fromColumn, quote, tableName, toColumn } from "../../contracts/storage/columns.ts";
import { deriveReadIndexes, FulltextWriter } from "./read-indexes.ts";

// The layout and conversions are shared with the readers (the gateway); re-exported for the engine.
export { columnName, fromColumn, quote, tableName, toColumn };

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

/** Creates the aggregate's table for this contract version if it does not exist yet. */
export function deriveTable(db: DatabaseSync, schema: Schema, aggregate: string, fields: readonly SchemaField[]): void {
  const columns = fields.map((f) => `${quote(columnName(f.name))} ${sqlType(f.type)}`);
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${quote(tableName(schema, aggregate))} (tenant TEXT NOT NULL, subject TEXT NOT NULL, artifact TEXT NOT NULL, seq INTEGER NOT NULL, ` +
      `${columns.join(", ")}${columns.length ? ", " : ""}PRIMARY KEY (tenant, subject)) WITHOUT ROWID`,
  );
}

/** Derives every aggregate table of a schema. */
export function deriveTables(db: DatabaseSync, schema: Schema): void {
  for (const [aggregate, { fields }] of Object.entries(schema.aggregates)) deriveTable(db, schema, aggregate, fields);
  // The FTS5 tables and the indexes the declared queries need (read-indexes.ts).
  deriveReadIndexes(db, schema);
}

/** Prepared reads and writes of one aggregate table, with the conversions of its fields. */
export class StateTable {
  readonly fields: readonly SchemaField[];
  readonly #select: StatementSync;
  readonly #upsert: StatementSync;
  readonly #delete: StatementSync;
  readonly #fulltext: FulltextWriter | null;

  constructor(db: DatabaseSync, schema: Schema, aggregate: string) {
    const fields = schema.aggregates[aggregate]?.fields ?? [];
    this.fields = fields;
    const table = quote(tableName(schema, aggregate));
    const cols = fields.map((f) => quote(columnName(f.name)));
    this.#select = db.prepare(`SELECT artifact, seq${cols.map((c) => `, ${c}`).join("")} FROM ${table} WHERE tenant = ? AND subject = ?`);
    this.#select.setReadBigInts(true);
    const all = ["tenant", "subject", "artifact", "seq", ...cols];
    this.#upsert = db.prepare(
      `INSERT INTO ${table} (${all.join(", ")}) VALUES (${all.map(() => "?").join(", ")}) ` +
        `ON CONFLICT (tenant, subject) DO UPDATE SET ${all.slice(2).map((c) => `${c} = excluded.${c}`).join(", ")}`,
    );
    this.#delete = db.prepare(`DELETE FROM ${table} WHERE tenant = ? AND subject = ?`);
    const fulltext = new FulltextWriter(db, schema, aggregate);
    this.#fulltext = fulltext.empty ? null : fulltext;
  }

  /** The stored state of a subject, or null when it has no record. */
  read(tenant: string, subject: string): { state: Record<string, unknown>; artifact: string; seq: number } | null {
    const row = this.#select.get(tenant, subject) as Record<string, unknown> | undefined;
    if (row === undefined) return null;
    const state: Record<string, unknown> = {};
    for (const f of this.fields) state[f.name] = fromColumn(f.type, row[columnName(f.name)]);
    return { state, artifact: row.artifact as string, seq: Number(row.seq) };
  }

  /**
   * Writes a subject's whole state, bound to the artifact and history entry that decided it.
   * `before`: the state this table held for the subject until now (as `read` gave it), when there
   * was one; its search text is then rewritten only where it changed.
   */
  write(tenant: string, subject: string, artifact: string, seq: number, state: Record<string, unknown>, before?: Record<string, unknown> | null): void {
    const values: SQLInputValue[] = [tenant, subject, artifact, seq];
    for (const f of this.fields) values.push(toColumn(f.type, state[f.name]));
    this.#upsert.run(...values);
    this.#fulltext?.write(tenant, subject, state, before ?? null);
  }

  /**
   * Takes a subject's record away (a merge with another device refused every command that had made
   * it: merge/sync-apply.ts), its search text emptied. `before`: the state the table held.
   */
  remove(tenant: string, subject: string, before: Record<string, unknown>): void {
    this.#fulltext?.write(tenant, subject, {}, before);
    this.#delete.run(tenant, subject);
  }
}
