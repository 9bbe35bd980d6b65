/**
 * @module The read-side storage a contract's declared indexes and queries need (design §4), named
 * here for the engine that keeps it and every reader that uses it: per `fulltext` index and tenant
 * an FTS5 table (`<state table>__fts_<index>__t_<tenant>`, one column per indexed field, created on
 * the tenant's first write, so BM25's statistics — document count, average length, how many
 * documents hold a term — are the tenant's own) and one subject map per index giving each
 * (tenant, subject) a stable rowid; per declared query over a single source, the composite index its
 * leading equality filters and sort need; per `Ref` field that a `traverse` or `shortest` follows, an
 * index on it. A query reading another contract's collection needs those on that contract's tables:
 * created when the reading contract is installed (on every version of the other contract active
 * for some tenant) and when a version of the other contract is installed later. Vector indexes
 * need no table: vectors are the state table's float32 BLOB column; an index on `(tenant, seq)`
 * lets the gateway's in-memory copy read only the rows changed since it last looked.
 */
import { createHash } from "node:crypto";
import type { Expr, Stage } from "../ast.ts";
import type { Schema } from "../schema.ts";
import { columnName, quote, tableName } from "./columns.ts";

/** An index as the schema holds it. */
export interface SchemaIndex {
  readonly name: string;
  readonly kind: "fulltext" | "vector";
  readonly fields: readonly string[];
  readonly metric: "cosine" | "l2" | "dot" | null;
}

/** The declared indexes of `aggregate` in `schema`. */
export function indexesOf(schema: Schema, aggregate: string): readonly SchemaIndex[] {
  return (schema.aggregates[aggregate]?.indexes ?? []) as readonly SchemaIndex[];
}

/** A tenant as part of a table name: the handle itself (`[a-z0-9-]`), else `_` and a digest of it. */
const tenantPart = (tenant: string) => (/^[a-z0-9-]{1,63}$/.test(tenant) ? tenant : `_${createHash("sha256").update(tenant).digest("hex").slice(0, 16)}`);

/** The FTS5 table of a fulltext index for one tenant (it exists once the tenant has written a record). */
export const ftsTable = (schema: Schema, aggregate: string, index: string, tenant: string) => tenantFtsTable(sharedFtsTable(schema, aggregate, index), tenant);
/** The tenant's FTS5 table of the index whose shared table (sharedFtsTable) is named `shared`. */
export const tenantFtsTable = (shared: string, tenant: string) => `${shared}__t_${tenantPart(tenant)}`;
/**
 * The FTS5 table that stores before per-tenant tables held every tenant's rows of a fulltext index
 * (shared statistics). Never created now; a tenant's rows move out of it on its first write.
 */
export const sharedFtsTable = (schema: Schema, aggregate: string, index: string) => `${tableName(schema, aggregate)}__fts_${index}`;
/** The (tenant, subject) → rowid map of a fulltext index (all tenants). */
export const ftsIds = (schema: Schema, aggregate: string, index: string) => `${sharedFtsTable(schema, aggregate, index)}__ids`;

/** The SQL creating the tenant's FTS5 table of fulltext index `ix` (idempotent). */
export function ftsTableDdl(schema: Schema, aggregate: string, ix: SchemaIndex, tenant: string): string {
  const cols = ix.fields.map((f) => quote(columnName(f))).join(", ");
  return `CREATE VIRTUAL TABLE IF NOT EXISTS ${quote(ftsTable(schema, aggregate, ix.name, tenant))} USING fts5(${cols}, tokenize = 'unicode61 remove_diacritics 2')`;
}

/** The SQL that creates the read-side tables and indexes of `schema` (idempotent). */
export function readIndexDdl(schema: Schema): string[] {
  const out: string[] = [];
  for (const aggregate of Object.keys(schema.aggregates)) {
    // A vector index is read into the gateway's memory and kept current by the rows changed since (`seq >`).
    if (indexesOf(schema, aggregate).some((ix) => ix.kind === "vector")) {
      out.push(`CREATE INDEX IF NOT EXISTS ${quote(seqIndexName(schema, aggregate))} ON ${quote(tableName(schema, aggregate))} (tenant, seq)`);
    }
    for (const ix of indexesOf(schema, aggregate)) {
      if (ix.kind !== "fulltext") continue;
      // The FTS5 tables themselves are per tenant, created on the tenant's first write.
      out.push(`CREATE TABLE IF NOT EXISTS ${quote(ftsIds(schema, aggregate, ix.name))} (id INTEGER PRIMARY KEY, tenant TEXT NOT NULL, subject TEXT NOT NULL, UNIQUE (tenant, subject))`);
    }
  }
  for (const [aggregate, columns] of queryIndexes(schema)) {
    const table = tableName(schema, aggregate);
    for (const key of columns) out.push(`CREATE INDEX IF NOT EXISTS ${quote(queryIndexName(schema, aggregate, key))} ON ${quote(table)} (${key})`);
  }
  return out;
}

/** The name of the derived `(tenant, seq)` index of an aggregate with a vector index. */
export const seqIndexName = (schema: Schema, aggregate: string) => `${tableName(schema, aggregate)}__ix_seq`;

/** The name of the derived index on `columns` (an index's column list) of `aggregate`'s table. */
export function queryIndexName(schema: Schema, aggregate: string, columns: string): string {
  return `${tableName(schema, aggregate)}__ix_${createHash("sha256").update(columns).digest("hex").slice(0, 12)}`;
}

/**
 * The composite index a query over an aggregate with `fields` needs, as its column list, or null:
 * `tenant`, then each column its leading `where` stages test for equality, then its first `sort`
 * keys (in their directions), then the subject — an equality filter followed by a sort becomes one
 * index.
 */
