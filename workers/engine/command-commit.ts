/**
 * @module Committing a planned batch (design §3 step 6): one transaction adds every planned
 * history entry (accepted or refused, bound to its artifact) with the next `seq`, its idempotency
 * key, and each subject's final state — one fsync for the whole batch (group commit). The receipts
 * it makes are the answers, sent once the transaction has committed.
 */
import { hash } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { SchemaField } from "../../contracts/schema.ts";
import { stateDigest } from "../../shared/store/state-digest.ts";
import type { Receipt } from "../../shared/identity/index.ts";
import type { CommandAnswer } from "../../shared/protocol/engine.ts";
import type { ArtifactCache } from "./artifact-cache.ts";
import type { BatchPlan, PlannedWrite } from "./command-plan.ts";
import type { ContractEffects } from "./contract-effects.ts";
import type { LocalCommand } from "./merge/sync-log.ts";

/** How a plan is committed. */
export interface CommitOptions {
  /** The did:key named as `node` in the receipts. */
  readonly node: string;
  /** Runs inside the transaction, before COMMIT (a replicated voter records its applied index). */
  readonly inTransaction?: () => void;
  /** The connection's synchronous mode outside `memory` batches (a replicated voter's store runs NORMAL). */
  readonly synchronous?: "FULL" | "NORMAL";
  /**
   * The plan decides commands another device made (merge/sync-apply.ts): their effects were the
   * origin's to do, their idempotency keys may be known here already (a re-decision), they are not
   * stamped as this node's; `recorded` hears each write's seq in the transaction.
   */
  readonly synced?: { readonly recorded: (w: PlannedWrite, seq: number) => void };
}

/** Where commands committed here are stamped for paired devices (merge/sync-log.ts). */
export interface CommitStamper {
  stamp(c: LocalCommand): boolean;
  /** A transaction that stamped rolled back. */
  forget(): void;
}

/** What a commit wrote: each write's answer, the receipts, and what each tenant's history grew by. */
export interface Committed {
  readonly answers: ReadonlyMap<PlannedWrite, CommandAnswer>;
  readonly receipts: readonly Receipt[];
  readonly usage: ReadonlyMap<string, { entries: number; bytes: number }>;
  /** How many contract-declared effects the batch queued (contract-effects.ts). */
  readonly effects: number;
}

const sha256 = (text: string) => hash("sha256", text, "hex");

/**
 * The most characters of a refused command's arguments and JWS that history keeps. A refusal
 * changes nothing, so past this only a digest is kept: a caller who may not act cannot make the
 * node store megabytes per request (the receipt already names the command by its digest).
 */
export const REFUSED_PAYLOAD_MAX = 4096;

/** What history keeps of a command's arguments and JWS. */
function storedPayload(refused: boolean, argsJson: string, jws: string, digest: string): { args: string; command: string } {
  if (!refused) return { args: argsJson, command: jws };
  return {
    args: argsJson.length <= REFUSED_PAYLOAD_MAX ? argsJson : JSON.stringify({ omitted: { length: argsJson.length, sha256: sha256(argsJson) } }),
    command: jws.length <= REFUSED_PAYLOAD_MAX ? jws : `omitted:sha256:${digest}`,
  };
}


/** The public fields of a state, in declaration order (a receipt's `state`; a preview's). */
export function publicState(fields: readonly SchemaField[], state: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (f.visibility === "public") out[f.name] = state[f.name] ?? null;
  return out;
}

/** Commits plans to one store; its statements are compiled once. */
export class BatchCommitter {
  readonly #db: DatabaseSync;
  readonly #artifacts: Pick<ArtifactCache, "get">;
  readonly #maxSeq: StatementSync;
  readonly #insertHistory: StatementSync;
  readonly #insertKey: StatementSync;
  readonly #insertKeyIfNew: StatementSync;
  readonly #effects: ContractEffects | null;
  readonly #stamper: CommitStamper | null;

  /** `effects`: where accepted commands' declared effects are queued; null (a replicated voter) queues none. */
  constructor(db: DatabaseSync, artifacts: Pick<ArtifactCache, "get">, effects: ContractEffects | null = null, stamper: CommitStamper | null = null) {
    this.#db = db;
    this.#artifacts = artifacts;
    this.#effects = effects;
    this.#stamper = stamper;
    this.#maxSeq = db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM history");
    this.#insertHistory = db.prepare(
      "INSERT INTO history (seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.#insertKey = db.prepare("INSERT INTO idempotency (tenant, signer, key, payload_digest, seq) VALUES (?, ?, ?, ?, ?)");
    this.#insertKeyIfNew = db.prepare("INSERT OR IGNORE INTO idempotency (tenant, signer, key, payload_digest, seq) VALUES (?, ?, ?, ?, ?)");
  }

