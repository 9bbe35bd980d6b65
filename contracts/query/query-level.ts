/**
 * @module One SELECT of a compiled query being built (query-sql.ts), and turning it into SQL or
 * into a subquery the next stage reads from — carrying its order along as hidden `"#oN"` columns,
 * so the order is never lost. Columns whose names start with `#` (`#src`, the union branch a row
 * came from) are carried but never answered.
 */
import { quote } from "../storage/columns.ts";
import type { ColumnRef } from "./sql-expr.ts";

export interface OrderKey {
  readonly sql: string;
  readonly desc: boolean;
}

export interface Level {
  from: string;
  readonly where: string[];
  order: OrderKey[];
  limit: string | null;
  offset: string | null;
  columns: Map<string, ColumnRef>;
  /** The GROUP BY of a `summarize` (empty: one totals row), or null. */
  groupBy: string[] | null;
}

/** Keeps the first of equal keys: a later one can never decide anything. */
export function dedupe(keys: OrderKey[]): OrderKey[] {
  const seen = new Set<string>();
  return keys.filter((k) => !seen.has(k.sql) && seen.add(k.sql));
}

/** The SELECT of `level`; `hidden` adds its order keys as `"#oN"` columns for an outer level. */
export function selectSql(level: Level, hidden: boolean): string {
  const items = [...level.columns].map(([name, ref]) => `${ref.sql} AS ${quote(name)}`);
  if (hidden) level.order.forEach((k, i) => items.push(`${k.sql} AS ${quote(`#o${i}`)}`));
  let sql = `SELECT ${items.length > 0 ? items.join(", ") : "1"} FROM ${level.from}`;
  if (level.where.length > 0) sql += ` WHERE ${level.where.join(" AND ")}`;
  if (level.groupBy !== null && level.groupBy.length > 0) sql += ` GROUP BY ${level.groupBy.join(", ")}`;
  if (level.order.length > 0) sql += ` ORDER BY ${level.order.map((k) => (k.desc ? `${k.sql} DESC` : k.sql)).join(", ")}`;
  if (level.limit !== null || level.offset !== null) sql += ` LIMIT ${level.limit ?? "-1"}`;
  if (level.offset !== null) sql += ` OFFSET ${level.offset}`;
  return sql;
}

/** A level reading the rows of `inner`, in its order. */
export function subquery(inner: Level, alias: string): Level {
  const from = `(${selectSql(inner, true)}) AS ${quote(alias)}`;
  const columns = new Map<string, ColumnRef>();
  for (const [name, ref] of inner.columns) columns.set(name, { sql: `${quote(alias)}.${quote(name)}`, type: ref.type, unset: ref.unset });
  const order = inner.order.map((k, i) => ({ sql: `${quote(alias)}.${quote(`#o${i}`)}`, desc: k.desc }));
  return { from, where: [], order, limit: null, offset: null, columns, groupBy: null };
}

/** Whether the next row-changing stage must read `level` as a subquery (paged or grouped). */
export const closed = (level: Level) => level.limit !== null || level.offset !== null || level.groupBy !== null;
