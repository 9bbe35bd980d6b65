/**
 * @module Running a declared query outside any transport: `runQuery(db, schema, name, tenant,
 * params)` checks the parameters against their declared types, plans the query (query-sql.ts,
 * cached per artifact, query and the artifacts of its other sources), and runs the one statement
 * in one read transaction, so the rows come from one consistent snapshot. Used by the `/v1` query
 * route and by the other API surfaces (GraphQL, gRPC). Mistakes the caller made come back as values.
 *
 * The per-call path is kept short, since a paged query takes tens of microseconds in SQLite: a
 * query over its own contract's aggregates keeps its prepared statement with its plan (the same
 * for every tenant), binds numbered placeholders from an array, reads rows as arrays with integers
 * as numbers (again with bigints only when an Int does not fit ±2^53) and converts only the columns
 * whose values need it.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { CountExpr, Stage, Type } from "../../../contracts/ast.ts";
import type { Schema } from "../../../contracts/schema.ts";
import { sourceAggregate, splitSource } from "../../../shared/store/collections.ts";
import { fromColumn, tableName } from "../../../contracts/storage/columns.ts";
import { ftsTable, indexesOf, queryIndexKey, queryIndexName, sharedFtsTable } from "../../../contracts/storage/read-indexes.ts";
import { QueryArithmeticError } from "./int-functions.ts";
import { HttpProblem, problem } from "../../../shared/problem.ts";
import type { FulltextTables } from "../../../contracts/query/plan-context.ts";
import { checkParams, type ParamProblem } from "../../../contracts/query/query-params.ts";
import { type CompiledQuery, compileQuery, queryPlan, type QueryPlan, sourceNames } from "../../../contracts/query/query-sql.ts";
import { publicFields, type SourceTable } from "../../../contracts/query/query-sources.ts";
import { NEAREST_FUNCTION } from "../../../contracts/query/sql-functions.ts";
import { registerReadFunctions } from "./read-functions.ts";
import { UnsupportedQuery } from "../../../contracts/query/sql-expr.ts";
import { VectorCache, vectorCacheLimitMb } from "./vector-cache.ts";
import { floats, type Metric } from "./vector-distance.ts";

/** A query whose `nearest` can rank in memory (queries.md "Nearest in memory"). */
interface NearestPath {
  readonly table: string;
  readonly field: string;
  readonly dim: number;
  readonly metric: Metric;
  /** The parameter holding the vector. */
  readonly to: string;
  readonly k: CountExpr;
  /** (namespace, aggregate, field): a tenant reads one version's table at a time. */
  readonly slot: string;
  /** The query up to `nearest` when `where` stages come first: the rows `nearest` may answer. */
  readonly filter: QueryPlan | null;
}

/**
 * The in-memory path of `plan`, or null: a single source of the query's own contract, no `asof`,
 * `nearest` the first stage after `latest` and `where` stages, with its vector a parameter. The
 * `where` stages run in SQL first (the subjects they keep), every later stage runs in SQL as usual,
 * on the K candidates.
 */
function nearestPath(schema: Schema, plan: QueryPlan): NearestPath | null {
  if (plan.source.kind !== "Collection") return null;
  const aggregate = plan.source.name.name;
  if (!Object.hasOwn(schema.aggregates, aggregate)) return null;
  if (plan.stages.some((s) => s.kind === "Asof")) return null;
  const at = plan.stages.findIndex((s) => s.kind !== "Latest" && s.kind !== "Where");
  const stage = plan.stages[at];
  if (stage === undefined || stage.kind !== "Nearest") return null;
  const before = plan.stages.slice(0, at);
  const filter = before.some((s) => s.kind === "Where") ? { ...plan, stages: before } : null;
  const near = stage as Extract<Stage, { kind: "Nearest" }>;
  const to = near.to.kind === "QueryParam" ? near.to.name.name : near.to.kind === "Name" && near.to.resolved?.kind === "param" ? near.to.resolved.name : null;
  if (to === null) return null;
  const field = schema.aggregates[aggregate]?.fields.find((f) => f.name === near.field.name);
  if (field === undefined || field.type.kind !== "Vector") return null;
  const ix = indexesOf(schema, aggregate).find((x) => x.kind === "vector" && x.fields.includes(near.field.name));
  if (ix === undefined) return null;
  return { table: tableName(schema, aggregate), field: field.name, dim: field.type.dim, metric: ix.metric ?? "cosine", to, k: near.k, slot: `${schema.namespace}\u0000${aggregate}\u0000${field.name}`, filter };
}