export function queryIndexKey(stages: readonly Stage[], fields: readonly { readonly name: string }[]): string | null {
  const column = (name: string) => (name === "subject" || name === "key" ? "subject" : fields.some((f) => f.name === name) ? quote(columnName(name)) : null);
  const eq: string[] = [];
  let sort: string[] = [];
  for (const stage of stages) {
    if (stage.kind === "Where") {
      for (const name of equalities(stage.expr)) {
        const c = column(name);
        if (c !== null && c !== "subject" && !eq.includes(c)) eq.push(c);
      }
      continue;
    }
    if (stage.kind === "Sort") {
      for (const k of stage.keys) {
        const c = column(k.field.name);
        if (c === null) break;
        sort.push(k.direction === "desc" ? `${c} DESC` : c);
        if (c === "subject") break;
      }
    }
    break;
  }
  if (eq.length === 0 && sort.length === 0) return null;
  if (!sort.some((c) => c.startsWith("subject"))) sort = [...sort, "subject"];
  return ["tenant", ...eq, ...sort].join(", ");
}

/** A declared query as read-indexes needs it. */
interface QueryShape {
  readonly source: { readonly kind: string; readonly name?: { readonly name: string }; readonly sources?: readonly { readonly name: { readonly name: string } }[] };
  readonly stages: readonly Stage[];
}

/**
 * The derived indexes one query needs on the table of one of its sources, whose fields are
 * `fields`: the composite index of its leading equalities and sort (queryIndexKey; a single source
 * only) and, per `traverse`/`shortest`, `(tenant, ref)`. Each as the index's column list.
 */
function sourceIndexKeys(q: QueryShape, fields: readonly { readonly name: string }[]): string[] {
  const keys: string[] = [];
  if (q.source.kind === "Collection") {
    const key = queryIndexKey(q.stages, fields);
    if (key !== null) keys.push(key);
  }
  for (const stage of q.stages) {
    if ((stage.kind === "Traverse" || stage.kind === "Shortest") && fields.some((f) => f.name === stage.field.name)) keys.push(`tenant, ${quote(columnName(stage.field.name))}`);
  }
  return keys;
}

/** Each query of `schema` with the source names it reads (one, or each of a union's). */
function queriesBySource(schema: Schema): { query: QueryShape; sources: string[] }[] {
  return Object.values(schema.queries).map((raw) => {
    const query = raw as QueryShape;
    const sources = query.source.kind === "Union" ? (query.source.sources ?? []).map((x) => x.name.name) : query.source.name === undefined ? [] : [query.source.name.name];
    return { query, sources };
  });
}

/**
 * The composite indexes the declared queries of `schema` need on its own aggregates' tables, per
 * aggregate (sourceIndexKeys). Each as the index's column list.
 */
export function queryIndexes(schema: Schema): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { query, sources } of queriesBySource(schema)) {
    for (const aggregate of sources) {
      const fields = Object.hasOwn(schema.aggregates, aggregate) ? schema.aggregates[aggregate]?.fields : undefined;
      if (fields === undefined) continue;
      for (const key of sourceIndexKeys(query, fields)) {
        let set = out.get(aggregate);
        if (set === undefined) out.set(aggregate, (set = new Set()));
        set.add(key);
      }
    }
  }
  return out;
}

/** The dotted sources (other contracts' collections, `std.…`) the queries of `schema` read. */
export function otherSources(schema: Schema): string[] {
  const out = new Set<string>();
  for (const { sources } of queriesBySource(schema)) for (const name of sources) if (!Object.hasOwn(schema.aggregates, name)) out.add(name);
  return [...out];
}

/**
 * The indexes the queries of `reader` need on the tables of `target` (another contract's version)
 * through its dotted sources naming `target`'s namespace — `aggregateOf` answers which aggregate of
 * `target` a source name reads (collections.ts sourceAggregate). The SQL creating each (idempotent).
 */
export function otherSourceIndexDdl(reader: Schema, target: Schema, aggregateOf: (schema: Schema, name: string) => string | null): string[] {
  const out: string[] = [];
  for (const { query, sources } of queriesBySource(reader)) {
    for (const name of sources) {
      if (Object.hasOwn(reader.aggregates, name) || !sourceInNamespace(name, target.namespace)) continue;
      const aggregate = aggregateOf(target, name);
      const fields = aggregate === null ? undefined : target.aggregates[aggregate]?.fields.filter((f) => f.visibility === "public");
      if (aggregate === null || fields === undefined) continue;
      for (const key of sourceIndexKeys(query, fields)) out.push(`CREATE INDEX IF NOT EXISTS ${quote(queryIndexName(target, aggregate, key))} ON ${quote(tableName(target, aggregate))} (${key})`);
    }
  }
  return out;
}

/** Whether the dotted source `name` (`ns.Aggregate` or `std.x`) reads namespace `namespace`. */
function sourceInNamespace(name: string, namespace: string): boolean {
  return name === namespace || (name.startsWith(`${namespace}.`) && /^[A-Z]/.test(name.slice(namespace.length + 1)) && !name.slice(namespace.length + 1).includes("."));
}

/** The columns `expr` (a where condition) tests for equality with something, through `and`s. */
function equalities(expr: Expr): string[] {
  if (expr.kind === "Binary" && expr.op === "and") return [...equalities(expr.left), ...equalities(expr.right)];
  if (expr.kind === "Binary" && expr.op === "==") {
    const side = (e: Expr) => (e.kind === "Name" && (e.resolved === undefined || e.resolved.kind === "column") ? e.name : null);
    const l = side(expr.left);
    const r = side(expr.right);
    if (l !== null && r === null) return [l];
    if (r !== null && l === null) return [r];
  }
  return [];
}
