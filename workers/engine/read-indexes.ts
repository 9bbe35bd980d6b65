/**
 * @module Keeping the read-side storage of contracts/storage/read-indexes.ts in step with the state:
 * derived at install (in the install's transaction; with the indexes queries over other contracts'
 * collections need on their tables, whichever of the two is installed first), and every state write of an aggregate with
 * `fulltext` indexes rewrites the subject's FTS5 rows in the same transaction as the state row, so
 * a search never sees text the state no longer holds. Each tenant has its own FTS5 table per index
 * (BM25's statistics are the tenant's), created in the transaction of the tenant's first write; a
 * store written before per-tenant tables keeps every tenant's rows in one shared table, and the
 * tenant's rows move out of it then. An upgrade that moves a tenant's records to a new version's
 * tables removes them from the old version's FTS5 tables too.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Schema } from "../../contracts/schema.ts";
import { columnName, quote } from "../../contracts/storage/columns.ts";
import { sourceAggregate, splitSource } from "../../shared/store/collections.ts";
import {
  ftsIds,
  ftsTable,
  ftsTableDdl,
  indexesOf,
  otherSourceIndexDdl,
  otherSources,
  readIndexDdl,
  type SchemaIndex,
  sharedFtsTable,
  tenantFtsTable,
} from "../../contracts/storage/read-indexes.ts";

/**
 * Creates the subject maps and query indexes of `schema` if they do not exist yet — also those its
 * queries need on other contracts' tables (every version of each active for some tenant), and
 * those other active contracts' queries need on `schema`'s tables when they read its namespace.
 */
export function deriveReadIndexes(db: DatabaseSync, schema: Schema): void {
  for (const sql of readIndexDdl(schema)) db.exec(sql);
  // A bare store (tests deriving tables alone) has no installs to read.
  if (!tableExists(db, "installs") || !tableExists(db, "artifacts")) return;
  const parsed = new Map<string, Schema>([[schema.source.sha256, schema]]);
  const parse = (json: string) => {
    const s = JSON.parse(json) as Schema;
    const known = parsed.get(s.source.sha256);
    if (known !== undefined) return known;
    parsed.set(s.source.sha256, s);
    return s;
  };
  const namespaces = new Set(otherSources(schema).map((name) => splitSource(name).namespace));
  namespaces.delete(schema.namespace);
  const active = db.prepare("SELECT a.schema AS schema FROM artifacts a WHERE a.namespace = ? AND a.id IN (SELECT artifact FROM installs WHERE namespace = ? AND status = 'active')");
  for (const namespace of namespaces) {
    for (const row of active.all(namespace, namespace) as { schema: string }[]) {
      const target = parse(row.schema);
      for (const sql of otherSourceIndexDdl(schema, target, sourceAggregate)) db.exec(sql);
    }
  }
  // Contracts installed earlier whose queries read this namespace (its schema names it: a cheap filter first).
  const readers = db.prepare("SELECT a.schema AS schema FROM artifacts a WHERE a.namespace <> ? AND instr(a.schema, ?) > 0 AND a.id IN (SELECT artifact FROM installs WHERE status = 'active')");
  for (const row of readers.all(schema.namespace, `"${schema.namespace}`) as { schema: string }[]) {
    for (const sql of otherSourceIndexDdl(parse(row.schema), schema, sourceAggregate)) db.exec(sql);
  }
}

/** Whether `db` has a table (or virtual table) named `name`. */
export function tableExists(db: DatabaseSync, name: string): boolean {
  return db.prepare("SELECT 1 FROM pragma_table_list(?)").get(name) !== undefined;
}

interface TenantFts {
  readonly remove: StatementSync;
  readonly insert: StatementSync;
}

interface FtsIndex {
  readonly index: SchemaIndex;
  /**
   * Gives a subject its FTS5 rowid; changes a row only when the subject had none (so no FTS5 row
   * yet). Not `RETURNING id`: a statement with RETURNING opens a savepoint, and FTS5 writes its
   * pending rows out at every savepoint — a segment per row instead of one per transaction (three
   * times the cost of the row's indexing).
   */
  readonly newId: StatementSync;
  readonly id: StatementSync;
  /** Per tenant, once its table is known to exist. */
  readonly tenants: Map<string, TenantFts>;
}

/** The FTS5 upkeep of one aggregate (nothing to do when it has no fulltext index). */
export class FulltextWriter {
  readonly #db: DatabaseSync;
  readonly #schema: Schema;
  readonly #aggregate: string;
  readonly #indexes: FtsIndex[];

  constructor(db: DatabaseSync, schema: Schema, aggregate: string) {
    this.#db = db;
    this.#schema = schema;
    this.#aggregate = aggregate;
    this.#indexes = indexesOf(schema, aggregate)
      .filter((ix) => ix.kind === "fulltext")
      .map((index) => ({
        index,
        newId: db.prepare(`INSERT INTO ${quote(ftsIds(schema, aggregate, index.name))} (tenant, subject) VALUES (?, ?) ON CONFLICT (tenant, subject) DO NOTHING`),
        id: db.prepare(`SELECT id FROM ${quote(ftsIds(schema, aggregate, index.name))} WHERE tenant = ? AND subject = ?`),
        tenants: new Map(),
      }));
  }

  /** Whether the aggregate has anything to keep. */
  get empty(): boolean {
    return this.#indexes.length === 0;
  }

