/**
 * @module The engine's sync operations, as the engine channel serves them to the sync worker:
 * start syncing a tenant, apply commands received from a paired device, record a device revoked
 * by the person's root key. Each runs between batches (the write path's `exclusive`), so no batch
 * of this node's own commands is decided on a state a merge is changing.
 */
import type { DatabaseSync } from "node:sqlite";
import type { KeyPair, Receipt } from "../../../shared/identity/index.ts";
import type { SyncApplied } from "../../../shared/protocol/engine.ts";
import type { Roles } from "../../../shared/store/roles.ts";
import { transaction } from "../../../shared/store/open.ts";
import type { VerifiedEntry } from "../../../shared/devices/entries.ts";
import type { ArtifactCache } from "../artifact-cache.ts";
import { BatchCommitter } from "../command-commit.ts";
import type { ExecGroup, StepResult } from "../executor/run-groups.ts";
import { SyncApplier } from "./sync-apply.ts";
import { SyncLog } from "./sync-log.ts";

export interface SyncEngineDeps {
  readonly db: DatabaseSync;
  readonly artifacts: ArtifactCache;
  readonly executor: { run(groups: readonly ExecGroup[]): Promise<StepResult[][]> };
  readonly nodeKey: KeyPair;
  readonly roles: (tenant: string, did: string, now: number) => Roles | null;
  /** Runs `fn` between the write path's batches. */
  readonly exclusive: <T>(fn: () => T) => Promise<Awaited<T>>;
  readonly now: () => number;
  /** Receipts of what a merge recorded (the engine tells the workers that watch commits). */
  readonly onCommitted: (receipts: readonly Receipt[]) => void;
  readonly onUsage?: (usage: ReadonlyMap<string, { entries: number; bytes: number }>) => void;
}

export class SyncEngine {
  readonly log: SyncLog;
  readonly #deps: SyncEngineDeps;
  readonly #applier: SyncApplier;

  constructor(deps: SyncEngineDeps) {
    this.#deps = deps;
    this.log = new SyncLog(deps.db, deps.nodeKey);
    this.#applier = new SyncApplier({
      db: deps.db,
      artifacts: deps.artifacts,
      executor: deps.executor,
      log: this.log,
      committer: new BatchCommitter(deps.db, deps.artifacts, null, this.log),
      roles: deps.roles,
      node: deps.nodeKey.did,
    });
  }

  /** Starts syncing `tenant`: its history so far is stamped as this node's. */
  enable(tenant: string): Promise<{ stamped: number }> {
    const { db } = this.#deps;
    return this.#deps.exclusive(() => {
      if (db.prepare("SELECT 1 FROM tenants WHERE handle = ?").get(tenant) === undefined) throw new Error(`no tenant '${tenant}'`);
      try {
        return { stamped: transaction(db, () => this.log.enable(tenant, this.#deps.now())) };
      } catch (error) {
        this.log.forget(tenant);
        throw error;
      }
    });
  }

  /** Applies commands received from a paired device (their stamps and signatures verified by the sync worker). */
  apply(tenant: string, entries: readonly VerifiedEntry[]): Promise<SyncApplied> {
    return this.#deps.exclusive(async () => {
      if (!this.log.enabled(tenant)) return { applied: 0, redecided: 0, conflicts: 0, held: { origin: "", oseq: 0, why: `tenant '${tenant}' does not sync` }, vv: {} };
      const result = await this.#applier.apply(tenant, entries, this.#deps.now());
      if (result.usage.size > 0) this.#deps.onUsage?.(result.usage);
      if (result.receipts.length > 0) this.#deps.onCommitted(result.receipts);
      return { applied: result.applied, redecided: result.redecided, conflicts: result.conflicts, held: result.held, vv: result.vv };
    });
  }

  /** Records `device` as revoked for `tenant` (its statement signed by the person's root key, checked by the caller). */
  revoke(tenant: string, device: string, statement: string): Promise<{ revoked: boolean }> {
    const { db } = this.#deps;
    return this.#deps.exclusive(() => {
      const r = db.prepare("INSERT OR IGNORE INTO sync_revoked (tenant, device, statement, at) VALUES (?, ?, ?, ?)").run(tenant, device, statement, this.#deps.now());
      return { revoked: Number(r.changes) > 0 };
    });
  }
}
