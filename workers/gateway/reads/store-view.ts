/**
 * @module The gateway's read-only view of the store (design §2: other workers read through their
 * own read-only SQLite connections; the engine stays the only writer). The file is opened lazily,
 * on the first read, so a gateway that starts before the engine has created it still starts.
 *
 * Which artifact is active for a (tenant, namespace) is cached until the store changes: every read
 * transaction asks `PRAGMA data_version` (a counter in the connection, no I/O) and forgets the
 * cached installs when another connection has committed since. Under write load that is often, so
 * what is kept across commits is the expensive part: the parsed schema of each artifact id, which
 * never changes once stored (an artifact's id is the hash of its schema and code).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Schema } from "../../../contracts/schema.ts";
import { HttpProblem, problem } from "../../../shared/problem.ts";
import { openDatabase } from "../../../shared/store/open.ts";
import { registerReadFunctions } from "./read-functions.ts";

/** The active artifact of a tenant's namespace, as the readers need it. */
export interface ActiveSchema {
  readonly artifact: string;
  readonly schema: Schema;
}

/** Parsed schemas kept at most; a gateway serving more artifacts than this re-parses. */
const MAX_SCHEMAS = 256;
/** Prepared statements kept at most (compiled queries, record and history reads). */
const MAX_STATEMENTS = 512;

/** The read connection's page cache, in KiB. */
const READ_CACHE_KIB = 16 * 1024;

export class StoreView {
  readonly #path: string;
  #db: DatabaseSync | null = null;
  #activeStmt: StatementSync | null = null;
  #schemaStmt: StatementSync | null = null;
  #versionStmt: StatementSync | null = null;
  #snapshotStmt: StatementSync | null = null;
  #dataVersion = -1;
  readonly #active = new Map<string, string | null>();
  readonly #schemas = new Map<string, Schema>();
  readonly #statements = new Map<string, StatementSync>();

  constructor(path: string) {
    this.#path = path;
  }

  /** The connection, opened on first use; a store that cannot be opened yet is a 503. */
  db(): DatabaseSync {
    if (this.#db !== null) return this.#db;
    let db: DatabaseSync | null = null;
    try {
      db = openDatabase(this.#path, { readOnly: true });
      // Reads walk the indexes and records of a tenant's data: SQLite's default 2 MB of page cache
      // is smaller than a person's tasks; pages are cached only as they are read.
      db.exec(`PRAGMA cache_size = -${READ_CACHE_KIB}`);
      // Preparing fails too while the engine has not yet migrated a new store.
      this.#activeStmt = db.prepare("SELECT artifact FROM installs WHERE tenant = ? AND namespace = ? AND status = 'active'");
      this.#schemaStmt = db.prepare("SELECT schema FROM artifacts WHERE id = ?");
      this.#snapshotStmt = db.prepare("SELECT 1 FROM installs LIMIT 1");
      this.#versionStmt = db.prepare("PRAGMA data_version");
    } catch (error) {
      db?.close();
      throw new HttpProblem(problem(503, "store-unavailable", `the store cannot be read yet (${(error as Error).message}); try again`));
    }
    registerReadFunctions(db);
    this.#db = db;
    return db;
  }

  /**
   * Runs `fn` in one read transaction: everything it reads (the active artifact included) comes
   * from one consistent snapshot of the store, whatever the engine commits meanwhile.
   */
  read<T>(fn: (db: DatabaseSync) => T): T {
    const db = this.db();
    db.exec("BEGIN");
    try {
      // BEGIN is deferred: the first read fixes the snapshot, and only then does data_version say
      // whether that snapshot holds commits the cached installs have not seen.
      this.#snapshotStmt?.get();
      const { data_version: version } = this.#versionStmt?.get() as { data_version: number };
      if (version !== this.#dataVersion) {
        this.#active.clear();
        this.#dataVersion = version;
      }
      return fn(db);
    } finally {
      db.exec("COMMIT");
    }
  }

  /** The active artifact of `namespace` for `tenant`, or null; call inside `read`. */
  active(tenant: string, namespace: string): ActiveSchema | null {
    const key = `${tenant}\u0000${namespace}`;
    let id = this.#active.get(key);
    if (id === undefined) {
      const row = this.#activeStmt?.get(tenant, namespace) as { artifact: string } | undefined;
      id = row?.artifact ?? null;
      this.#active.set(key, id);
    }
    return id === null ? null : { artifact: id, schema: this.#schema(id) };
  }

  /** The most recently retired artifact of `namespace` for `tenant` (owners may still read it), or null. */
  retired(tenant: string, namespace: string): ActiveSchema | null {
    const row = this.db().prepare("SELECT artifact FROM installs WHERE tenant = ? AND namespace = ? AND status = 'retired' ORDER BY installed_at DESC LIMIT 1").get(tenant, namespace) as
      | { artifact: string }
      | undefined;
    return row === undefined ? null : { artifact: row.artifact, schema: this.#schema(row.artifact) };
  }

  #schema(id: string): Schema {
    let schema = this.#schemas.get(id);
    if (schema === undefined) {
      const row = this.#schemaStmt?.get(id) as { schema: string } | undefined;
      if (row === undefined) throw new Error(`installs names artifact ${id}, which is not stored`);
      schema = JSON.parse(row.schema) as Schema;
      if (this.#schemas.size >= MAX_SCHEMAS) this.#schemas.clear();
      this.#schemas.set(id, schema);
    }
    return schema;
  }

  /** A prepared statement on this connection, compiled once (integers read as bigints). */
  prepare(sql: string): StatementSync {
    let s = this.#statements.get(sql);
    if (s === undefined) {
      if (this.#statements.size >= MAX_STATEMENTS) this.#statements.clear();
      s = this.db().prepare(sql);
      s.setReadBigInts(true);
      this.#statements.set(sql, s);
    }
    return s;
  }

  /** Closes the connection (a later read opens it again). */
  close(): void {
    this.#statements.clear();
    this.#db?.close();
    this.#db = null;
    this.#active.clear();
  }
}
