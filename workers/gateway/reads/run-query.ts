/**
 * @module Running a declared query outside any transport: `runQuery(db, schema, name, tenant,
 * params)` checks the parameters against their declared types, plans the query (query-sql.ts,
 * cached per artifact, query and the artifacts of its other sources), and runs the one statement
 * in one read transaction, so the rows come from one consistent snapshot. Used by the `/v1` query
 * route and by the other API surfaces (GraphQL, gRPC). Mistakes the caller made come back as values.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Schema } from "../../../contracts/schema.ts";
import { fromColumn } from "../../../shared/store/columns.ts";
import { QueryArithmeticError } from "./int-functions.ts";
import { checkParams, type ParamProblem } from "./query-params.ts";
import { bindings, type CompiledQuery, compileQuery, queryPlan, type QueryPlan, sourceNames } from "./query-sql.ts";
import { sourceAggregate, splitSource } from "../../../shared/store/collections.ts";
import type { SourceTable } from "./query-sources.ts";
import { NEAREST_FUNCTION, registerReadFunctions } from "./read-functions.ts";
import { UnsupportedQuery } from "./sql-expr.ts";
import { VectorCache, vectorCacheLimitMb } from "./vector-cache.ts";
import { floats, type Metric } from "./vector-distance.ts";
import type { SQLInputValue } from "node:sqlite";
import type { CountExpr, Stage } from "../../../contracts/ast.ts";
import { tableName } from "../../../shared/store/columns.ts";
import { indexesOf } from "../../../shared/store/read-indexes.ts";

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
}

/**
 * The in-memory path of `plan`, or null: a single source of the query's own contract, no `asof`,
 * `nearest` the first stage (after `latest`) with its vector a parameter. Every later stage runs in
 * SQL as usual, on the K candidates.
 */
function nearestPath(schema: Schema, plan: QueryPlan): NearestPath | null {
  if (plan.source.kind !== "Collection") return null;
  const aggregate = plan.source.name.name;
  if (!Object.hasOwn(schema.aggregates, aggregate)) return null;
  if (plan.stages.some((s) => s.kind === "Asof")) return null;
  const stage = plan.stages.find((s) => s.kind !== "Latest");
  if (stage === undefined || stage.kind !== "Nearest") return null;
  const near = stage as Extract<Stage, { kind: "Nearest" }>;
  const to = near.to.kind === "QueryParam" ? near.to.name.name : near.to.kind === "Name" && near.to.resolved?.kind === "param" ? near.to.resolved.name : null;
  if (to === null) return null;
  const field = schema.aggregates[aggregate]?.fields.find((f) => f.name === near.field.name);
  if (field === undefined || field.type.kind !== "Vector") return null;
  const ix = indexesOf(schema, aggregate).find((x) => x.kind === "vector" && x.fields.includes(near.field.name));
  if (ix === undefined) return null;
  return { table: tableName(schema, aggregate), field: field.name, dim: field.type.dim, metric: ix.metric ?? "cosine", to, k: near.k, slot: `${schema.namespace}\u0000${aggregate}\u0000${field.name}` };
}

export type QueryOutcome =
  | { readonly ok: true; readonly rows: Record<string, unknown>[] }
  /** `not-found`: no such query; `bad-parameters`: `errors` says which; `unsupported`: cannot be planned; `failed`: arithmetic on the stored data. */
  | { readonly ok: false; readonly code: "not-found" | "bad-parameters" | "unsupported" | "failed"; readonly message: string; readonly errors?: readonly ParamProblem[]; readonly reason?: string };

const MAX_COMPILED = 512;
const MAX_STATEMENTS = 512;

/** Plans and statements of one connection. */
export class QueryRunner {
  readonly #db: DatabaseSync;
  readonly #compiled = new Map<string, CompiledQuery | UnsupportedQuery>();
  readonly #statements = new Map<string, StatementSync>();
  readonly #schemas = new Map<string, Schema>();
  readonly #paths = new WeakMap<QueryPlan, NearestPath | null>();
  /** Vector caches by table and field. */
  readonly #vectors = new Map<string, VectorCache>();
  /** Per tenant and (namespace, aggregate, field): the cache key it last read, to drop what it left. */
  readonly #reading = new Map<string, string>();
  /** The candidates of the statement being run: subject → distance. */
  #candidates = new Map<string, number>();

