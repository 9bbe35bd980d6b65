/**
 * @module Compiles a query's checked plan (schema.queries[Q]: source and typed stages) into ONE
 * parameterized SQL statement over the source aggregate's state table, filtered by tenant.
 *
 * Shape: `SELECT <columns> FROM st_<ns>__<Agg> WHERE tenant = :tenant [AND <where>…]
 * ORDER BY <sort keys…>, subject LIMIT … OFFSET …`. Stages fold into one SELECT while their
 * meaning allows it (a `where` or `sort` after `take`/`drop` does not: it applies to the rows left
 * after paging), otherwise the SELECT so far becomes a subquery and the next stage reads its rows —
 * carrying its order along as hidden `"#oN"` columns, so the order is never lost.
 *
 * Order: a table's rows start in subject order; `sort` is stable, so its keys go in front of the
 * order so far, and the subject is always the final tiebreak. Columns: `subject` and `key` are the
 * subject, a field is its `f_<name>` column; `select` renames without a subquery.
 */
import type { SQLInputValue } from "node:sqlite";
import type { Column, CountExpr, QuerySource, Stage, Type } from "../../../contracts/ast.ts";
import type { Schema } from "../../../contracts/schema.ts";
import { columnName, quote, tableName } from "../../../shared/store/columns.ts";
import type { ParamDecl } from "./query-params.ts";
import { type ColumnRef, exprSql, type ExprScope, UnsupportedQuery } from "./sql-expr.ts";

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
  /** Parameters used as take/drop counts (must not be negative). */
  readonly counts: ReadonlySet<string>;
  /** The result's columns, in order, with the types their values convert from. */
  readonly columns: readonly Column[];
}

const SUBJECT_TYPE: Type = { kind: "Text", len: 128 };

interface OrderKey {
  readonly sql: string;
  readonly desc: boolean;
}

/** One SELECT being built. */
interface Level {
  readonly from: string;
  readonly where: string[];
  order: OrderKey[];
  limit: string | null;
  offset: string | null;
  columns: Map<string, ColumnRef>;
}

/** The plan of query `name` in `schema`, or undefined. */
export function queryPlan(schema: Schema, name: string): QueryPlan | undefined {
  return Object.hasOwn(schema.queries, name) ? (schema.queries[name] as QueryPlan) : undefined;
}

/** Compiles query `plan` of `schema`; throws UnsupportedQuery for what is not served yet. */
export function compileQuery(schema: Schema, plan: QueryPlan): CompiledQuery {
  const literals: Record<string, SQLInputValue> = {};
  const params = new Set<string>();
  const counts = new Set<string>();
  let level = baseLevel(schema, plan.source);
  let subqueries = 0;
  const scope = (): ExprScope => ({
    columns: level.columns,
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
  const count = (c: CountExpr): string => (c.kind === "IntLit" ? scope().literal(BigInt(c.value)) : (counts.add(c.name.name), scope().param(c.name.name)));
  const paged = () => level.limit !== null || level.offset !== null;
  const wrap = () => (level = subquery(level, `q${++subqueries}`));

  for (const stage of plan.stages) {
    switch (stage.kind) {
      case "Where":
        if (paged()) wrap();
        level.where.push(exprSql(scope(), stage.expr));
        break;
      case "Sort": {
        if (paged()) wrap();
        const keys = stage.keys.map((k) => ({ sql: columnSql(level, k.field.name), desc: k.direction === "desc" }));
        level.order = dedupe([...keys, ...level.order]);
        break;
      }
      case "Take":
        if (level.limit !== null) wrap();
        level.limit = count(stage.count);
        break;
      case "Drop":
        if (paged()) wrap();
        level.offset = count(stage.count);
        break;
      case "Select": {
        const s = scope();
        const next = new Map<string, ColumnRef>();
        for (const item of stage.items) {
          const name = item.alias?.name ?? (item.expr.kind === "Name" ? item.expr.name : null);
          if (name === null || item.expr.type === undefined) throw new Error("the checker let through an unnamed or untyped select item");
          next.set(name, { sql: exprSql(s, item.expr), type: item.expr.type });
        }
        level.columns = next;
        break;
      }
      default:
        throw new UnsupportedQuery(`the '${stage.kind.toLowerCase()}' stage`);
    }
  }
  const columns = [...level.columns].map(([name, ref]) => ({ name, type: ref.type }));
  return { sql: selectSql(level, false), literals, params: [...params], counts, columns };
}

function baseLevel(schema: Schema, source: QuerySource): Level {
  if (source.kind !== "Collection") throw new UnsupportedQuery("a union(…) source");
  const name = source.name.name;
  const aggregate = Object.hasOwn(schema.aggregates, name) ? schema.aggregates[name] : undefined;
  if (aggregate === undefined) throw new UnsupportedQuery(`the source ${name} (another contract's or the standard library's collection)`);
  const columns = new Map<string, ColumnRef>([
    ["subject", { sql: "subject", type: SUBJECT_TYPE }],
    ["key", { sql: "subject", type: SUBJECT_TYPE }],
  ]);
  for (const f of aggregate.fields) if (f.visibility === "public") columns.set(f.name, { sql: quote(columnName(f.name)), type: f.type });
  return { from: quote(tableName(schema, name)), where: ["tenant = :tenant"], order: [{ sql: "subject", desc: false }], limit: null, offset: null, columns };
}

function columnSql(level: Level, name: string): string {
  const ref = level.columns.get(name);
  if (ref === undefined) throw new Error(`the checker let through an unknown column '${name}'`);
  return ref.sql;
}

/** Keeps the first of equal keys: a later one can never decide anything. */
function dedupe(keys: OrderKey[]): OrderKey[] {
  const seen = new Set<string>();
  return keys.filter((k) => !seen.has(k.sql) && seen.add(k.sql));
}

/** The SELECT of `level`; `hidden` adds its order keys as `"#oN"` columns for an outer level. */
function selectSql(level: Level, hidden: boolean): string {
  const items = [...level.columns].map(([name, ref]) => `${ref.sql} AS ${quote(name)}`);
  if (hidden) level.order.forEach((k, i) => items.push(`${k.sql} AS ${quote(`#o${i}`)}`));
  let sql = `SELECT ${items.join(", ")} FROM ${level.from}`;
  if (level.where.length > 0) sql += ` WHERE ${level.where.join(" AND ")}`;
  sql += ` ORDER BY ${level.order.map((k) => (k.desc ? `${k.sql} DESC` : k.sql)).join(", ")}`;
  if (level.limit !== null || level.offset !== null) sql += ` LIMIT ${level.limit ?? "-1"}`;
  if (level.offset !== null) sql += ` OFFSET ${level.offset}`;
  return sql;
}

/** A level reading the rows of `inner`, in its order. */
function subquery(inner: Level, alias: string): Level {
  const from = `(${selectSql(inner, true)}) AS ${quote(alias)}`;
  const columns = new Map<string, ColumnRef>();
  for (const [name, ref] of inner.columns) columns.set(name, { sql: `${quote(alias)}.${quote(name)}`, type: ref.type });
  const order = inner.order.map((k, i) => ({ sql: `${quote(alias)}.${quote(`#o${i}`)}`, desc: k.desc }));
  return { from, where: [], order, limit: null, offset: null, columns };
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
