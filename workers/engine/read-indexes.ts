/**
 * @module Keeping the read-side storage of shared/store/read-indexes.ts in step with the state:
 * derived at install (in the install's transaction), and every state write of an aggregate with
 * `fulltext` indexes rewrites the subject's FTS5 rows in the same transaction as the state row, so
 * a search never sees text the state no longer holds. An upgrade that moves a tenant's records to a
 * new version's tables removes them from the old version's FTS5 tables too.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Schema } from "../../contracts/schema.ts";
import { columnName, quote } from "../../shared/store/columns.ts";
import { ftsIds, ftsTable, indexesOf, readIndexDdl } from "../../shared/store/read-indexes.ts";

/** Creates the FTS5 tables and query indexes of `schema` if they do not exist yet. */
export function deriveReadIndexes(db: DatabaseSync, schema: Schema): void {
  for (const sql of readIndexDdl(schema)) db.exec(sql);
}

interface FtsStatements {
  readonly fields: readonly string[];
  readonly id: StatementSync;
  readonly remove: StatementSync;
  readonly insert: StatementSync;
}

/** The FTS5 upkeep of one aggregate (nothing to do when it has no fulltext index). */
export class FulltextWriter {
  readonly #indexes: FtsStatements[];

  constructor(db: DatabaseSync, schema: Schema, aggregate: string) {
    this.#indexes = indexesOf(schema, aggregate)
      .filter((ix) => ix.kind === "fulltext")
      .map((ix) => {
        const fts = quote(ftsTable(schema, aggregate, ix.name));
        const cols = ix.fields.map((f) => quote(columnName(f)));
        return {
          fields: ix.fields,
          id: db.prepare(`INSERT INTO ${quote(ftsIds(schema, aggregate, ix.name))} (tenant, subject) VALUES (?, ?) ON CONFLICT (tenant, subject) DO UPDATE SET tenant = excluded.tenant RETURNING id`),
          remove: db.prepare(`DELETE FROM ${fts} WHERE rowid = ?`),
          insert: db.prepare(`INSERT INTO ${fts} (rowid, ${cols.join(", ")}) VALUES (?, ${cols.map(() => "?").join(", ")})`),
        };
      });
  }

  /** Whether the aggregate has anything to keep. */
  get empty(): boolean {
    return this.#indexes.length === 0;
  }

  /** Replaces the subject's indexed text by `state`'s. */
  write(tenant: string, subject: string, state: Record<string, unknown>): void {
    for (const ix of this.#indexes) {
      const { id } = ix.id.get(tenant, subject) as { id: number | bigint };
      ix.remove.run(id);
      ix.insert.run(id, ...ix.fields.map((f) => String(state[f] ?? "")));
    }
  }
}

/** Removes every FTS5 row of `tenant` from `schema`'s `aggregate` (its records moved elsewhere). */
export function dropTenantFulltext(db: DatabaseSync, schema: Schema, aggregate: string, tenant: string): void {
  for (const ix of indexesOf(schema, aggregate)) {
    if (ix.kind !== "fulltext") continue;
    const ids = quote(ftsIds(schema, aggregate, ix.name));
    db.prepare(`DELETE FROM ${quote(ftsTable(schema, aggregate, ix.name))} WHERE rowid IN (SELECT id FROM ${ids} WHERE tenant = ?)`).run(tenant);
    db.prepare(`DELETE FROM ${ids} WHERE tenant = ?`).run(tenant);
  }
}
