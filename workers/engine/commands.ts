/**
 * @module The engine's write path for signed commands (design §3 steps 2–6): commands arriving
 * during one turn form a batch; the batch is planned (command-plan.ts: checks, programs run on the
 * executor pool grouped by subject, outcomes decided) and committed (command-commit.ts: one
 * transaction, one fsync for the whole batch — group commit). Answers go out after the commit.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Clock } from "../../shared/clock.ts";
import type { Receipt } from "../../shared/identity/index.ts";
import { problem } from "../../shared/problem.ts";
import type { CommandAnswer, SubmittedCommand } from "../../shared/protocol/engine.ts";
import type { ArtifactCache } from "./artifact-cache.ts";
import type { ContractEffects } from "./contract-effects.ts";
import { BatchCommitter, type CommitOptions, type CommitStamper, type Committed } from "./command-commit.ts";
import { type BatchPlan, BatchPlanner, type Pending, type PlanDeps, type PlannedCommand, type PlannedWrite } from "./command-plan.ts";
import type { ExecutorPool } from "./executor/pool.ts";

export type { Pending };
export { REFUSED_PAYLOAD_MAX } from "./command-commit.ts";
export { stateDigest } from "../../shared/store/state-digest.ts";

export interface CommandDeps {
  readonly db: DatabaseSync;
  readonly artifacts: ArtifactCache;
  readonly executor: Pick<ExecutorPool, "run">;
  readonly clock: Clock;
  readonly nodeDid: string;
  /** The caller's roles in a tenant, or null when the tenant does not exist. */
  readonly roles: PlanDeps["roles"];
  readonly onCommitted: (receipts: readonly Receipt[]) => void;
  /** Where accepted commands' contract-declared effects are queued (absent: none are). */
  readonly effects?: ContractEffects;
  /** A batch queued contract-declared effects (the outbox is told). */
  readonly onEffectsQueued?: () => void;
  /** What each commit added to each tenant's history (entries, bytes), for quotas. */
  readonly onUsage?: (usage: ReadonlyMap<string, { entries: number; bytes: number }>) => void;
  /** A batch failed to commit (the reason), or one committed again after failures (null): `/health` reports it. */
  readonly onCommitHealth?: (failure: string | null) => void;
  /** Most commands per batch. */
  readonly maxBatch?: number;
  /** Where commands of synced tenants are stamped for paired devices (absent: nothing syncs). */
  readonly stamper?: CommitStamper;
}

/** How one batch is applied. */
export interface BatchOptions extends CommitOptions {
  /** The batch's time (ms since the epoch): every command in it sees this `now`. */
  readonly now: number;
  /**
   * Replicated voters must not answer a failure that another voter might not have: a failed run or
   * commit throws instead of answering 500 (the engine stops and applies the entry again on restart).
   */
  readonly throwOnFailure?: boolean;
}

/** Answers every command of `plan`: each write with its answer in `answers`, a repeat as its original (marked replayed). */
function answerAll(plan: BatchPlan, answers: ReadonlyMap<PlannedWrite, CommandAnswer>): void {
  const answerOf = (c: PlannedCommand): CommandAnswer => {
    if (c.kind === "answer") return c.answer;
    if (c.kind === "repeat") {
      const original = answerOf(c.of);
      return original.kind === "receipt" ? { ...original, replayed: true } : original;
    }
    const answer = answers.get(c.write);
    if (answer === undefined) throw new Error(`no answer for the planned write of ${c.item.command.digest}`);
    return answer;
  };
  for (const c of plan.commands) c.item.resolve(answerOf(c));
}

export class CommandProcessor {
  readonly #deps: CommandDeps;
  readonly #queue: Pending[] = [];
  #scheduled = false;
  #running: Promise<void> = Promise.resolve();
  #lastTime = 0;
  /** Whether the last commit failed (so the next good one reports recovery). */
  #failing = false;
  readonly #planner: BatchPlanner;
  readonly #committer: BatchCommitter;

  constructor(deps: CommandDeps) {
    this.#deps = deps;
    this.#planner = new BatchPlanner(deps);
    this.#committer = new BatchCommitter(deps.db, deps.artifacts, deps.effects ?? null, deps.stamper ?? null);
  }

  /** Queues a command; resolves with its receipt or problem once its batch has committed. */
  submit(command: SubmittedCommand): Promise<CommandAnswer> {
    return new Promise((resolve) => {
      this.#queue.push({ command, resolve });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#pump());
      }
    });
  }

  /**
   * Runs `fn` between batches: after the batch in flight has committed and before the next one is
   * planned (installs and upgrades, so no batch straddles an artifact change).
   */
  exclusive<T>(fn: () => T): Promise<T> {
    const result = this.#running.then(fn);
    this.#running = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves once every queued command has been answered. */
  async drain(): Promise<void> {
    while (this.#queue.length > 0 || this.#scheduled) {
      this.#pump();
      await this.#running;
    }
    await this.#running;
  }

  #pump(): void {
    this.#scheduled = false;
    if (this.#queue.length === 0) return;
    // One batch at a time; commands arriving meanwhile wait and form the next batch.
    this.#running = this.#running.then(async () => {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#deps.maxBatch ?? 512);
        const now = Math.max(this.#lastTime, this.#deps.clock.now());
        this.#lastTime = now;
        await this.applyBatch(batch, { now, node: this.#deps.nodeDid });
      }
    });
  }

  /**
   * Plans and commits one batch as of `options.now`, answering each command. Deterministic: the same
   * batch on the same store gives the same history and states (replicated voters rely on it).
   * Resolves true when the batch wrote a transaction (false when nothing needed writing).
   */
  async applyBatch(batch: readonly Pending[], options: BatchOptions): Promise<boolean> {
    const plan = await this.#planner.plan(batch, options.now);
    if (plan.failure !== null && options.throwOnFailure === true) throw plan.failure;
    const writes = plan.commands.flatMap((c) => (c.kind === "write" ? [c.write] : []));
    // Nothing to write: every command already has its answer (a problem, a stored receipt).
    if (writes.length === 0) {
      answerAll(plan, new Map());
      return false;
    }
    let committed: Committed;
    try {
      committed = this.#committer.commit(plan, options);
    } catch (error) {
      this.#failing = true;
      this.#deps.onCommitHealth?.(`commits are failing: ${(error as Error).message}`);
      if (options.throwOnFailure === true) throw error;
      const failed: CommandAnswer = { kind: "problem", problem: problem(500, "internal", `the commit failed; nothing was recorded: ${(error as Error).message}`) };
      answerAll(plan, new Map(writes.map((w) => [w, failed])));
      return false;
    }
    answerAll(plan, committed.answers);
    if (this.#failing) {
      this.#failing = false;
      this.#deps.onCommitHealth?.(null);
    }
    if (committed.usage.size > 0) this.#deps.onUsage?.(committed.usage);
    if (committed.receipts.length > 0) this.#deps.onCommitted(committed.receipts);
    if (committed.effects > 0) this.#deps.onEffectsQueued?.();
    return true;
  }
}
