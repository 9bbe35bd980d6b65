/**
 * @module The query planner: compiles a query's checked plan (schema.queries[Q]: source and typed
 * stages) into ONE parameterized SQL statement for the tenant. Every stage runs in SQLite — the
 * stage compilers are dispatched from one exhaustive table, so a new stage kind breaks the build
 * until it is planned: where/sort/take/drop here, select/let/explode/summarize in
 * reshape-stages.ts, search/nearest in rank-stages.ts, traverse/shortest in graph-stages.ts;
 * `latest` is the state tables themselves and `asof` swaps the sources for history
 * (query-sources.ts). Values never enter the SQL text: literals and `$params` are placeholders.
 *
 * Stages fold into one SELECT while their meaning allows it (a `where` or `sort` after `take`/`drop`
 * does not: it applies to the rows left after paging), otherwise the SELECT so far becomes a
 * subquery and the next stage reads its rows, in their order (query-level.ts).
 *
 * Order: a source's rows start in subject order; `sort` is stable, so its keys go in front of the
 * order so far, and the subject is always the final tiebreak.
 */
import type { SQLInputValue } from "node:sqlite";
import type { Column, CountExpr, QuerySource, Stage } from "../ast.ts";
import type { Schema } from "../schema.ts";
import { compileSearch, compileNearest } from "./rank-stages.ts";
import { compileShortest, compileTraverse } from "./graph-stages.ts";
import type { FulltextTables, PlanContext, StageCompiler } from "./plan-context.ts";
import { closed, dedupe, selectSql, subquery } from "./query-level.ts";
import type { ParamDecl } from "./query-params.ts";
import { type DerivedIndexes, ownIndexes, type SourceResolver, type SourceTable, sourceLevel } from "./query-sources.ts";
import { compileExplode, compileLet, compileSelect, compileSummarize } from "./reshape-stages.ts";
import { exprSql, type ExprScope, UnsupportedQuery } from "./sql-expr.ts";

export type { SourceResolver, SourceTable } from "./query-sources.ts";

/** A query as the schema holds it (the checker's plan, without source positions). */
export interface QueryPlan {
  readonly params: readonly ParamDecl[];
  readonly returns: string;
  readonly exposure: "public" | "authenticated" | "internal";
  readonly source: QuerySource;
  readonly stages: readonly Stage[];
  readonly columns: readonly (readonly Column[])[] | null;
}

/** The statement of one query. Bind `literals`, `:tenant` and each of `params` (as `p_<name>`). */
export interface CompiledQuery {
  readonly sql: string;
  readonly literals: Readonly<Record<string, SQLInputValue>>;
  /** The parameters the statement reads. */
  readonly params: readonly string[];
  /** Parameters used as take/drop/depth counts (must not be negative). */
  readonly counts: ReadonlySet<string>;
  /** The result's columns, in order, with the types their values convert from. */
  readonly columns: readonly Column[];
  /** The artifacts whose tables it reads (the query's own and its other sources'). */
  readonly artifacts: readonly string[];
}

/** The plan of query `name` in `schema`, or undefined. */
export function queryPlan(schema: Schema, name: string): QueryPlan | undefined {
  return Object.hasOwn(schema.queries, name) ? (schema.queries[name] as QueryPlan) : undefined;
}

/** The source names a plan reads (one, or each of a union's). */
export function sourceNames(plan: QueryPlan): string[] {
  return plan.source.kind === "Union" ? plan.source.sources.map((s) => s.name.name) : [plan.source.name.name];
}

/** Every stage kind's compiler: exhaustive, so a new stage kind does not build until planned. */
const compilers: { readonly [K in Stage["kind"]]: StageCompiler<K> } = {
  Where(ctx, stage) {
    if (closed(ctx.level)) ctx.wrap();
    ctx.level.where.push(exprSql(ctx.scope(), stage.expr));
  },
  Sort(ctx, stage) {
    if (closed(ctx.level)) ctx.wrap();
    const keys = stage.keys.map((k) => {
      const ref = ctx.level.columns.get(k.field.name);
      if (ref === undefined) throw new Error(`the checker let through an unknown column '${k.field.name}'`);
      return { sql: ref.sql, desc: k.direction === "desc" };
    });
    ctx.level.order = dedupe([...keys, ...ctx.level.order]);
  },
  Take(ctx, stage) {
    if (ctx.level.limit !== null || ctx.level.groupBy !== null) ctx.wrap();
    ctx.level.limit = ctx.count(stage.count);
  },
  Drop(ctx, stage) {
    if (closed(ctx.level)) ctx.wrap();
    ctx.level.offset = ctx.count(stage.count);
  },
  Select: compileSelect,
  Let: compileLet,
  Explode: compileExplode,
  Summarize: compileSummarize,
  Search: compileSearch,
  Nearest: compileNearest,
  // The state tables hold the newest version of each subject: the default view.
  Latest() {},
  // Chosen before the first stage: the whole query reads its sources as of that time.
  Asof() {},
  Traverse: compileTraverse,
  Shortest: compileShortest,
};

function compileStage<K extends Stage["kind"]>(ctx: PlanContext, stage: Extract<Stage, { kind: K }>): void {
  (compilers[stage.kind] as StageCompiler<K>)(ctx, stage);
}

