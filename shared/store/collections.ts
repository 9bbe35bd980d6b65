/**
 * @module Query sources outside the querying contract (reference §6): `acme.billing.Invoice` is
 * aggregate `Invoice` of the tenant's active `acme.billing` contract; `std.invoices` (a last part in
 * lower case) is the one aggregate of the standard-library contract `std.invoices`, installed in
 * every tenant. `collectionOf` answers the checker's `resolveCollection` from a store, so a
 * contract reading another one is checked against what the tenant has installed.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Column } from "../../contracts/ast.ts";
import type { Schema } from "../../contracts/schema.ts";
import { indexesOf } from "../../contracts/storage/read-indexes.ts";

const SUBJECT = { kind: "Text", len: 128 } as const;

/** The namespace and aggregate a dotted source names: `a.b.Agg` → (a.b, Agg); `std.x` → (std.x, null: its only aggregate). */
export function splitSource(name: string): { namespace: string; aggregate: string | null } {
  const dot = name.lastIndexOf(".");
  const last = name.slice(dot + 1);
  return /^[A-Z]/.test(last) ? { namespace: name.slice(0, dot), aggregate: last } : { namespace: name, aggregate: null };
}

/** The aggregate of `schema` that source `name` names, or null. */
export function sourceAggregate(schema: Schema, name: string): string | null {
  const { aggregate } = splitSource(name);
  const found = aggregate ?? Object.keys(schema.aggregates)[0];
  return found !== undefined && Object.hasOwn(schema.aggregates, found) ? found : null;
}

/** The columns and indexes a query over `aggregate` of `schema` sees. */
export function collectionInfo(schema: Schema, aggregate: string): { columns: Column[]; indexes: { index: "fulltext" | "vector"; fields: string[] }[] } {
  const columns: Column[] = [
    { name: "subject", type: SUBJECT },
    { name: "key", type: SUBJECT },
  ];
  for (const f of schema.aggregates[aggregate]?.fields ?? []) if (f.visibility === "public") columns.push({ name: f.name, type: f.type });
  return { columns, indexes: indexesOf(schema, aggregate).map((i) => ({ index: i.kind, fields: [...i.fields] })) };
}

/** `resolveCollection` for `tenant` over the store `db`: the active contract's collection, or null. */
export function collectionOf(db: DatabaseSync, tenant: string, name: string): ReturnType<typeof collectionInfo> | null {
  const { namespace } = splitSource(name);
  const row = db.prepare("SELECT a.schema AS schema FROM installs i JOIN artifacts a ON a.id = i.artifact WHERE i.tenant = ? AND i.namespace = ? AND i.status = 'active'").get(tenant, namespace) as
    | { schema: string }
    | undefined;
  if (row === undefined) return null;
  const schema = JSON.parse(row.schema) as Schema;
  const aggregate = sourceAggregate(schema, name);
  return aggregate === null ? null : collectionInfo(schema, aggregate);
}

/** Every collection a query of `tenant` may read, by the name a source uses (`ns.Aggregate`; `std.x` too). */
export function tenantCollections(db: DatabaseSync, tenant: string): Record<string, ReturnType<typeof collectionInfo>> {
  const rows = db.prepare("SELECT a.schema AS schema FROM installs i JOIN artifacts a ON a.id = i.artifact WHERE i.tenant = ? AND i.status = 'active'").all(tenant) as { schema: string }[];
  const out: Record<string, ReturnType<typeof collectionInfo>> = {};
  for (const row of rows) {
    const schema = JSON.parse(row.schema) as Schema;
    const aggregates = Object.keys(schema.aggregates);
    for (const aggregate of aggregates) out[`${schema.namespace}.${aggregate}`] = collectionInfo(schema, aggregate);
    const only = aggregates[0];
    if (aggregates.length === 1 && only !== undefined && splitSource(schema.namespace).aggregate === null) out[schema.namespace] = collectionInfo(schema, only);
  }
  return out;
}
