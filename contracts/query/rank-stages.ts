/**
 * @module `search` and `nearest` (reference §6). `search TEXT in F, …` joins the rows with the
 * matches of the tenant's FTS5 table of the source's index (read-indexes.ts; BM25's statistics are
 * the tenant's own), adds `score` (the negated BM25 rank, so higher is better) and orders best first. `nearest F to V take K` computes the exact
 * distance under the index's declared metric for every row with a vector, adds `distance` and
 * keeps the K nearest (ties by the order so far). Over a union each source uses its own index.
 */
import { columnName, quote } from "../storage/columns.ts";
import { ftsIds, indexesOf } from "../storage/read-indexes.ts";
import type { StageCompiler } from "./plan-context.ts";
import { closed, dedupe } from "./query-level.ts";
import { DISTANCE_FUNCTION, FTS_FUNCTION, NEAREST_FUNCTION } from "./sql-functions.ts";
import { exprSql, UnsupportedQuery } from "./sql-expr.ts";

const FLOAT = { kind: "Float" } as const;

export const compileSearch: StageCompiler<"Search"> = (ctx, stage) => {
  if (closed(ctx.level)) ctx.wrap();
  const scope = ctx.scope();
  const text = exprSql(scope, stage.text);
  const names = stage.fields.map((f) => f.name);
  const matches = ctx.sources.map((src, i) => {
    const ix = indexesOf(src.schema, src.aggregate).find((x) => x.kind === "fulltext" && names.every((n) => x.fields.includes(n)));
    if (ix === undefined) throw new UnsupportedQuery(`a search over ${src.aggregate} without a fulltext index on ${names.join(", ")}`);
    const found = ctx.fulltext(src, ix.name);
    // The tenant has written no record of this aggregate yet: nothing matches.
    if (found === null) return `SELECT ${i} AS src, NULL AS subject, NULL AS score WHERE 0`;
    const fts = quote(found.table);
    const ids = quote(ftsIds(src.schema, src.aggregate, ix.name));
    const cols = scope.literal(names.map(columnName).join(" "));
    return `SELECT ${i} AS src, m.subject AS subject, -bm25(${fts}) AS score FROM ${fts} JOIN ${ids} AS m ON m.id = ${fts}.rowid WHERE ${fts} MATCH ${FTS_FUNCTION}(${text}, ${cols})${found.shared ? " AND m.tenant = :tenant" : ""}`;
  });
  const level = ctx.level;
  const s = quote(ctx.alias("s"));
  const subject = level.columns.get("subject")?.sql;
  const src = level.columns.get("#src")?.sql;
  if (subject === undefined || src === undefined) throw new Error("search after the rows lost their subject (the checker forbids it)");
  level.from += ` JOIN (${matches.join(" UNION ALL ")}) AS ${s} ON ${s}.subject = ${subject}${ctx.sources.length > 1 ? ` AND ${s}.src = ${src}` : ""}`;
  level.columns.delete("score");
  level.columns.set("score", { sql: `${s}.score`, type: FLOAT });
  level.order = dedupe([{ sql: `${s}.score`, desc: true }, ...level.order]);
};

export const compileNearest: StageCompiler<"Nearest"> = (ctx, stage) => {
  if (closed(ctx.level)) ctx.wrap();
  const scope = ctx.scope();
  const to = exprSql(scope, stage.to);
  const column = ctx.level.columns.get(stage.field.name);
  const src = ctx.level.columns.get("#src")?.sql;
  if (column === undefined || src === undefined) throw new Error(`nearest over an unknown column ${stage.field.name}`);
  const metrics = ctx.sources.map((t) => {
    const ix = indexesOf(t.schema, t.aggregate).find((x) => x.kind === "vector" && x.fields.includes(stage.field.name));
    if (ix === undefined) throw new UnsupportedQuery(`nearest over ${t.aggregate} without a vector index on ${stage.field.name}`);
    return ix.metric ?? "cosine";
  });
  const call = (metric: string) => `${DISTANCE_FUNCTION}(${scope.literal(metric)}, ${column.sql}, ${to})`;
  let distance = new Set(metrics).size === 1 ? call(metrics[0] as string) : `(CASE ${src} ${metrics.map((m, i) => `WHEN ${i} THEN ${call(m)}`).join(" ")} END)`;
  ctx.level.where.push(`${column.sql} IS NOT NULL`);
  if (ctx.nearestCandidates) {
    // Ranked in memory (vector-cache.ts): read only the K candidates, with the distances computed there.
    const subject = ctx.level.columns.get("subject")?.sql;
    if (subject === undefined) throw new Error("nearest after the rows lost their subject");
    ctx.level.where.push(`${subject} IN (SELECT value FROM json_each(:nn_subjects))`);
    distance = `${NEAREST_FUNCTION}(${subject})`;
  }
  ctx.level.columns.delete("distance");
  ctx.level.columns.set("distance", { sql: distance, type: FLOAT });
  ctx.level.order = dedupe([{ sql: distance, desc: false }, ...ctx.level.order]);
  ctx.level.limit = ctx.count(stage.k);
};