/**
 * Compiles query `plan` of `schema` (installed as `artifact`); `resolve` answers its dotted sources
 * for the tenant. Throws UnsupportedQuery for what cannot be served (an uninstalled source).
 * `nearestCandidates`: the variant whose `nearest` reads candidates ranked in memory (run-query.ts).
 * `fulltext`: the tenant's FTS5 tables, for `search` (without it a search is not served).
 * `versions`: every stored artifact of a namespace, for `asof` (query-sources.ts rowsOf).
 * `otherIndexes`: which indexes derived for other contracts' queries a source's table has (without
 * it, only those its own contract's queries need are named).
 */
export function compileQuery(
  schema: Schema,
  plan: QueryPlan,
  options: {
    artifact?: string;
    resolve?: SourceResolver;
    nearestCandidates?: boolean;
    fulltext?: FulltextTables;
    versions?: (namespace: string) => ReadonlyMap<string, Schema>;
    otherIndexes?: DerivedIndexes;
  } = {},
): CompiledQuery {
  const literals: Record<string, SQLInputValue> = {};
  const params = new Set<string>();
  const counts = new Set<string>();
  const asofStage = plan.stages.find((s) => s.kind === "Asof");
  const versioned = (t: SourceTable): SourceTable => (asofStage !== undefined && options.versions !== undefined ? { ...t, versions: options.versions(t.schema.namespace) } : t);
  const sources: SourceTable[] = sourceNames(plan).map((name) => {
    if (Object.hasOwn(schema.aggregates, name)) return versioned({ artifact: options.artifact ?? "", schema, aggregate: name });
    const found = options.resolve?.(name) ?? null;
    if (found === null) throw new UnsupportedQuery(`the source ${name}, which is not installed for this tenant`);
    return versioned(found);
  });
  let aliases = 0;
  const scopeOf = (ctx: PlanContext): ExprScope => ({
    columns: ctx.level.columns,
    literal(value) {
      const name = `v${Object.keys(literals).length}`;
      literals[name] = value;
      return `:${name}`;
    },
    param(name) {
      params.add(name);
      return `:p_${name}`;
    },
  });
  const literalOnly = (value: SQLInputValue) => {
    const name = `v${Object.keys(literals).length}`;
    literals[name] = value;
    return `:${name}`;
  };
  let asof: string | null = null;
  if (asofStage !== undefined) {
    const time = exprSql({ columns: new Map(), literal: literalOnly, param: (n) => (params.add(n), `:p_${n}`) }, asofStage.time);
    asof = asofStage.time.type?.kind === "Date" ? `(unixepoch(${time}) * 1000)` : time;
  }
  const ctx: PlanContext = {
    level: sourceLevel({ literal: literalOnly }, sources, asof, plan.stages, (t, key) => ownIndexes(t, key) || (t.schema !== schema && (options.otherIndexes?.(t, key) ?? false))),
    sources,
    asof,
    nearestCandidates: options.nearestCandidates ?? false,
    fulltext:
      options.fulltext ??
      (() => {
        throw new UnsupportedQuery("search, planned without the tenant's full-text tables");
      }),
    scope: () => scopeOf(ctx),
    // Counts are bound like every value, behind a unary `+`: SQLite (3.46 and later) plans with the
    // value bound to a bare LIMIT placeholder, and so prepares the statement again each time it is
    // bound; `+:v` is the same integer without that (about as long again as a paged query itself).
    count(c: CountExpr) {
      if (c.kind === "IntLit") return `+${literalOnly(BigInt(c.value))}`;
      counts.add(c.name.name);
      params.add(c.name.name);
      return `+:p_${c.name.name}`;
    },
    wrap() {
      ctx.level = subquery(ctx.level, `q${++aliases}`);
    },
    alias: (prefix) => `${prefix}${++aliases}`,
  };
  for (const stage of plan.stages) compileStage(ctx, stage);
  const columns = [...ctx.level.columns].filter(([name]) => !name.startsWith("#")).map(([name, ref]) => ({ name, type: ref.type }));
  const out = { ...ctx.level, columns: new Map([...ctx.level.columns].filter(([name]) => !name.startsWith("#"))) };
  const sql = selectSql(out, false);
  // A value only a dropped column read (a `let` a later `select` left out) is not in the statement,
  // and SQLite refuses to bind a name the statement does not have.
  const used = new Set(sql.match(/:[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
  const usedLiterals = Object.fromEntries(Object.entries(literals).filter(([name]) => used.has(`:${name}`)));
  const usedParams = [...params].filter((name) => used.has(`:p_${name}`));
  return { sql, literals: usedLiterals, params: usedParams, counts, columns, artifacts: [...new Set(sources.map((s) => s.artifact))] };
}

/** The named values to run `compiled` with, for `tenant` and the checked parameter values. */
export function bindings(compiled: CompiledQuery, tenant: string, values: ReadonlyMap<string, SQLInputValue>): Record<string, SQLInputValue> {
  const out: Record<string, SQLInputValue> = { ...compiled.literals, tenant };
  for (const name of compiled.params) {
    const value = values.get(name);
    if (value === undefined) throw new Error(`parameter ${name} was not checked`);
    out[`p_${name}`] = value;
  }
  return out;
}