  /** The tenant's FTS5 table of `ix`, created (with its rows moved from a shared table) if need be. */
  #tenant(ix: FtsIndex, tenant: string): TenantFts {
    let t = ix.tenants.get(tenant);
    if (t !== undefined) return t;
    const db = this.#db;
    const name = ftsTable(this.#schema, this.#aggregate, ix.index.name, tenant);
    if (!tableExists(db, name)) {
      db.exec(ftsTableDdl(this.#schema, this.#aggregate, ix.index, tenant));
      moveFromShared(db, this.#schema, this.#aggregate, ix.index, tenant);
    }
    const cols = ix.index.fields.map((f) => quote(columnName(f)));
    t = {
      remove: db.prepare(`DELETE FROM ${quote(name)} WHERE rowid = ?`),
      insert: db.prepare(`INSERT INTO ${quote(name)} (rowid, ${cols.join(", ")}) VALUES (?, ${cols.map(() => "?").join(", ")})`),
    };
    ix.tenants.set(tenant, t);
    return t;
  }

  /**
   * Replaces the subject's indexed text by `state`'s. With `before` (the state this aggregate's
   * table held, whose text was indexed when it was written), an index whose fields kept their text
   * is left as it is: most commands change a record's status, not its words.
   */
  write(tenant: string, subject: string, state: Record<string, unknown>, before: Record<string, unknown> | null = null): void {
    for (const ix of this.#indexes) {
      if (before !== null && ix.index.fields.every((f) => String(before[f] ?? "") === String(state[f] ?? ""))) continue;
      // A new subject's rowid is new too: it has no FTS5 row to remove (most writes of a growing
      // collection; removing by rowid still costs FTS5 a lookup).
      const added = ix.newId.run(tenant, subject);
      const fresh = added.changes === 1;
      const id = fresh ? added.lastInsertRowid : (ix.id.get(tenant, subject) as { id: number | bigint }).id;
      const text = ix.index.fields.map((f) => String(state[f] ?? ""));
      const replace = (t: TenantFts) => {
        if (!fresh) t.remove.run(id);
        t.insert.run(id, ...text);
      };
      try {
        replace(this.#tenant(ix, tenant));
      } catch (error) {
        // A transaction that created the table was rolled back since: create it again.
        if (!/no such table/.test((error as Error).message)) throw error;
        ix.tenants.delete(tenant);
        replace(this.#tenant(ix, tenant));
      }
    }
  }
}

/** Moves the tenant's rows of a store's shared FTS5 table (written before per-tenant tables) into its own. */
function moveFromShared(db: DatabaseSync, schema: Schema, aggregate: string, ix: SchemaIndex, tenant: string): void {
  const shared = sharedFtsTable(schema, aggregate, ix.name);
  if (!tableExists(db, shared)) return;
  const cols = ix.fields.map((f) => quote(columnName(f))).join(", ");
  const rows = `SELECT id FROM ${quote(ftsIds(schema, aggregate, ix.name))} WHERE tenant = ?`;
  db.prepare(`INSERT INTO ${quote(ftsTable(schema, aggregate, ix.name, tenant))} (rowid, ${cols}) SELECT rowid, ${cols} FROM ${quote(shared)} WHERE rowid IN (${rows})`).run(tenant);
  db.prepare(`DELETE FROM ${quote(shared)} WHERE rowid IN (${rows})`).run(tenant);
}

/** Removes every FTS5 row of `tenant` from `schema`'s `aggregate` (its records moved elsewhere). */
export function dropTenantFulltext(db: DatabaseSync, schema: Schema, aggregate: string, tenant: string): void {
  for (const ix of indexesOf(schema, aggregate)) {
    if (ix.kind !== "fulltext") continue;
    const ids = quote(ftsIds(schema, aggregate, ix.name));
    // The table stays (empty): a reader may hold a statement naming it.
    const own = ftsTable(schema, aggregate, ix.name, tenant);
    if (tableExists(db, own)) db.exec(`DELETE FROM ${quote(own)}`);
    const shared = sharedFtsTable(schema, aggregate, ix.name);
    if (tableExists(db, shared)) db.prepare(`DELETE FROM ${quote(shared)} WHERE rowid IN (SELECT id FROM ${ids} WHERE tenant = ?)`).run(tenant);
    db.prepare(`DELETE FROM ${ids} WHERE tenant = ?`).run(tenant);
  }
}

/**
 * Moves every tenant's rows out of the shared FTS5 tables a store written before per-tenant tables
 * has, into the tenants' own tables, and drops the shared tables; answers how many it moved. Run
 * it where nothing reads the store yet (at start, after the migrations), in one transaction.
 * Without it, a tenant's rows move on its next write of that aggregate (FulltextWriter), and the
 * readers search the shared table until then.
 */
export function moveSharedFulltext(db: DatabaseSync): number {
  const shared = (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'st\\_%' ESCAPE '\\' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'").all() as { name: string; sql: string }[])
    .map((r) => r.name)
    .filter((name) => /__fts_.+$/.test(name) && !name.includes("__t_") && tableExists(db, `${name}__ids`));
  for (const name of shared) {
    const columns = (db.prepare("SELECT name FROM pragma_table_info(?)").all(name) as { name: string }[]).map((c) => quote(c.name)).join(", ");
    const ids = quote(`${name}__ids`);
    for (const { tenant } of db.prepare(`SELECT DISTINCT tenant FROM ${ids}`).all() as { tenant: string }[]) {
      const own = quote(tenantFtsTable(name, tenant));
      db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${own} USING fts5(${columns}, tokenize = 'unicode61 remove_diacritics 2')`);
      db.prepare(`INSERT INTO ${own} (rowid, ${columns}) SELECT rowid, ${columns} FROM ${quote(name)} WHERE rowid IN (SELECT id FROM ${ids} WHERE tenant = ?)`).run(tenant);
    }
    db.exec(`DROP TABLE ${quote(name)}`);
  }
  return shared.length;
}
