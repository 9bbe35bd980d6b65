/**
 * @module The engine's view of installed artifacts: the active artifact per (tenant, namespace),
 * each loaded once (its WebAssembly instantiated) and kept, with the per-aggregate state tables.
 */
import type { DatabaseSync } from "node:sqlite";
import { loadArtifact, type LoadedArtifact } from "../../contracts/runtime/index.ts";
import type { Schema, SchemaAction } from "../../contracts/schema.ts";
import { StateTable } from "./state-table.ts";

/** An installed, loaded artifact. */
export interface ActiveArtifact {
  readonly id: string;
  readonly schema: Schema;
  readonly program: LoadedArtifact;
  /** State tables by aggregate name. */
  readonly tables: ReadonlyMap<string, StateTable>;
  /** Actions by the name a command's path uses (the first aggregate's, when two share a name). */
  readonly actions: ReadonlyMap<string, SchemaAction>;
}

export class ArtifactCache {
  readonly #db: DatabaseSync;
  readonly #byId = new Map<string, ActiveArtifact>();
  readonly #active = new Map<string, string | null>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** The active artifact of `namespace` for `tenant`, or null when none is installed. */
  active(tenant: string, namespace: string): ActiveArtifact | null {
    const key = `${tenant}\u0000${namespace}`;
    let id = this.#active.get(key);
    if (id === undefined) {
      const row = this.#db.prepare("SELECT artifact FROM installs WHERE tenant = ? AND namespace = ? AND status = 'active'").get(tenant, namespace) as { artifact: string } | undefined;
      id = row?.artifact ?? null;
      this.#active.set(key, id);
    }
    return id === null ? null : this.get(id);
  }

  /** An artifact by id (installed for any tenant). */
  get(id: string): ActiveArtifact {
    let loaded = this.#byId.get(id);
    if (loaded === undefined) {
      const row = this.#db.prepare("SELECT schema, wasm FROM artifacts WHERE id = ?").get(id) as { schema: string; wasm: Uint8Array } | undefined;
      if (row === undefined) throw new Error(`artifact ${id} is not stored`);
      const program = loadArtifact({ schema: row.schema, wasm: row.wasm });
      const tables = new Map<string, StateTable>();
      for (const name of Object.keys(program.schema.aggregates)) tables.set(name, new StateTable(this.#db, program.schema, name));
      const actions = new Map<string, SchemaAction>();
      for (const action of Object.values(program.schema.actions)) if (!actions.has(action.name)) actions.set(action.name, action);
      loaded = { id, schema: program.schema, program, tables, actions };
      this.#byId.set(id, loaded);
    }
    return loaded;
  }

  /** Forgets which artifact is active for a tenant's namespace (after an install). */
  invalidate(tenant: string, namespace: string): void {
    this.#active.delete(`${tenant}\u0000${namespace}`);
  }

  /** Forgets every active-artifact lookup (the store was replaced by a snapshot). */
  invalidateAll(): void {
    this.#active.clear();
  }
}