  /** Writes `plan` in one transaction; throws, after rolling back, when the store refuses it. */
  commit(plan: BatchPlan, options: CommitOptions): Committed {
    const db = this.#db;
    const writes = plan.commands.flatMap((c) => (c.kind === "write" ? [c.write] : []));
    const answers = new Map<PlannedWrite, CommandAnswer>();
    const receipts: Receipt[] = [];
    const usage = new Map<string, { entries: number; bytes: number }>();
    const seqOf = new Map<PlannedWrite, number>();
    // A batch of `durability memory` commands alone is not synced at its commit.
    const relaxed = writes.length > 0 && writes.every((w) => w.durability === "memory");
    const committedAt = new Date(plan.now).toISOString();
    let effects = 0;
    try {
      if (relaxed) db.exec("PRAGMA synchronous = OFF");
      db.exec("BEGIN IMMEDIATE");
      // Upgrades write history too (between batches): take the next seq from the store itself.
      let seq = Number((this.#maxSeq.get() as { seq: number }).seq);
      for (const w of writes) {
        seq += 1;
        seqOf.set(w, seq);
        const { receipt, json, bytes } = this.#record(w, seq, committedAt, options.node, plan.now, options.synced !== undefined);
        if (options.synced === undefined) {
          effects += this.#queueEffects(w, receipt, plan.now);
          this.#stamp(w, seq, plan.now);
        } else {
          options.synced.recorded(w, seq);
        }
        const added = usage.get(receipt.tenant) ?? { entries: 0, bytes: 0 };
        added.entries += 1;
        added.bytes += bytes;
        usage.set(receipt.tenant, added);
        answers.set(w, { kind: "receipt", receipt, json, replayed: false });
        receipts.push(receipt);
      }
      for (const s of plan.states) {
        this.#artifacts.get(s.artifact).tables.get(s.aggregate)?.write(s.tenant, s.subject, s.artifact, seqOf.get(s.last) as number, s.state, s.previous);
      }
      options.inTransaction?.();
      db.exec("COMMIT");
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      this.#stamper?.forget();
      throw error;
    } finally {
      if (relaxed) db.exec(`PRAGMA synchronous = ${options.synchronous ?? "FULL"}`);
    }
    return { answers, receipts, usage, effects };
  }

  /** Stamps a command of a synced tenant as this node's (merge/sync-log.ts). */
  #stamp(w: PlannedWrite, seq: number, now: number): void {
    if (this.#stamper === null) return;
    const c = w.command;
    const p = c.payload;
    this.#stamper.stamp({ tenant: p.tenant, namespace: p.namespace, aggregate: w.aggregate, subject: p.subject, action: p.action, jws: c.jws, digest: c.digest, reason: w.reason, seq, time: now });
  }

  /** Queues the effects an accepted command's action declares, in the open transaction (how many). */
  #queueEffects(w: PlannedWrite, receipt: Receipt, now: number): number {
    if (this.#effects === null || w.reason !== null) return 0;
    const p = w.command.payload;
    const declared = this.#artifacts.get(w.artifact).actions.get(p.action)?.effects;
    if (declared === undefined) return 0;
    return this.#effects.queue(
      declared,
      { args: p.args, state: w.after, signer: w.command.signer, time: now },
      { tenant: p.tenant, namespace: p.namespace, action: p.action, subject: p.subject, receipt: receipt.id, seq: receipt.seq },
    );
  }

  /** Adds one history entry and its idempotency key; answers its receipt and the bytes it stored. */
  #record(w: PlannedWrite, seq: number, committedAt: string, node: string, now: number, synced: boolean): { receipt: Receipt; json: string; bytes: number } {
    const c = w.command;
    const p = c.payload;
    const receipt: Receipt = {
      id: `rcpt_${sha256(`${seq}:${c.digest}`).slice(0, 32)}`,
      command: c.digest,
      seq,
      tenant: p.tenant,
      namespace: p.namespace,
      action: p.action,
      subject: p.subject,
      signer: c.signer,
      artifact: w.artifact,
      outcome: w.reason === null ? "accepted" : "refused",
      reason: w.reason,
      state: publicState(w.fields, w.after),
      committedAt,
      node,
    };
    const json = JSON.stringify(receipt);
    const beforeDigest = stateDigest(w.fields, w.before);
    const stored = storedPayload(w.reason !== null, JSON.stringify(p.args), c.jws, c.digest);
    this.#insertHistory.run(
      seq,
      p.tenant,
      p.namespace,
      w.aggregate,
      p.subject,
      p.action,
      c.signer,
      w.artifact,
      receipt.outcome,
      w.reason === null ? null : JSON.stringify(w.reason),
      stored.args,
      stored.command,
      beforeDigest,
      w.after === w.before ? beforeDigest : stateDigest(w.fields, w.after),
      json,
      now,
    );
    (synced ? this.#insertKeyIfNew : this.#insertKey).run(p.tenant, c.signer, p.idempotencyKey, w.payloadDigest, seq);
    return { receipt, json, bytes: stored.args.length + stored.command.length + json.length };
  }
}