export type QueryOutcome =
  | { readonly ok: true; readonly rows: Record<string, unknown>[] }
  /** `not-found`: no such query; `bad-parameters`: `errors` says which; `unsupported`: cannot be planned; `failed`: arithmetic on the stored data. */
  | { readonly ok: false; readonly code: "not-found" | "bad-parameters" | "unsupported" | "failed"; readonly message: string; readonly errors?: readonly ParamProblem[]; readonly reason?: string };

const MAX_COMPILED = 512;
const MAX_STATEMENTS = 512;

/** A column's value as read with integers as numbers → its answer value; null: the value itself. */
type Convert = ((value: unknown) => unknown) | null;

function converter(type: Type): Convert {
  switch (type.kind) {
    case "Bool":
    case "List":
    case "Vector":
      return (value) => fromColumn(type, value);
    default:
      // Text, Date, Enum, Identity, Ref and Float as they are; an Int read as a number is within ±2^53.
      return null;
  }
}

/**
 * A compiled statement ready to run: read with integers as numbers and rows as arrays (the cheap
 * way), falling back to bigints only when a value does not fit a double's integers.
 */
class Ready {
  readonly compiled: CompiledQuery;
  readonly #numbers: StatementSync;
  readonly #db: DatabaseSync;
  #bigints: StatementSync | null = null;
  readonly #names: readonly string[];
  readonly #converts: readonly Convert[];
  readonly #sql: string;

  /** The statement's placeholders in the order of their numbers (`?1`, `?2`, …). */
  readonly #slots: readonly string[];

  constructor(db: DatabaseSync, compiled: CompiledQuery) {
    this.#db = db;
    this.compiled = compiled;
    // Numbered placeholders bind from an array, which costs less than looking up each name.
    const slots: string[] = [];
    this.#sql = compiled.sql.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
      let i = slots.indexOf(name);
      if (i < 0) i = slots.push(name) - 1;
      return `?${i + 1}`;
    });
    this.#slots = slots;
    this.#numbers = db.prepare(this.#sql);
    this.#numbers.setReturnArrays(true);
    this.#names = compiled.columns.map((c) => c.name);
    this.#converts = compiled.columns.map((c) => converter(c.type));
  }

  /** The values to bind, in placeholder order: the statement's literals, the tenant, the checked parameters and `extra`. */
  #args(tenant: string, values: ReadonlyMap<string, SQLInputValue>, extra?: Readonly<Record<string, SQLInputValue>>): SQLInputValue[] {
    const slots = this.#slots;
    const literals = this.compiled.literals;
    const args: SQLInputValue[] = new Array(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const name = slots[i] as string;
      let value: SQLInputValue | undefined;
      if (name === "tenant") value = tenant;
      else if (name.startsWith("p_")) value = values.get(name.slice(2));
      else value = Object.hasOwn(literals, name) ? literals[name] : extra?.[name];
      if (value === undefined) throw new Error(`no value for :${name}`);
      args[i] = value;
    }
    return args;
  }

  /** The answer rows for `tenant` and the checked parameter values (and `extra` named values). */
  rows(tenant: string, values: ReadonlyMap<string, SQLInputValue>, extra?: Readonly<Record<string, SQLInputValue>>): Record<string, unknown>[] {
    const args = this.#args(tenant, values, extra);
    let rows: unknown[][];
    try {
      rows = this.#numbers.all(...args) as unknown as unknown[][];
    } catch (error) {
      if ((error as { code?: string }).code !== "ERR_OUT_OF_RANGE") throw error;
      return this.#wide(args);
    }
    const names = this.#names;
    const converts = this.#converts;
    const n = names.length;
    const out: Record<string, unknown>[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as unknown[];
      const answer: Record<string, unknown> = {};
      for (let j = 0; j < n; j++) {
        const convert = converts[j];
        answer[names[j] as string] = convert === null || convert === undefined ? (row[j] ?? null) : convert(row[j]);
      }
      out[i] = answer;
    }
    return out;
  }

  /** The first column of every row (a statement of one column whose values need no conversion). */
  column(tenant: string, values: ReadonlyMap<string, SQLInputValue>): unknown[] {
    return (this.#numbers.all(...this.#args(tenant, values)) as unknown as unknown[][]).map((row) => row[0]);
  }

  /** The rows read with 64-bit integers (an Int beyond ±2^53 is answered as a decimal string). */
  #wide(args: readonly SQLInputValue[]): Record<string, unknown>[] {
    if (this.#bigints === null) {
      this.#bigints = this.#db.prepare(this.#sql);
      this.#bigints.setReadBigInts(true);
      this.#bigints.setReturnArrays(true);
    }
    const columns = this.compiled.columns;
    return (this.#bigints.all(...args) as unknown as unknown[][]).map((row) => {
      const answer: Record<string, unknown> = {};
      columns.forEach((col, j) => (answer[col.name] = fromColumn(col.type, row[j])));
      return answer;
    });
  }
}

