/**
 * @module Kysely over node:sqlite. Kysely's SQLite dialect expects a better-sqlite3-shaped database;
 * node:sqlite statements lack `reader` and take parameters spread, so this adapter supplies both.
 * Kysely is for schema, migrations and admin reads; hot paths use cached prepared statements.
 */
import { Kysely, SqliteDialect } from "kysely";
import type { DatabaseSync, SQLInputValue } from "node:sqlite";

/** A typed Kysely instance over an already opened node:sqlite connection. */
export function kyselyFor<DB>(db: DatabaseSync): Kysely<DB> {
  const database = {
    close(): void {
      // The connection belongs to its opener; Kysely's destroy() must not close it.
    },
    prepare(sql: string) {
      const statement = db.prepare(sql);
      const params = (p: readonly unknown[]) => p as SQLInputValue[];
      return {
        reader: statement.columns().length > 0,
        all: (p: readonly unknown[]) => statement.all(...params(p)),
        run: (p: readonly unknown[]) => {
          const r = statement.run(...params(p));
          return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
        },
        iterate: (p: readonly unknown[]) => statement.iterate(...params(p)),
      };
    },
  };
  return new Kysely<DB>({ dialect: new SqliteDialect({ database }) });
}
