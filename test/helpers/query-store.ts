/**
 * @module A store for query tests without a running node: migrated, with tenants and contracts
 * installed through the engine's own install, and records written the way the engine commits them
 * — the state row (and its FTS5 rows) through StateTable and a history entry whose receipt holds
 * the public state — at a chosen commit time, so `asof` can be tested to the millisecond.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { compileContract } from "../../contracts/compile.ts";
import type { Schema } from "../../contracts/schema.ts";
import { generateKeyPair } from "../../shared/identity/index.ts";
import { collectionOf } from "../../shared/store/collections.ts";
import { migrate } from "../../shared/store/migrations.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { installArtifact } from "../../workers/engine/install.ts";
import { StateTable } from "../../workers/engine/state-table.ts";
import { createTenant } from "../../workers/engine/tenants.ts";
import { type QueryOutcome, runQuery } from "../../workers/gateway/reads/run-query.ts";

export interface QueryStore {
  readonly db: DatabaseSync;
  readonly dir: string;
  readonly schemas: Map<string, { artifact: string; schema: Schema }>;
  /** Installs a contract for a tenant (compiled with the tenant's other contracts resolvable). */
  install(tenant: string, source: string): { artifact: string; schema: Schema };
  /** Commits `state` (merged over the aggregate's defaults) for a subject at `time` (ms). */
  commit(tenant: string, namespace: string, aggregate: string, subject: string, state: Record<string, unknown>, time?: number): void;
  /** Runs a query; throws unless it answers rows. */
  rows(tenant: string, namespace: string, query: string, params?: Record<string, unknown>): Record<string, unknown>[];
  run(tenant: string, namespace: string, query: string, params?: Record<string, unknown>): QueryOutcome;
  close(): void;
}

export async function queryStore(tenants: readonly string[] = ["acme"]): Promise<QueryStore> {
  const dir = mkdtempSync(join(tmpdir(), "charter-queries-"));
  const db = openDatabase(join(dir, "charter.db"), { synchronous: "OFF" });
  migrate(db);
  const owner = generateKeyPair();
  for (const handle of tenants) {
    const created = await createTenant(db, { handle, owners: [owner.did], by: null, keysDir: join(dir, "keys"), now: 1 });
    if (!created.ok) throw new Error(created.error.message);
  }
  const schemas = new Map<string, { artifact: string; schema: Schema }>();
  const tables = new Map<string, StateTable>();
  const history = db.prepare(
    "INSERT INTO history (tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) " +
      "VALUES (?, ?, ?, ?, 'Test', 'did:key:test', ?, 'accepted', NULL, '{}', '', '', '', ?, ?)",
  );
  let clock = 1_000;
  const actives = new Map<string, { artifact: string; schema: Schema }>();
  const active = (tenant: string, namespace: string) => {
    const key = `${tenant}/${namespace}`;
    const known = actives.get(key);
    if (known !== undefined) return known;
    const row = db.prepare("SELECT i.artifact AS artifact, a.schema AS schema FROM installs i JOIN artifacts a ON a.id = i.artifact WHERE i.tenant = ? AND i.namespace = ? AND i.status = 'active'").get(tenant, namespace) as
      | { artifact: string; schema: string }
      | undefined;
    if (row === undefined) throw new Error(`${namespace} is not installed for ${tenant}`);
    const found = { artifact: row.artifact, schema: JSON.parse(row.schema) as Schema };
    actives.set(key, found);
    return found;
  };
  const store: QueryStore = {
    db,
    dir,
    schemas,
    install(tenant, source) {
      const compiled = compileContract(source, { resolveCollection: (name) => collectionOf(db, tenant, name) });
      if (compiled.artifact === undefined) throw new Error(`does not compile: ${JSON.stringify(compiled.diagnostics.map((d) => d.message))}`);
      const a = compiled.artifact;
      const r = installArtifact(db, { tenant, artifact: { id: a.id, schemaJson: new TextDecoder().decode(a.schemaBytes), wasm: a.wasm, source }, installedBy: owner.did, now: clock });
      if (!r.ok) throw new Error(r.error.message);
      actives.clear();
      schemas.set(a.schema.namespace, { artifact: a.id, schema: a.schema });
      return { artifact: a.id, schema: a.schema };
    },
    commit(tenant, namespace, aggregate, subject, partial, time) {
      const { artifact, schema } = active(tenant, namespace);
      const fields = schema.aggregates[aggregate]?.fields ?? [];
      const state: Record<string, unknown> = {};
      for (const f of fields) state[f.name] = Object.hasOwn(partial, f.name) ? partial[f.name] : structuredClone(f.default);
      const at = time ?? ++clock;
      const publicState = Object.fromEntries(fields.filter((f) => f.visibility === "public").map((f) => [f.name, state[f.name] ?? null]));
      const { lastInsertRowid: seq } = history.run(tenant, namespace, aggregate, subject, artifact, JSON.stringify({ state: publicState }), at);
      const key = `${artifact}/${aggregate}`;
      let table = tables.get(key);
      if (table === undefined) tables.set(key, (table = new StateTable(db, schema, aggregate)));
      // As the engine does: the state this table held, whose search text need not be written again.
      table.write(tenant, subject, artifact, Number(seq), state, table.read(tenant, subject)?.state ?? null);
    },
    run(tenant, namespace, query, params = {}) {
      const { artifact, schema } = active(tenant, namespace);
      return runQuery(db, schema, query, tenant, { ...params }, artifact);
    },
    rows(tenant, namespace, query, params = {}) {
      const out = store.run(tenant, namespace, query, params);
      if (!out.ok) throw new Error(`${query}: ${out.code} ${out.message} ${JSON.stringify(out.errors ?? [])}`);
      return out.rows.map((r) => ({ ...r }));
    },
    close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return store;
}