/** What a query of one artifact needs on every run, whatever the tenant and parameters. */
interface Entry {
  readonly plan: QueryPlan;
  /** Every source is an aggregate of the query's own contract, and neither `search` nor `asof`: the statement is the same for every tenant and every run. */
  readonly own: boolean;
  readonly path: NearestPath | null;
  /** For `own` queries: the statement, or why it cannot be served. */
  ready: Ready | UnsupportedQuery | null;
}

/** Plans and statements of one connection. */
export class QueryRunner {
  readonly #db: DatabaseSync;
  readonly #compiled = new Map<string, CompiledQuery | UnsupportedQuery>();
  readonly #statements = new Map<string, Ready>();
  readonly #schemas = new Map<string, Schema>();
  /** Per schema (held as long as its schema is), per artifact and query name. */
  readonly #entries = new WeakMap<Schema, Map<string, Entry>>();
  /** Vector caches by table and field. */
  readonly #vectors = new Map<string, VectorCache>();
  /** Per tenant and (namespace, aggregate, field): the cache key it last read, to drop what it left. */
  readonly #reading = new Map<string, string>();
  /** The runner's own statements (a fixed few), by SQL. */
  readonly #plain = new Map<string, StatementSync>();
  /** Per compiled query up to a `nearest`, the statement of the subjects it keeps. */
  readonly #subjectsOf = new WeakMap<CompiledQuery, CompiledQuery>();
  /** Tables and indexes seen to exist (per-tenant FTS5 tables appear as tenants write, derived indexes as contracts are installed). */
  readonly #tables = new Set<string>();
  /** The candidates of the statement being run: subject → distance. */
  #candidates = new Map<string, number>();

  constructor(db: DatabaseSync) {
    this.#db = db;
    registerReadFunctions(db);
    db.function(NEAREST_FUNCTION, { deterministic: false, directOnly: true }, (subject) => (typeof subject === "string" ? (this.#candidates.get(subject) ?? null) : null));
  }

  #entry(schema: Schema, name: string, artifact: string): Entry | undefined {
    let entries = this.#entries.get(schema);
    if (entries === undefined) this.#entries.set(schema, (entries = new Map()));
    const key = `${artifact}\u0000${name}`;
    let entry = entries.get(key);
    if (entry === undefined) {
      const plan = queryPlan(schema, name);
      if (plan === undefined) return undefined;
      // A search reads the tenant's own FTS5 tables and `asof` the versions stored: their
      // statements depend on the tenant and on the store, so they are planned per run (cached).
      const own = sourceNames(plan).every((s) => Object.hasOwn(schema.aggregates, s)) && !plan.stages.some((s) => s.kind === "Search" || s.kind === "Asof");
      entry = { plan, own, path: nearestPath(schema, plan), ready: null };
      entries.set(key, entry);
    }
    return entry;
  }

  /** The cache of the path's (table, field) for `tenant`, dropping the tenant from a table it left. */
  #vectorCache(path: NearestPath, tenant: string): VectorCache {
    const key = `${path.table}\u0000${path.field}`;
    const slot = `${tenant}\u0000${path.slot}`;
    const before = this.#reading.get(slot);
    if (before !== undefined && before !== key) {
      // An upgrade moved the tenant to another version's table (and removed its rows from this one).
      const old = this.#vectors.get(before);
      old?.drop(tenant);
      if (old?.empty === true) this.#vectors.delete(before);
    }
    this.#reading.set(slot, key);
    let cache = this.#vectors.get(key);
    if (cache === undefined) this.#vectors.set(key, (cache = new VectorCache(this.#db, path.table, path.field, path.dim)));
    return cache;
  }

  /** The ranked candidates of `path` for the tenant, or null (the SQL path answers). In the read transaction. */
  #rank(schema: Schema, artifact: string, name: string, path: NearestPath, tenant: string, values: ReadonlyMap<string, SQLInputValue>): { subjects: string[]; distances: number[] } | null {
    const to = values.get(path.to);
    const k = path.k.kind === "IntLit" ? Number(path.k.value) : Number(values.get(path.k.name.name));
    if (!(to instanceof Uint8Array) || !Number.isSafeInteger(k) || k < 0) return null;
    let only: (() => unknown[]) | undefined;
    if (path.filter !== null) {
      // The subjects the `where` stages keep, from their own statement (the same planner, the same snapshot).
      const compiled = this.#plan(schema, artifact, `${name}\u0000where`, path.filter, tenant);
      if (compiled instanceof UnsupportedQuery) return null;
      let subjects = this.#subjectsOf.get(compiled);
      if (subjects === undefined) {
        subjects = { ...compiled, sql: `SELECT "subject" FROM (${compiled.sql})`, columns: [{ name: "subject", type: { kind: "Text", len: 128 } }] };
        this.#subjectsOf.set(compiled, subjects);
      }
      const ready = this.#prepare(subjects);
      only = () => ready.column(tenant, values);
    }
    return this.#vectorCache(path, tenant).nearest(tenant, path.metric, floats(to), k, only);
  }

