/**
 * @module `traverse` and `shortest` (reference §6), as recursive CTEs over a `Ref` field of the
 * source's own aggregate. Choices where the reference is silent:
 *
 * - `traverse F [depth N]`: one row per record reached from the rows so far by following F one or
 *   more times (at most N times), each once, in subject order. A start is in the result only when
 *   it is reached again (a cycle). Cycles end: without a depth the CTE keeps each subject once
 *   (UNION), with one it keeps (subject, hops) pairs and stops after N hops, or after as many hops as
 *   there are records (no new record can be reached later).
 * - `shortest F to X`: the fewest-hop chain from one of the rows so far to the record X, following
 *   F; its rows from that start to X inclusive, in chain order. Ties between starts: the first in the
 *   order so far. No chain (or no record X): no rows. It walks backwards from X (records whose F is
 *   a reached one; X itself is not entered twice), so each record is visited at most once.
 * - A `Ref` to a subject without a record leads nowhere. Over a union neither is served.
 */
import type { SourceTable } from "./query-sources.ts";
import { columnName, quote } from "../../../shared/store/columns.ts";
import type { PlanContext, StageCompiler } from "./plan-context.ts";
import { selectSql } from "./query-level.ts";
import { publicFields, rowsOf, SUBJECT_TYPE } from "./query-sources.ts";
import { type ColumnRef, exprSql, UnsupportedQuery } from "./sql-expr.ts";

function single(ctx: PlanContext, stage: string): SourceTable {
  const [only, ...more] = ctx.sources;
  if (only === undefined || more.length > 0) throw new UnsupportedQuery(`${stage} over a union(…)`);
  return only;
}

/** The tenant's records of `t` as a FROM item: `(SELECT … ) AS alias`, and its condition. */
function records(ctx: PlanContext, t: SourceTable, alias: string): { from: string; where: string } {
  const rows = rowsOf({ literal: (v) => ctx.scope().literal(v) }, t, ctx.asof);
  return { from: `${rows.from} AS ${alias}`, where: rows.where === null ? "1" : `${alias}.${rows.where}` };
}

/** Replaces the level by the records whose subjects `subjects` (SQL of `(…) AS alias` with `s`) gives. */
function rowsFrom(ctx: PlanContext, t: SourceTable, joined: string, on: string, orderSql: string | null): void {
  const alias = quote(ctx.alias("t"));
  const recs = records(ctx, t, alias);
  const columns = new Map<string, ColumnRef>([
    ["#src", { sql: "0", type: { kind: "Int" } }],
    ["subject", { sql: `${alias}.subject`, type: SUBJECT_TYPE }],
    ["key", { sql: `${alias}.subject`, type: SUBJECT_TYPE }],
  ]);
  for (const f of publicFields(t)) columns.set(f.name, { sql: `${alias}.${quote(columnName(f.name))}`, type: f.type });
  // Columns a search or nearest added before: a reached record has no score or distance.
  for (const [name, ref] of ctx.level.columns) if (!columns.has(name)) columns.set(name, { sql: "NULL", type: ref.type });
  ctx.level = {
    from: `${joined} JOIN ${recs.from} ON ${alias}.subject = ${on}`,
    where: [recs.where],
    order: [...(orderSql === null ? [] : [{ sql: orderSql, desc: false }]), { sql: `${alias}.subject`, desc: false }],
    limit: null,
    offset: null,
    columns,
    groupBy: null,
  };
}

export const compileTraverse: StageCompiler<"Traverse"> = (ctx, stage) => {
  const t = single(ctx, "traverse");
  const ref = ctx.level.columns.get(stage.field.name);
  if (ref === undefined) throw new Error(`traverse over unknown column ${stage.field.name}`);
  const start = selectSql({ ...ctx.level, columns: new Map([["r", ref]]) }, false);
  const f = quote(columnName(stage.field.name));
  const a = quote(ctx.alias("g"));
  const recs = records(ctx, t, a);
  let cte: string;
  if (stage.depth === null) {
    cte = `WITH RECURSIVE r(s) AS (SELECT st.r FROM (${start}) AS st WHERE st.r IS NOT NULL UNION SELECT ${a}.${f} FROM r JOIN ${recs.from} ON ${a}.subject = r.s WHERE ${recs.where} AND ${a}.${f} IS NOT NULL) SELECT s FROM r`;
  } else {
    const depth = ctx.count(stage.depth);
    const n = quote(ctx.alias("n"));
    const all = records(ctx, t, n);
    const bound = `(SELECT count(*) FROM ${all.from} WHERE ${all.where})`;
    cte =
      `WITH RECURSIVE r(s, d) AS (SELECT st.r, 1 FROM (${start}) AS st WHERE st.r IS NOT NULL AND ${depth} >= 1 ` +
      `UNION SELECT ${a}.${f}, r.d + 1 FROM r JOIN ${recs.from} ON ${a}.subject = r.s WHERE ${recs.where} AND ${a}.${f} IS NOT NULL AND r.d < ${depth} AND r.d <= ${bound}) SELECT DISTINCT s FROM r`;
  }
  const reached = quote(ctx.alias("r"));
  rowsFrom(ctx, t, `(${cte}) AS ${reached}`, `${reached}.s`, null);
};

export const compileShortest: StageCompiler<"Shortest"> = (ctx, stage) => {
  const t = single(ctx, "shortest");
  const subject = ctx.level.columns.get("subject");
  if (subject === undefined) throw new Error("shortest after the rows lost their subject");
  const target = exprSql(ctx.scope(), stage.to);
  const start = selectSql({ ...ctx.level, columns: new Map([["s", subject]]) }, true);
  const f = quote(columnName(stage.field.name));
  const [b, c, d] = [quote(ctx.alias("b")), quote(ctx.alias("b")), quote(ctx.alias("b"))];
  const [rb, rc, rd] = [records(ctx, t, b), records(ctx, t, c), records(ctx, t, d)];
  const order = ctx.level.order.map((k, i) => `st.${quote(`#o${i}`)}${k.desc ? " DESC" : ""}`);
  const cte =
    `WITH RECURSIVE back(s, d) AS (SELECT ${b}.subject, 0 FROM ${rb.from} WHERE ${rb.where} AND ${b}.subject = ${target} ` +
    `UNION ALL SELECT ${c}.subject, back.d + 1 FROM back JOIN ${rc.from} ON ${c}.${f} = back.s WHERE ${rc.where} AND ${c}.subject <> ${target}), ` +
    `best(s, d) AS (SELECT st.s, back.d FROM (${start}) AS st JOIN back ON back.s = st.s ORDER BY back.d${order.map((o) => `, ${o}`).join("")} LIMIT 1), ` +
    `path(s, i) AS (SELECT s, 0 FROM best UNION ALL SELECT ${d}.${f}, path.i + 1 FROM path JOIN ${rd.from} ON ${d}.subject = path.s JOIN best WHERE ${rd.where} AND path.i < best.d) ` +
    `SELECT s, i FROM path`;
  const p = quote(ctx.alias("p"));
  rowsFrom(ctx, t, `(${cte}) AS ${p}`, `${p}.s`, `${p}.i`);
};