  constructor(db: DatabaseSync) {
    this.#db = db;
    registerReadFunctions(db);
    db.function(NEAREST_FUNCTION, { deterministic: false, directOnly: true }, (subject) => (typeof subject === "string" ? (this.#candidates.get(subject) ?? null) : null));
  }

  #nearestPath(schema: Schema, plan: QueryPlan): NearestPath | null {
    let path = this.#paths.get(plan);
    if (path === undefined) this.#paths.set(plan, (path = nearestPath(schema, plan)));
    return path;
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
  #rank(path: NearestPath, tenant: string, values: ReadonlyMap<string, SQLInputValue>): { subjects: string[]; distances: number[] } | null {
    const to = values.get(path.to);
    const k = path.k.kind === "IntLit" ? Number(path.k.value) : Number(values.get(path.k.name.name));
    if (!(to instanceof Uint8Array) || !Number.isSafeInteger(k) || k < 0) return null;
    return this.#vectorCache(path, tenant).nearest(tenant, path.metric, floats(to), k);
  }

  /** The active artifact of `namespace` for `tenant` and its schema, or null. */
  #active(tenant: string, namespace: string): { artifact: string; schema: Schema } | null {
    const row = this.#prepare("SELECT i.artifact AS artifact, a.schema AS schema FROM installs i JOIN artifacts a ON a.id = i.artifact WHERE i.tenant = ? AND i.namespace = ? AND i.status = 'active'", false).get(tenant, namespace) as
      | { artifact: string; schema: string }
      | undefined;
    if (row === undefined) return null;
    let schema = this.#schemas.get(row.artifact);
    if (schema === undefined) {
      schema = JSON.parse(row.schema) as Schema;
      if (this.#schemas.size >= 64) this.#schemas.clear();
      this.#schemas.set(row.artifact, schema);
    }
    return { artifact: row.artifact, schema };
  }

  /** A dotted source for the tenant: another contract's aggregate, or a standard-library collection. */
  resolve(tenant: string, name: string): SourceTable | null {
    const active = this.#active(tenant, splitSource(name).namespace);
    const aggregate = active === null ? null : sourceAggregate(active.schema, name);
    return active === null || aggregate === null ? null : { artifact: active.artifact, schema: active.schema, aggregate };
  }

  #prepare(sql: string, bigints: boolean): StatementSync {
    let s = this.#statements.get(sql);
    if (s === undefined) {
      if (this.#statements.size >= MAX_STATEMENTS) this.#statements.clear();
      s = this.#db.prepare(sql);
      s.setReadBigInts(bigints);
      this.#statements.set(sql, s);
    }
    return s;
  }

  #plan(schema: Schema, artifact: string, name: string, plan: QueryPlan, tenant: string, nearestCandidates = false): CompiledQuery | UnsupportedQuery {
    const others = sourceNames(plan).filter((s) => !Object.hasOwn(schema.aggregates, s));
    const resolved = new Map(others.map((s) => [s, this.resolve(tenant, s)]));
    const key = [artifact || schema.source.sha256, name, nearestCandidates ? "nn" : "", ...others.map((s) => resolved.get(s)?.artifact ?? "-")].join("\u0000");
    let compiled = this.#compiled.get(key);
    if (compiled === undefined) {
      try {
        compiled = compileQuery(schema, plan, { artifact, resolve: (s) => resolved.get(s) ?? null, nearestCandidates });
      } catch (error) {
        if (!(error instanceof UnsupportedQuery)) throw error;
        compiled = error;
      }
      if (this.#compiled.size >= MAX_COMPILED) this.#compiled.clear();
      this.#compiled.set(key, compiled);
    }
    return compiled;
  }

  /** Runs query `name` of `schema` (installed as `artifact`) for `tenant` with `params` (the body's `params`). */
  run(schema: Schema, name: string, tenant: string, params: unknown, artifact = ""): QueryOutcome {
    const plan = queryPlan(schema, name);
    if (plan === undefined) return { ok: false, code: "not-found", message: `${schema.namespace} has no query '${name}'` };
    // One statement is one snapshot; a query over other contracts also reads which artifact is
    // active for them first, so that and the statement share a read transaction.
    const path = vectorCacheLimitMb() > 0 ? this.#nearestPath(schema, plan) : null;
    const inside = this.#db.isTransaction || (path === null && sourceNames(plan).every((s) => Object.hasOwn(schema.aggregates, s)));
    if (!inside) this.#db.exec("BEGIN");
    try {
      const compiled = this.#plan(schema, artifact, name, plan, tenant);
      if (compiled instanceof UnsupportedQuery) return { ok: false, code: "unsupported", message: `${name}: ${compiled.message}` };
      const checked = checkParams(plan.params, params, compiled.counts);
      if (!checked.ok) return { ok: false, code: "bad-parameters", message: `the parameters do not match those of '${name}'`, errors: checked.errors };
      let rows: Record<string, unknown>[];
      try {
        // `nearest` ranked in memory when it can be (same rows and distances), then the statement on the K candidates.
        const ranked = path === null ? null : this.#rank(path, tenant, checked.values);
        const fast = ranked === null ? null : this.#plan(schema, artifact, name, plan, tenant, true);
        if (ranked !== null && fast !== null && !(fast instanceof UnsupportedQuery)) {
          this.#candidates = new Map(ranked.subjects.map((s, i) => [s, ranked.distances[i] as number]));
          try {
            rows = this.#prepare(fast.sql, true).all({ ...bindings(fast, tenant, checked.values), nn_subjects: JSON.stringify(ranked.subjects) }) as Record<string, unknown>[];
          } finally {
            this.#candidates = new Map();
          }
        } else rows = this.#prepare(compiled.sql, true).all(bindings(compiled, tenant, checked.values)) as Record<string, unknown>[];
      } catch (error) {
        if (error instanceof QueryArithmeticError) return { ok: false, code: "failed", reason: error.code, message: `${name} cannot be answered on the stored data: ${error.message}` };
        if (/integer overflow/.test((error as Error).message)) return { ok: false, code: "failed", reason: "overflow", message: `${name} cannot be answered on the stored data: integer overflow` };
        throw error;
      }
      const columns = compiled.columns;
      const out: Record<string, unknown>[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as Record<string, unknown>;
        const answer: Record<string, unknown> = {};
        for (const col of columns) answer[col.name] = fromColumn(col.type, row[col.name]);
        out[i] = answer;
      }
      return { ok: true, rows: out };
    } finally {
      if (!inside) this.#db.exec("COMMIT");
    }
  }
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
