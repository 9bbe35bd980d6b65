/**
 * @module What a compiled query reads first (reference §6 "Source"): an aggregate of the query's
 * own contract, of another contract installed for the tenant (`acme.billing.Invoice`) or a
 * standard-library collection (`std.invoices`, the one aggregate of the `std.invoices` contract),
 * or a `union(…)` of such sources. Each source is its state table — or, under `asof`, the state each
 * subject had at that time, rebuilt from history (the newest accepted entry at or before the time,
 * its receipt's public state, under the schema of the version that wrote it: see rowsOf). A union reads its sources' rows one after the other (UNION ALL) with
 * a hidden `#src` column saying which source a row came from.
 */
import type { Stage, Type } from "../ast.ts";
import type { Schema, SchemaField } from "../schema.ts";
import { columnName, quote, tableName } from "../storage/columns.ts";
import { queryIndexes, queryIndexKey, queryIndexName } from "../storage/read-indexes.ts";
import type { Level } from "./query-level.ts";
import { VECTOR_FUNCTION } from "./sql-functions.ts";
import type { ColumnRef } from "./sql-expr.ts";

/** A source's records: the artifact that stores them and the aggregate. */
export interface SourceTable {
  readonly artifact: string;
  readonly schema: Schema;
  readonly aggregate: string;
  /**
   * For `asof`: every stored artifact of the source's namespace by id (the versions whose history
   * entries the source may read). Without it every entry's value of a field is taken as it is.
   */
  readonly versions?: ReadonlyMap<string, Schema>;
}

/** Answers a dotted source (`acme.billing.Invoice`, `std.invoices`) for the tenant, or null. */
export type SourceResolver = (name: string) => SourceTable | null;

/** Placeholders for the values a source's SQL needs. */
export interface SourceScope {
  literal(value: string): string;
}

export const SUBJECT_TYPE: Type = { kind: "Text", len: 128 };

/** The public fields of a source. */
export const publicFields = (t: SourceTable): SchemaField[] => (t.schema.aggregates[t.aggregate]?.fields ?? []).filter((f) => f.visibility === "public");

/**
 * The artifacts among `t.versions` whose entries hold field `f` as the source has it — the field
 * public in that version's aggregate with the identical type (the rule by which an upgrade carries
 * a value over) — or null when every version does (or the versions are not known).
 */
function versionsHolding(t: SourceTable, f: SchemaField): string[] | null {
  if (t.versions === undefined) return null;
  const type = JSON.stringify(f.type);
  const holding: string[] = [];
  for (const [id, schema] of t.versions) {
    const old = schema.aggregates[t.aggregate]?.fields.find((o) => o.name === f.name);
    if (old !== undefined && old.visibility === "public" && JSON.stringify(old.type) === type) holding.push(id);
  }
  return holding.length === t.versions.size ? null : holding;
}

/** Whether, read `asof`, field `f` of source `t` may be unset although its type always has a value (see rowsOf). */
export const unsetAsof = (t: SourceTable, f: SchemaField, asof: string | null) => asof !== null && versionsHolding(t, f) !== null;

/**
 * A row source's rows for the tenant, as something FROM can read with columns `subject` and
 * `f_<field>`: the state table, or its history at `asof` (SQL of the time in milliseconds). Under
 * `asof` a subject's state is the one its entry recorded, under the schema of that time: a field the
 * entry's version did not have (or had with another type, or private) is unset.
 */
export function rowsOf(s: SourceScope, t: SourceTable, asof: string | null): { from: string; where: string | null } {
  if (asof === null) return { from: quote(tableName(t.schema, t.aggregate)), where: "tenant = :tenant" };
  const state = "coalesce(json_extract(h.receipt, '$.state'), '{}')";
  const latest =
    `SELECT subject, max(seq) AS seq FROM history WHERE tenant = :tenant AND namespace = ${s.literal(t.schema.namespace)} AND aggregate = ${s.literal(t.aggregate)} ` +
    `AND outcome = 'accepted' AND committed_at <= ${asof} GROUP BY subject`;
  const fields = publicFields(t).map((f) => {
    const holding = versionsHolding(t, f);
    const value = fieldFromJson(f, "st");
    const sql = holding === null ? value : holding.length === 0 ? "NULL" : `(CASE WHEN st.artifact IN (${holding.map((id) => s.literal(id)).join(", ")}) THEN ${value} END)`;
    return `${sql} AS ${quote(columnName(f.name))}`;
  });
  return {
    from: `(SELECT st.subject AS subject${fields.map((f) => `, ${f}`).join("")} FROM (SELECT l.subject AS subject, h.artifact AS artifact, ${state} AS state FROM (${latest}) AS l JOIN history AS h ON h.seq = l.seq) AS st)`,
    where: null,
  };
}

