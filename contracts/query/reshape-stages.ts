/**
 * @module The stages that reshape rows (reference §6): `select`, `let`, `explode` (one row per
 * element through `json_each`, in the order so far and then the element's position; an empty list
 * gives no row) and `summarize` (GROUP BY the `by` columns, ordered by them; without `by` exactly
 * one totals row, even over no rows: `count()` 0, `sum` 0, `min`/`max`/`avg` unset). `sum` and
 * `avg` of Int are exact 64-bit sums (SQLite fails the statement on overflow); `avg` divides the
 * exact sum by the count in double precision.
 */
import type { Expr } from "../ast.ts";
import { quote } from "../storage/columns.ts";
import type { StageCompiler } from "./plan-context.ts";
import { closed } from "./query-level.ts";
import { type ColumnRef, exprSql, UnsupportedQuery } from "./sql-expr.ts";

/** Whether a computed column may be unset: it reads a column that may be (conservatively, any such). */
function isUnset(ctx: { level: { columns: ReadonlyMap<string, ColumnRef> } }, e: Expr): boolean {
  switch (e.kind) {
    case "Name":
      return ctx.level.columns.get(e.resolved?.kind === "column" ? e.resolved.name : e.name)?.unset === true;
    case "Binary":
      return isUnset(ctx, e.left) || isUnset(ctx, e.right);
    case "Unary":
      return isUnset(ctx, e.operand);
    case "Call":
      return e.args.some((a) => isUnset(ctx, a));
    default:
      return false;
  }
}

export const compileSelect: StageCompiler<"Select"> = (ctx, stage) => {
  const s = ctx.scope();
  const next = new Map<string, ColumnRef>();
  for (const item of stage.items) {
    const name = item.alias?.name ?? (item.expr.kind === "Name" ? item.expr.name : null);
    if (name === null || item.expr.type === undefined) throw new Error("the checker let through an unnamed or untyped select item");
    next.set(name, { sql: exprSql(s, item.expr), type: item.expr.type, unset: isUnset(ctx, item.expr) });
  }
  ctx.level.columns = next;
};

export const compileLet: StageCompiler<"Let"> = (ctx, stage) => {
  if (stage.expr.type === undefined) throw new Error("the checker let through an untyped let");
  const ref = { sql: exprSql(ctx.scope(), stage.expr), type: stage.expr.type, unset: isUnset(ctx, stage.expr) };
  ctx.level.columns.set(stage.name.name, ref);
};

export const compileExplode: StageCompiler<"Explode"> = (ctx, stage) => {
  if (closed(ctx.level)) ctx.wrap();
  const level = ctx.level;
  const list = level.columns.get(stage.field.name);
  if (list === undefined || list.type.kind !== "List") throw new Error(`explode of ${stage.field.name}, which is not a list`);
  const e = quote(ctx.alias("e"));
  level.from += `, json_each(${list.sql}) AS ${e}`;
  const value = list.type.element.kind === "Int" ? `CAST(${e}.value AS INTEGER)` : `${e}.value`;
  const name = stage.alias?.name ?? stage.field.name;
  const next = new Map<string, ColumnRef>();
  for (const [n, ref] of level.columns) next.set(n === stage.field.name ? name : n, n === stage.field.name ? { sql: value, type: list.type.element } : ref);
  level.columns = next;
  level.order = [...level.order, { sql: `${e}.key`, desc: false }];
};

export const compileSummarize: StageCompiler<"Summarize"> = (ctx, stage) => {
  if (closed(ctx.level)) ctx.wrap();
  const level = ctx.level;
  const scope = ctx.scope();
  const next = new Map<string, ColumnRef>();
  const keys: string[] = [];
  for (const by of stage.by) {
    const ref = level.columns.get(by.name);
    if (ref === undefined) throw new Error(`summarize by unknown column ${by.name}`);
    next.set(by.name, ref);
    keys.push(ref.sql);
  }
  for (const agg of stage.aggregations) {
    const call = agg.call;
    if (call.kind !== "Call" || call.type === undefined) throw new Error("the checker let through a bad aggregation");
    const arg = call.args[0];
    const name = agg.alias?.name ?? (arg === undefined ? call.fn.name : `${call.fn.name}_${(arg as Extract<Expr, { kind: "Name" }>).name}`);
    const fn = call.fn.name;
    next.set(name, { sql: aggregateSql(fn, arg === undefined ? null : exprSql(scope, arg), arg?.type?.kind ?? null), type: call.type, unset: fn === "min" || fn === "max" || fn === "avg" });
  }
  level.columns = next;
  level.groupBy = keys;
  level.order = keys.map((sql) => ({ sql, desc: false }));
};

function aggregateSql(fn: string, arg: string | null, kind: string | null): string {
  switch (fn) {
    case "count":
      return "count(*)";
    case "sum":
      return kind === "Float" ? `total(${arg})` : `coalesce(sum(${arg}), 0)`;
    case "min":
    case "max":
      return `${fn}(${arg})`;
    case "avg":
      return kind === "Float" ? `avg(${arg})` : `(CAST(sum(${arg}) AS REAL) / count(${arg}))`;
    default:
      throw new UnsupportedQuery(`the aggregation ${fn}(…)`);
  }
}