  /** The active artifact of `namespace` for `tenant` and its schema, or null. */
  #active(tenant: string, namespace: string): { artifact: string; schema: Schema } | null {
    const row = this.#ready("SELECT artifact FROM installs WHERE tenant = ? AND namespace = ? AND status = 'active'").get(tenant, namespace) as { artifact: string } | undefined;
    return row === undefined ? null : { artifact: row.artifact, schema: this.#schema(row.artifact) };
  }

  /** A dotted source for the tenant: another contract's aggregate, or a standard-library collection. */
  resolve(tenant: string, name: string): SourceTable | null {
    const active = this.#active(tenant, splitSource(name).namespace);
    const aggregate = active === null ? null : sourceAggregate(active.schema, name);
    return active === null || aggregate === null ? null : { artifact: active.artifact, schema: active.schema, aggregate };
  }

  /** A plain statement of the runner's own (its rows as objects, integers as numbers). */
  #ready(sql: string): StatementSync {
    let s = this.#plain.get(sql);
    if (s === undefined) this.#plain.set(sql, (s = this.#db.prepare(sql)));
    return s;
  }

  /** The statement of `compiled`, prepared once per connection. */
  #prepare(compiled: CompiledQuery): Ready {
    let s = this.#statements.get(compiled.sql);
    if (s === undefined || s.compiled !== compiled) {
      if (this.#statements.size >= MAX_STATEMENTS) this.#statements.clear();
      s = new Ready(this.#db, compiled);
      this.#statements.set(compiled.sql, s);
    }
    return s;
  }

  /** Every stored artifact of `namespace` (ids in order) with its schema. In the read transaction. */
  #versions(namespace: string): ReadonlyMap<string, Schema> {
    const out = new Map<string, Schema>();
    for (const { id } of this.#ready("SELECT id FROM artifacts WHERE namespace = ? ORDER BY id").all(namespace) as { id: string }[]) out.set(id, this.#schema(id));
    return out;
  }

  /** The schema of a stored artifact (parsed once). */
  #schema(id: string): Schema {
    let schema = this.#schemas.get(id);
    if (schema === undefined) {
      const row = this.#ready("SELECT schema FROM artifacts WHERE id = ?").get(id) as { schema: string } | undefined;
      if (row === undefined) throw new Error(`no artifact ${id}`);
      schema = JSON.parse(row.schema) as Schema;
      if (this.#schemas.size >= 64) this.#schemas.clear();
      this.#schemas.set(id, schema);
    }
    return schema;
  }

  /** Whether the store has the index `name` (known once seen: derived indexes are never dropped). */
  #indexExists(name: string): boolean {
    if (this.#tables.has(name)) return true;
    if (this.#ready("SELECT 1 FROM pragma_index_info(?)").get(name) === undefined) return false;
    this.#tables.add(name);
    return true;
  }

  /** Whether the store has the table `name` (known once seen: tables read here are never dropped). */
  #exists(name: string): boolean {
    if (this.#tables.has(name)) return true;
    if (this.#ready("SELECT 1 FROM pragma_table_list(?)").get(name) === undefined) return false;
    this.#tables.add(name);
    return true;
  }

  /** The FTS5 tables a search of `tenant` reads (plan-context.ts FulltextTables), as the store has them now. */
  #fulltext(tenant: string): FulltextTables {
    return (src, index) => {
      const own = ftsTable(src.schema, src.aggregate, index, tenant);
      if (this.#exists(own)) return { table: own, shared: false };
      const shared = sharedFtsTable(src.schema, src.aggregate, index);
      return this.#exists(shared) ? { table: shared, shared: true } : null;
    };
  }

  #plan(schema: Schema, artifact: string, name: string, plan: QueryPlan, tenant: string, nearestCandidates = false): CompiledQuery | UnsupportedQuery {
    const names = sourceNames(plan);
    const others = names.filter((s) => !Object.hasOwn(schema.aggregates, s));
    const resolved = new Map(others.map((s) => [s, this.resolve(tenant, s)]));
    const key = [artifact || schema.source.sha256, name, nearestCandidates ? "nn" : "", ...others.map((s) => resolved.get(s)?.artifact ?? "-")];
    // Another contract's table has the index this query needs once it is derived: whether it is, is part of the statement.
    const otherIndexes = (t: SourceTable, indexKey: string) => this.#indexExists(queryIndexName(t.schema, t.aggregate, indexKey));
    const other = plan.source.kind === "Collection" && others.length === 1 ? resolved.get(others[0] as string) : undefined;
    if (other !== undefined && other !== null && !plan.stages.some((s) => s.kind === "Asof")) {
      const indexKey = queryIndexKey(plan.stages, publicFields(other));
      key.push(indexKey !== null && otherIndexes(other, indexKey) ? indexKey : "-");
    }
    // `asof` reads entries of every version of a source's namespace: which are stored is part of the statement.
    const asof = plan.stages.some((s) => s.kind === "Asof");
    const versions = (namespace: string) => this.#versions(namespace);
    if (asof) for (const n of names) key.push([...versions(Object.hasOwn(schema.aggregates, n) ? schema.namespace : splitSource(n).namespace).keys()].join(","));
    // A search reads the tenant's own FTS5 tables: which exist is part of the statement.
    const fulltext = this.#fulltext(tenant);
    if (plan.stages.some((s) => s.kind === "Search")) {
      for (const n of names) {
        const src: SourceTable | null = Object.hasOwn(schema.aggregates, n) ? { artifact, schema, aggregate: n } : (resolved.get(n) ?? null);
        if (src === null) continue;
        for (const ix of indexesOf(src.schema, src.aggregate)) if (ix.kind === "fulltext") key.push(fulltext(src, ix.name)?.table ?? "-");
      }
    }
    const cacheKey = key.join("\u0000");
    let compiled = this.#compiled.get(cacheKey);
    if (compiled === undefined) {
      try {
        compiled = compileQuery(schema, plan, { artifact, resolve: (s) => resolved.get(s) ?? null, nearestCandidates, fulltext, versions, otherIndexes });
      } catch (error) {
        if (!(error instanceof UnsupportedQuery)) throw error;
        compiled = error;
      }
      if (this.#compiled.size >= MAX_COMPILED) this.#compiled.clear();
      this.#compiled.set(cacheKey, compiled);
    }
    return compiled;
  }

  /** The statement of an `own` query (the same for every tenant), compiled on first use. */
  #own(entry: Entry, schema: Schema, artifact: string, name: string, tenant: string): Ready | UnsupportedQuery {
    if (entry.ready === null) {
      const compiled = this.#plan(schema, artifact, name, entry.plan, tenant);
      entry.ready = compiled instanceof UnsupportedQuery ? compiled : new Ready(this.#db, compiled);
    }
    return entry.ready;
  }

  /** The statement query `name` of `schema` (installed as `artifact`) runs for `tenant` now (without `nearest`'s in-memory ranking): for tests and explanations. */
  compiled(schema: Schema, name: string, tenant: string, artifact = ""): CompiledQuery | UnsupportedQuery | undefined {
    const plan = queryPlan(schema, name);
    if (plan === undefined) return undefined;
    const inside = this.#db.isTransaction;
    if (!inside) this.#db.exec("BEGIN");
    try {
      return this.#plan(schema, artifact, name, plan, tenant);
    } finally {
      if (!inside) this.#db.exec("COMMIT");
    }
  }

  /** Runs query `name` of `schema` (installed as `artifact`) for `tenant` with `params` (the body's `params`). */
  run(schema: Schema, name: string, tenant: string, params: unknown, artifact = ""): QueryOutcome {
    const entry = this.#entry(schema, name, artifact);
    if (entry === undefined) return { ok: false, code: "not-found", message: `${schema.namespace} has no query '${name}'` };
    const plan = entry.plan;
    const path = entry.path !== null && vectorCacheLimitMb() > 0 ? entry.path : null;
    // A query over its own contract's aggregates is one statement: one snapshot by itself.
    if (path === null && entry.own) {
      const ready = this.#own(entry, schema, artifact, name, tenant);
      if (ready instanceof UnsupportedQuery) return { ok: false, code: "unsupported", message: `${name}: ${ready.message}` };
      const checked = checkParams(plan.params, params, ready.compiled.counts);
      if (!checked.ok) return { ok: false, code: "bad-parameters", message: `the parameters do not match those of '${name}'`, errors: checked.errors };
      try {
        return { ok: true, rows: ready.rows(tenant, checked.values) };
      } catch (error) {
        return failed(name, error);
      }
    }
    // Otherwise it also reads which artifact is active for its other sources, or the vector cache,
    // first: that and the statement share one read transaction.
    const inside = this.#db.isTransaction;
    if (!inside) this.#db.exec("BEGIN");
    try {
      const compiled = this.#plan(schema, artifact, name, plan, tenant);
      if (compiled instanceof UnsupportedQuery) return { ok: false, code: "unsupported", message: `${name}: ${compiled.message}` };
      const checked = checkParams(plan.params, params, compiled.counts);
      if (!checked.ok) return { ok: false, code: "bad-parameters", message: `the parameters do not match those of '${name}'`, errors: checked.errors };
      try {
        // `nearest` ranked in memory when it can be (same rows and distances), then the statement on the K candidates.
        const ranked = path === null ? null : this.#rank(schema, artifact, name, path, tenant, checked.values);
        const fast = ranked === null ? null : this.#plan(schema, artifact, name, plan, tenant, true);
        if (ranked !== null && fast !== null && !(fast instanceof UnsupportedQuery)) {
          this.#candidates = new Map(ranked.subjects.map((s, i) => [s, ranked.distances[i] as number]));
          try {
            return { ok: true, rows: this.#prepare(fast).rows(tenant, checked.values, { nn_subjects: JSON.stringify(ranked.subjects) }) };
          } finally {
            this.#candidates = new Map();
          }
        }
        return { ok: true, rows: this.#prepare(compiled).rows(tenant, checked.values) };
      } catch (error) {
        return failed(name, error);
      }
    } finally {
      if (!inside) this.#db.exec("COMMIT");
    }
  }
}

/** A query that failed on the stored data (Int arithmetic), as an outcome; anything else is rethrown. */
function failed(name: string, error: unknown): QueryOutcome {
  if (error instanceof QueryArithmeticError) return { ok: false, code: "failed", reason: error.code, message: `${name} cannot be answered on the stored data: ${error.message}` };
  if (/integer overflow/.test((error as Error).message)) return { ok: false, code: "failed", reason: "overflow", message: `${name} cannot be answered on the stored data: integer overflow` };
  throw error;
}

const runners = new WeakMap<DatabaseSync, QueryRunner>();

/** The runner of `db` (plans and statements cached per connection). */
export function queryRunner(db: DatabaseSync): QueryRunner {
  let r = runners.get(db);
  if (r === undefined) runners.set(db, (r = new QueryRunner(db)));
  return r;
}

/** Runs query `queryName` of `schema` for `tenant`: the rows, or why not (see QueryOutcome). */
export function runQuery(db: DatabaseSync, schema: Schema, queryName: string, tenant: string, params: unknown, artifact = ""): QueryOutcome {
  return queryRunner(db).run(schema, queryName, tenant, params, artifact);
}

/** A query that could not be answered as the HTTP problem every read route answers with: 404, 400 naming the parameters, 501, or 422 with its reason. */
export function queryProblem(outcome: Extract<QueryOutcome, { ok: false }>): HttpProblem {
  switch (outcome.code) {
    case "not-found":
      return new HttpProblem(problem(404, "not-found", outcome.message));
    case "bad-parameters":
      return new HttpProblem(problem(400, "bad-parameters", outcome.message, outcome.errors));
    case "unsupported":
      return new HttpProblem(problem(501, "query-not-supported", outcome.message));
    case "failed":
      return new HttpProblem({ ...problem(422, "query-failed", outcome.message), ...(outcome.reason === undefined ? {} : { reason: outcome.reason }) });
  }
}
