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
 * - A `Ref` to a subject without a record leads nowhere.
 * - Each recursive step reads the queue's row first (CROSS JOIN fixes SQLite's join order, which
 *   otherwise may scan the tenant's records once per step), then the record by key or by the
 *   `(tenant, ref)` index derived for the query.
 * - Over a `union(…)` (its sources are aggregates of one name, the checker's rule for a `Ref`), a
 *   reference leads to the record of that subject in the source the row came from: a `Ref` names a
 *   record of its own contract's aggregate. So each source is its own graph; rows reached in
 *   several sources are distinct rows (ordered by subject, then source), and `shortest` picks the
 *   fewest hops over all sources (ties: the first start in the order so far). Each recursive step
 *   has one SELECT per source, so each reads its own table by key.
 */
import type { SourceTable } from "./query-sources.ts";
import { columnName, quote } from "../storage/columns.ts";
import type { PlanContext, StageCompiler } from "./plan-context.ts";
import { selectSql } from "./query-level.ts";
import { publicFields, rowsOf, SUBJECT_TYPE, unsetAsof } from "./query-sources.ts";
import { type ColumnRef, exprSql } from "./sql-expr.ts";

/** The tenant's records of `t` as a FROM item: `(SELECT … ) AS alias`, and its condition. */
function records(ctx: PlanContext, t: SourceTable, alias: string): { from: string; where: string } {
  const rows = rowsOf({ literal: (v) => ctx.scope().literal(v) }, t, ctx.asof);
  return { from: `${rows.from} AS ${alias}`, where: rows.where === null ? "1" : `${alias}.${rows.where}` };
}

/** The source index of the rows so far (`#src`: 0 for a single source). */
function sourceColumn(ctx: PlanContext): ColumnRef {
  const src = ctx.level.columns.get("#src");
  if (src === undefined) throw new Error("a graph stage after the rows lost their source");
  return src;
}

/**
 * Replaces the level by the records that `joined` (a FROM item with a source index column and a
 * subject column, SQL `src` and `on`) reaches, in `orderSql` order then subject then source.
 */
function rowsFrom(ctx: PlanContext, joined: string, src: string, on: string, orderSql: string | null): void {
  const sources = ctx.sources;
  const first = sources[0];
  if (first === undefined) throw new Error("a query without a source");
  const single = sources.length === 1;
  // One join per source, each by key: a single source is an inner join; over a union, a LEFT JOIN
  // per source that only the rows of that source match.
  const aliases = sources.map(() => quote(ctx.alias("t")));
  let from = joined;
  const where: string[] = [];
  sources.forEach((t, i) => {
    const alias = aliases[i] as string;
    const recs = records(ctx, t, alias);
    // CROSS JOIN keeps the reached rows outermost: each record is then found by its key.
    from += single ? ` CROSS JOIN ${recs.from} ON ${alias}.subject = ${on}` : ` LEFT JOIN ${recs.from} ON ${src} = ${i} AND ${alias}.subject = ${on} AND ${recs.where}`;
    if (single) where.push(recs.where);
  });
  const pick = (column: string) => (single ? `${aliases[0] as string}.${column}` : `(CASE ${src} ${aliases.map((a, i) => `WHEN ${i} THEN ${a}.${column}`).join(" ")} END)`);
  if (!single) where.push(`${pick("subject")} IS NOT NULL`);
  const subject = pick("subject");
  const columns = new Map<string, ColumnRef>([
    ["#src", { sql: single ? "0" : src, type: { kind: "Int" } }],
    ["subject", { sql: subject, type: SUBJECT_TYPE }],
    ["key", { sql: subject, type: SUBJECT_TYPE }],
  ]);
  for (const f of publicFields(first)) {
    const unset = sources.some((t) => publicFields(t).some((g) => g.name === f.name && unsetAsof(t, g, ctx.asof)));
    columns.set(f.name, { sql: pick(quote(columnName(f.name))), type: f.type, unset });
  }
  // Columns a search or nearest added before: a reached record has no score or distance.
  for (const [name, ref] of ctx.level.columns) if (!columns.has(name)) columns.set(name, { sql: "NULL", type: ref.type });
  ctx.level = {
    from,
    where,
    order: [...(orderSql === null ? [] : [{ sql: orderSql, desc: false }]), { sql: subject, desc: false }, ...(single ? [] : [{ sql: src, desc: false }])],
    limit: null,
    offset: null,
    columns,
    groupBy: null,
  };
}

export const compileTraverse: StageCompiler<"Traverse"> = (ctx, stage) => {
  const ref = ctx.level.columns.get(stage.field.name);
  if (ref === undefined) throw new Error(`traverse over unknown column ${stage.field.name}`);
  const start = selectSql({ ...ctx.level, columns: new Map([["src", sourceColumn(ctx)], ["r", ref]]) }, false);
  const f = quote(columnName(stage.field.name));
  const single = ctx.sources.length === 1;
  // One recursive SELECT per source, following F within it.
  const step = (extra: (a: string) => string, hop: string) =>
    ctx.sources.map((t, i) => {
      const a = quote(ctx.alias("g"));
      const recs = records(ctx, t, a);
      return `SELECT ${i}, ${a}.${f}${hop} FROM r CROSS JOIN ${recs.from} ON ${a}.subject = r.s WHERE ${single ? "" : `r.src = ${i} AND `}${recs.where} AND ${a}.${f} IS NOT NULL${extra(a)}`;
    });
  let cte: string;
  if (stage.depth === null) {
    cte = `WITH RECURSIVE r(src, s) AS (SELECT st.src, st.r FROM (${start}) AS st WHERE st.r IS NOT NULL UNION ${step(() => "", "").join(" UNION ")}) SELECT src, s FROM r`;
  } else {
    const depth = ctx.count(stage.depth);
    const counts = ctx.sources.map((t) => {
      const n = quote(ctx.alias("n"));
      const all = records(ctx, t, n);
      return `(SELECT count(*) FROM ${all.from} WHERE ${all.where})`;
    });
    const bound = counts.join(" + ");
    cte =
      `WITH RECURSIVE r(src, s, d) AS (SELECT st.src, st.r, 1 FROM (${start}) AS st WHERE st.r IS NOT NULL AND ${depth} >= 1 ` +
      `UNION ${step(() => ` AND r.d < ${depth} AND r.d <= ${bound}`, ", r.d + 1").join(" UNION ")}) SELECT DISTINCT src, s FROM r`;
  }
  const reached = quote(ctx.alias("r"));
  rowsFrom(ctx, `(${cte}) AS ${reached}`, `${reached}.src`, `${reached}.s`, null);
};

export const compileShortest: StageCompiler<"Shortest"> = (ctx, stage) => {
  const subject = ctx.level.columns.get("subject");
  if (subject === undefined) throw new Error("shortest after the rows lost their subject");
  const target = exprSql(ctx.scope(), stage.to);
  const start = selectSql({ ...ctx.level, columns: new Map([["src", sourceColumn(ctx)], ["s", subject]]) }, true);
  const f = quote(columnName(stage.field.name));
  const single = ctx.sources.length === 1;
  const onSource = (table: string, i: number) => (single ? "" : `${table}.src = ${i} AND `);
  const ends: string[] = [];
  const backSteps: string[] = [];
  const pathSteps: string[] = [];
  ctx.sources.forEach((t, i) => {
    const [b, c, d] = [quote(ctx.alias("b")), quote(ctx.alias("b")), quote(ctx.alias("b"))];
    const [rb, rc, rd] = [records(ctx, t, b), records(ctx, t, c), records(ctx, t, d)];
    ends.push(`SELECT ${i}, ${b}.subject, 0 FROM ${rb.from} WHERE ${rb.where} AND ${b}.subject = ${target}`);
    backSteps.push(`SELECT ${i}, ${c}.subject, back.d + 1 FROM back CROSS JOIN ${rc.from} ON ${c}.${f} = back.s WHERE ${onSource("back", i)}${rc.where} AND ${c}.subject <> ${target}`);
    pathSteps.push(`SELECT ${i}, ${d}.${f}, path.i + 1 FROM path CROSS JOIN ${rd.from} ON ${d}.subject = path.s CROSS JOIN best WHERE ${onSource("path", i)}${rd.where} AND path.i < best.d`);
  });
  const order = ctx.level.order.map((k, i) => `st.${quote(`#o${i}`)}${k.desc ? " DESC" : ""}`);
  const cte =
    `WITH RECURSIVE back(src, s, d) AS (${ends.join(" UNION ALL ")} UNION ALL ${backSteps.join(" UNION ALL ")}), ` +
    `best(src, s, d) AS (SELECT st.src, st.s, back.d FROM (${start}) AS st JOIN back ON back.src = st.src AND back.s = st.s ORDER BY back.d${order.map((o) => `, ${o}`).join("")} LIMIT 1), ` +
    `path(src, s, i) AS (SELECT src, s, 0 FROM best UNION ALL ${pathSteps.join(" UNION ALL ")}) ` +
    `SELECT src, s, i FROM path`;
  const p = quote(ctx.alias("p"));
  rowsFrom(ctx, `(${cte}) AS ${p}`, `${p}.src`, `${p}.s`, `${p}.i`);
};