/** A field of a state held as JSON (`alias.state`), as its column holds it. */
function fieldFromJson(f: SchemaField, alias: string): string {
  const v = `json_extract(${alias}.state, ${quote("$." + f.name).replaceAll('"', "'")})`;
  switch (f.type.kind) {
    case "Int":
      return `CAST(${v} AS INTEGER)`;
    case "Vector":
      return `${VECTOR_FUNCTION}(${v})`;
    default:
      return v;
  }
}

/**
 * Whether the table of `t` has the derived index on `key` (an index's column list). An aggregate of
 * the query's own contract has those its queries need; another contract's table has them once
 * they are derived (read-indexes.ts), which a reader learns from the store.
 */
export type DerivedIndexes = (t: SourceTable, key: string) => boolean;

/** The derived indexes of a contract's own tables: those its declared queries need. */
export const ownIndexes: DerivedIndexes = (t, key) => queryIndexes(t.schema).get(t.aggregate)?.has(key) ?? false;

/** The first level of a query over `sources` (one, or a union's), all with the first one's columns. */
export function sourceLevel(s: SourceScope, sources: readonly SourceTable[], asof: string | null, stages: readonly Stage[] = [], indexed: DerivedIndexes = ownIndexes): Level {
  const first = sources[0];
  if (first === undefined) throw new Error("a query without a source");
  const fields = publicFields(first);
  const columns = new Map<string, ColumnRef>();
  const t = quote("t0");
  if (sources.length === 1) {
    const rows = rowsOf(s, first, asof);
    columns.set("#src", { sql: "0", type: { kind: "Int" } });
    columns.set("subject", { sql: `${t}.subject`, type: SUBJECT_TYPE });
    columns.set("key", { sql: `${t}.subject`, type: SUBJECT_TYPE });
    for (const f of fields) columns.set(f.name, { sql: `${t}.${quote(columnName(f.name))}`, type: f.type, unset: unsetAsof(first, f, asof) });
    // SQLite without statistics prefers the primary key's (tenant, subject) range to a derived
    // (tenant, field…, subject) index; when the index derived for this access path exists, use it.
    const key = asof === null ? queryIndexKey(stages, fields) : null;
    const hint = key !== null && indexed(first, key) ? ` INDEXED BY ${quote(queryIndexName(first.schema, first.aggregate, key))}` : "";
    return { from: `${rows.from} AS ${t}${hint}`, where: rows.where === null ? [] : [`${t}.${rows.where}`], order: [{ sql: `${t}.subject`, desc: false }], limit: null, offset: null, columns, groupBy: null };
  }
  const branches = sources.map((src, i) => {
    const rows = rowsOf(s, src, asof);
    const cols = fields.map((f) => quote(columnName(f.name)));
    return `SELECT ${i} AS "#src", subject${cols.map((c) => `, ${c}`).join("")} FROM ${rows.from}${rows.where === null ? "" : ` WHERE ${rows.where}`}`;
  });
  columns.set("#src", { sql: `${t}."#src"`, type: { kind: "Int" } });
  columns.set("subject", { sql: `${t}.subject`, type: SUBJECT_TYPE });
  columns.set("key", { sql: `${t}.subject`, type: SUBJECT_TYPE });
  for (const f of fields) columns.set(f.name, { sql: `${t}.${quote(columnName(f.name))}`, type: f.type, unset: sources.some((src) => publicFields(src).some((g) => g.name === f.name && unsetAsof(src, g, asof))) });
  return {
    from: `(${branches.join(" UNION ALL ")}) AS ${t}`,
    where: [],
    order: [{ sql: `${t}.subject`, desc: false }, { sql: `${t}."#src"`, desc: false }],
    limit: null,
    offset: null,
    columns,
    groupBy: null,
  };
}
