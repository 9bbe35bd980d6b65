/**
 * @module `GET /api/data?after=&limit=`: the back office's overview — the tenants the person owns or
 * is a member of, by handle, each with its installed contracts (namespace, version, artifact), their
 * aggregates and how many records each holds:
 *
 * ```
 * {items: [{tenant, did, personal, owner, contracts: [{namespace, version, artifact,
 *           aggregates: [{name, records}]}]}], next}
 * ```
 *
 * Each tenant is read in one snapshot. A tenant the person left between the list and its read is
 * left out of the page.
 */
import type { Hono } from "hono";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { quote, tableName } from "../../../../contracts/storage/columns.ts";
import { HttpProblem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import type { PersonReader, TenantRead } from "../personal/person-reader.ts";

/** One installed contract, as the overview shows it. */
export interface ContractOverview {
  readonly namespace: string;
  readonly version: string;
  readonly artifact: string;
  readonly aggregates: readonly { readonly name: string; readonly records: number }[];
}

/** One tenant, as the overview shows it. */
export interface TenantOverview {
  readonly tenant: string;
  readonly did: string;
  readonly personal: boolean;
  readonly owner: boolean;
  readonly contracts: readonly ContractOverview[];
}

/** Mounts `GET /api/data`. */
export function mountDataOverviewRoute(api: Hono<ApiEnv>, deps: { readonly reader: PersonReader }): void {
  const { reader } = deps;
  api.get("/api/data", (c) => {
    sessionOf(c);
    const page = pageOf(reader.memberships(), (m) => m.handle, pageRequest(c));
    const personal = reader.personalTenant();
    const items: TenantOverview[] = [];
    for (const m of page.items) {
      const contracts = contractsOf(reader, m.handle);
      if (contracts !== null) items.push({ tenant: m.handle, did: m.did, personal: m.handle === personal, owner: m.owner, contracts });
    }
    return c.json({ items, next: page.next });
  });
}

/** The installed contracts of `tenant` with their record counts, read in one snapshot; null when the person no longer belongs to it. */
function contractsOf(reader: PersonReader, tenant: string): ContractOverview[] | null {
  try {
    return reader.read(tenant, (r) => activeNamespaces(r.db, r.tenant).map((namespace) => overviewOf(r, namespace)));
  } catch (error) {
    if (error instanceof HttpProblem && (error.problem.status === 403 || error.problem.status === 404)) return null;
    throw error;
  }
}

function overviewOf(r: TenantRead, namespace: string): ContractOverview {
  const { artifact, schema } = r.contract(namespace);
  const aggregates = Object.keys(schema.aggregates).map((name) => {
    const row = r.db.prepare(`SELECT count(*) AS n FROM ${quote(tableName(schema, name))} WHERE tenant = ?`).get(r.tenant) as { n: number } | undefined;
    return { name, records: Number(row?.n ?? 0) };
  });
  return { namespace, version: schema.version, artifact, aggregates };
}

const statements = new WeakMap<DatabaseSync, StatementSync>();

/** The namespaces with an active contract in `tenant`, in order. */
function activeNamespaces(db: DatabaseSync, tenant: string): string[] {
  let s = statements.get(db);
  if (s === undefined) {
    s = db.prepare("SELECT namespace FROM installs WHERE tenant = ? AND status = 'active' ORDER BY namespace");
    statements.set(db, s);
  }
  return (s.all(tenant) as { namespace: string }[]).map((row) => row.namespace);
}
