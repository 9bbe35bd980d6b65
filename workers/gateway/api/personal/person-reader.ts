/**
 * @module The node reads as the person: the records, history and declared queries of the tenants
 * the signed-in person owns or is a member of, straight from the gateway's read-only view of the
 * store (no HTTP hop, no bearer token: the `/api` gate has checked the session). What a route may
 * read is decided here once: a tenant the person is not an owner or member of is `403
 * not-member`; one that does not exist, or a namespace, aggregate or query it lacks, `404`.
 * Every read of one call runs in one read transaction (one snapshot). Queries run whatever their
 * exposure: internal ones are the node's own (reference §4).
 */
import type { DatabaseSync } from "node:sqlite";
import type { Schema } from "../../../../contracts/schema.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { rolesOf, type Roles, tenantExists } from "../../../../shared/store/roles.ts";
import { type HistoryEntry, listRecords, readHistory, readRecord, type RecordRead } from "../../reads/record-reads.ts";
import { queryProblem, queryRunner } from "../../reads/run-query.ts";
import type { ActiveSchema, StoreView } from "../../reads/store-view.ts";

/** What the reader needs: the store view, the person's did (null before set-up), the personal tenant, a clock. */
export interface PersonReaderDeps {
  readonly store: StoreView;
  readonly personDid: () => string | null;
  readonly personalTenant: () => string | null;
  readonly now: () => number;
}

/** What a read in a tenant is handed: the connection in its snapshot, the tenant, the person's roles in it. */
export interface TenantRead {
  readonly db: DatabaseSync;
  readonly tenant: string;
  readonly roles: Roles;
  /** The active contract of `namespace`, or a `404` problem thrown. */
  contract(namespace: string): ActiveSchema;
}

/** A did's tenants (owner or member), by handle, with the tenant's did; `owner` is 1 when one of its roles is owner. */
const MEMBERSHIPS = `SELECT t.handle, t.did, MAX(r.role = 'owner') AS owner
  FROM tenant_roles r JOIN tenants t ON t.handle = r.tenant
  WHERE r.did = ? GROUP BY t.handle ORDER BY t.handle`;

export class PersonReader {
  readonly #deps: PersonReaderDeps;

  constructor(deps: PersonReaderDeps) {
    this.#deps = deps;
  }

  /** The personal tenant's handle; `409 not-set-up` before set-up. */
  personalTenant(): string {
    const tenant = this.#deps.personalTenant();
    if (tenant === null) throw new HttpProblem(problem(409, "not-set-up", "the node has no account yet"));
    return tenant;
  }

  /** The person's did; `409 not-set-up` before set-up. */
  did(): string {
    const did = this.#deps.personDid();
    if (did === null) throw new HttpProblem(problem(409, "not-set-up", "the node has no account yet"));
    return did;
  }

  /**
   * Runs `fn` in one read transaction on `tenant` (the personal tenant when absent), once the
   * person is known to be an owner or member of it (`need: "owner"` asks for an owner).
   */
  read<T>(tenant: string | undefined, fn: (r: TenantRead) => T, need: "member" | "owner" = "member"): T {
    const handle = tenant ?? this.personalTenant();
    const did = this.did();
    const store = this.#deps.store;
    return store.read((db) => {
      const roles = rolesOf(db, handle, did, this.#deps.now());
      if (!(need === "owner" ? roles.owner : roles.member)) {
        if (!tenantExists(db, handle)) throw new HttpProblem(problem(404, "not-found", `no tenant '${handle}'`));
        throw new HttpProblem(problem(403, need === "owner" ? "not-owner" : "not-member", `you are not ${need === "owner" ? "an owner" : "an owner or member"} of '${handle}'`));
      }
      const contract = (namespace: string): ActiveSchema => {
        const active = store.active(handle, namespace);
        if (active === null) throw new HttpProblem(problem(404, "not-found", `'${handle}' has no contract '${namespace}' installed`));
        return active;
      };
      return fn({ db, tenant: handle, roles, contract });
    });
  }

  /** The tenants the person is an owner or member of, by handle: each tenant's own did, and whether the person owns it. */
  memberships(): { handle: string; did: string; owner: boolean }[] {
    const did = this.did();
    const store = this.#deps.store;
    return store.read(() => {
      const rows = store.prepare(MEMBERSHIPS).all(did) as { handle: string; did: string; owner: number | bigint }[];
      return rows.map((r) => ({ handle: r.handle, did: r.did, owner: Number(r.owner) === 1 }));
    });
  }

  /** The rows of declared query `name` of `namespace` with `params`; `404` unknown, `400` bad parameters, `422` failed. */
  query(tenant: string | undefined, namespace: string, name: string, params: unknown): { artifact: string; rows: Record<string, unknown>[] } {
    return this.read(tenant, (r) => {
      const { artifact, schema } = r.contract(namespace);
      const outcome = queryRunner(r.db).run(schema, name, r.tenant, params, artifact);
      if (outcome.ok) return { artifact, rows: outcome.rows };
      throw queryProblem(outcome);
    });
  }

  /** One record, or null when the subject has none; `404` for an unknown namespace or aggregate. */
  record(tenant: string | undefined, namespace: string, aggregate: string, subject: string): RecordRead | null {
    return this.read(tenant, (r) => {
      const { schema } = r.contract(namespace);
      aggregateOf(schema, aggregate);
      return readRecord(this.#deps.store, schema, aggregate, r.tenant, subject);
    });
  }

  /** A page of records of an aggregate, in subject order after `after`. */
  records(tenant: string | undefined, namespace: string, aggregate: string, after: string, limit: number): { items: RecordRead[]; next: string | null } {
    return this.read(tenant, (r) => {
      const { schema } = r.contract(namespace);
      aggregateOf(schema, aggregate);
      return listRecords(this.#deps.store, schema, aggregate, r.tenant, after, limit);
    });
  }

  /** A page of a subject's history after seq `after`. */
  history(tenant: string | undefined, namespace: string, aggregate: string, subject: string, after: number, limit: number): { entries: HistoryEntry[]; next: number | null } {
    return this.read(tenant, (r) => {
      aggregateOf(this.#schemaOrRetired(r, namespace), aggregate);
      return readHistory(this.#deps.store, r.tenant, namespace, aggregate, subject, after, limit);
    });
  }

  #schemaOrRetired(r: TenantRead, namespace: string): Schema {
    const installed = this.#deps.store.active(r.tenant, namespace) ?? this.#deps.store.retired(r.tenant, namespace);
    if (installed === null) throw new HttpProblem(problem(404, "not-found", `'${r.tenant}' has no contract '${namespace}' installed`));
    return installed.schema;
  }
}

/** `aggregate` of `schema`, or a `404` problem thrown. */
export function aggregateOf(schema: Schema, aggregate: string): Schema["aggregates"][string] {
  const found = Object.hasOwn(schema.aggregates, aggregate) ? schema.aggregates[aggregate] : undefined;
  if (found === undefined) throw new HttpProblem(problem(404, "not-found", `${schema.namespace} has no aggregate '${aggregate}'`));
  return found;
}
