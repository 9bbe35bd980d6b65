/**
 * @module The engine's write path for signed commands (design §3 steps 2–6): commands arriving
 * during one turn form a batch; each is checked (namespace, action, exposure, caller, idempotency,
 * authorization), the batch runs on the executor pool grouped by subject, and one transaction
 * writes every new state, history entry (accepted or refused, bound to the artifact) and
 * idempotency key — one fsync for the whole batch (group commit). Answers go out after the commit.
 */
import { hash } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Reason } from "../../contracts/refusals.ts";
import type { SchemaAction, SchemaField } from "../../contracts/schema.ts";
import type { Clock } from "../../shared/clock.ts";
import type { Receipt } from "../../shared/identity/index.ts";
import { NOT_FOUND_FOR_CALLER, type Problem, problem } from "../../shared/problem.ts";
import type { CommandAnswer, SubmittedCommand } from "../../shared/protocol/engine.ts";
import type { ActiveArtifact, ArtifactCache } from "./artifact-cache.ts";
import type { ExecStep, StepResult } from "./executor/run-groups.ts";
import type { ExecutorPool } from "./executor/pool.ts";

/** What the engine knows of a caller in a tenant. */
export interface CallerRoles {
  readonly known: boolean;
  readonly owner: boolean;
  readonly member: boolean;
  readonly scopes: readonly string[];
}

export interface CommandDeps {
  readonly db: DatabaseSync;
  readonly artifacts: ArtifactCache;
  readonly executor: ExecutorPool;
  readonly clock: Clock;
  readonly nodeDid: string;
  /** The caller's roles in a tenant, or null when the tenant does not exist. */
  readonly roles: (tenant: string, did: string, now: number) => CallerRoles | null;
  readonly onCommitted: (receipts: readonly Receipt[]) => void;
  /** What each commit added to each tenant's history (entries, bytes), for quotas. */
  readonly onUsage?: (usage: ReadonlyMap<string, { entries: number; bytes: number }>) => void;
  /** A batch failed to commit (the reason), or one committed again after failures (null): `/health` reports it. */
  readonly onCommitHealth?: (failure: string | null) => void;
  /** Most commands per batch. */
  readonly maxBatch?: number;
}

/** A command waiting for its answer. */
export interface Pending {
  readonly command: SubmittedCommand;
  readonly resolve: (answer: CommandAnswer) => void;
}

/** How one batch is applied. */
export interface BatchOptions {
  /** The batch's time (ms since the epoch): every command in it sees this `now`. */
  readonly now: number;
  /** The did:key named as `node` in its receipts. */
  readonly node: string;
  /** Runs inside the batch's transaction, before COMMIT (a replicated voter records its applied index). */
  readonly inTransaction?: () => void;
  /**
   * Replicated voters must not answer a failure that another voter might not have: a failed run or
   * commit throws instead of answering 500 (the engine stops and applies the entry again on restart).
   */
  readonly throwOnFailure?: boolean;
  /** The connection's synchronous mode outside `memory` batches (a replicated voter's store runs NORMAL). */
  readonly synchronous?: "FULL" | "NORMAL";
}

/** A command that passed every check before execution, with where its result goes. */
interface Planned {
  readonly item: Pending;
  readonly artifact: ActiveArtifact;
  readonly action: SchemaAction;
  readonly payloadDigest: string;
  group: number;
  step: number;
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

/** The digest idempotency compares: everything a command asks for, not when it was signed. */
function payloadDigest(c: SubmittedCommand): string {
  const { tenant, namespace, action, subject, args } = c.payload;
  return sha256(JSON.stringify([tenant, namespace, action, subject, canonical(args)]));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** Digest of a whole state, fields in declaration order. */
export function stateDigest(fields: readonly SchemaField[], state: Record<string, unknown>): string {
  return sha256(JSON.stringify(fields.map((f) => state[f.name] ?? null)));
}

function publicState(fields: readonly SchemaField[], state: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (f.visibility === "public") out[f.name] = state[f.name] ?? null;
  return out;
}

function authorizationRefusal(action: SchemaAction, roles: CallerRoles): Reason | undefined {
  const mode = action.authorize as { mode: string; scope?: string };
  const allowed =
    mode.mode === "anyone" ||
    mode.mode === "field" ||
    (mode.mode === "member" && (roles.member || roles.owner)) ||
    (mode.mode === "owner" && roles.owner) ||
    (mode.mode === "delegate" && (roles.owner || roles.scopes.includes(mode.scope ?? "")));
  if (allowed) return undefined;
  const who = mode.mode === "delegate" ? `a holder of a delegation with scope ${mode.scope} or an owner` : mode.mode === "owner" ? "an owner of the tenant" : "a member or owner of the tenant";
  return { code: "unauthorized", condition: null, line: null, message: `only ${who} may do this` };
}

export class CommandProcessor {
  readonly #deps: CommandDeps;
  readonly #queue: Pending[] = [];
  #scheduled = false;
  #running: Promise<void> = Promise.resolve();
  #lastSeq: number;
  #lastTime = 0;
  /** Whether the last commit failed (so the next good one reports recovery). */
  #failing = false;
  readonly #insertHistory: StatementSync;
  readonly #insertKey: StatementSync;
  readonly #findKey: StatementSync;
  readonly #receiptAt: StatementSync;
  readonly #maxSeq: StatementSync;
  readonly #retired: StatementSync;

  constructor(deps: CommandDeps) {
    this.#deps = deps;
    const { db } = deps;
    this.#maxSeq = db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM history");
    this.#lastSeq = 0;
    this.#retired = db.prepare("SELECT 1 FROM installs WHERE tenant = ? AND namespace = ? AND status = 'retired'");
    this.#insertHistory = db.prepare(
      "INSERT INTO history (seq, tenant, namespace, aggregate, subject, action, signer, artifact, outcome, reason, args, command, before_digest, after_digest, receipt, committed_at) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.#insertKey = db.prepare("INSERT INTO idempotency (tenant, signer, key, payload_digest, seq) VALUES (?, ?, ?, ?, ?)");
    this.#findKey = db.prepare("SELECT payload_digest, seq FROM idempotency WHERE tenant = ? AND signer = ? AND key = ?");
    this.#receiptAt = db.prepare("SELECT receipt FROM history WHERE seq = ?");
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
   * Checks, runs and commits one batch as of `options.now`, answering each command. Deterministic:
   * the same batch on the same store gives the same history and states (replicated voters rely on
   * it). Resolves true when the batch wrote a transaction (false when nothing needed writing).
   */
  async applyBatch(batch: readonly Pending[], options: BatchOptions): Promise<boolean> {
    const { db, artifacts } = this.#deps;
    const now = options.now;
    const planned: Planned[] = [];
    const groups: { artifact: string; aggregate: string; tenant: string; subject: string; state: Record<string, unknown> | null; steps: ExecStep[] }[] = [];
    const groupOf = new Map<string, number>();
    const keysInBatch = new Map<string, { digest: string; planned: Planned }>();
    const replays: { item: Pending; of: Planned }[] = [];
    // A batch often holds many commands of one signer: ask the store for each caller's roles once.
    const rolesSeen = new Map<string, CallerRoles | null>();
    const rolesOf = (tenant: string, signer: string): CallerRoles | null => {
      const key = `${tenant}\u0000${signer}`;
      if (!rolesSeen.has(key)) rolesSeen.set(key, this.#deps.roles(tenant, signer, now));
      return rolesSeen.get(key) ?? null;
    };

    const plan = (item: Pending): void => {
      const c = item.command;
      const p = c.payload;
      const answer = (pr: Problem) => item.resolve({ kind: "problem", problem: pr });
      const roles = rolesOf(p.tenant, c.signer);
      // Only those the tenant knows learn which of tenant, namespace and action is missing; to anyone
      // else (and anyone can make a key) the three look the same (issue 16 #16).
      const missing = (precise: Problem) => answer(roles?.known === true ? precise : NOT_FOUND_FOR_CALLER);
      if (roles === null) {
        missing(problem(404, "unknown-tenant", `no tenant '${p.tenant}'`));
        return;
      }
      const artifact = artifacts.active(p.tenant, p.namespace);
      if (artifact === null) {
        const retired = this.#retired.get(p.tenant, p.namespace) !== undefined;
        missing(problem(404, "unknown-namespace", retired ? `namespace '${p.namespace}' is retired for tenant '${p.tenant}'` : `tenant '${p.tenant}' has no contract installed for namespace '${p.namespace}'`));
        return;
      }
      const action = artifact.actions.get(p.action);
      if (action === undefined || action.exposure === "internal") {
        // An internal action is not served: to the API it does not exist.
        missing(problem(404, "unknown-action", `namespace '${p.namespace}' has no action '${p.action}' served by the API`));
        return;
      }
      if (action.exposure === "authenticated" && !roles.known) {
        answer(problem(403, "unknown-caller", `${c.signer} is not known to tenant '${p.tenant}'; '${p.action}' requires an authenticated caller`));
        return;
      }
      const digest = payloadDigest(c);
      const key = `${p.tenant}\u0000${c.signer}\u0000${p.idempotencyKey}`;
      const earlier = keysInBatch.get(key);
      const stored = earlier === undefined ? (this.#findKey.get(p.tenant, c.signer, p.idempotencyKey) as { payload_digest: string; seq: number } | undefined) : undefined;
      const seenDigest = earlier?.digest ?? stored?.payload_digest;
      if (seenDigest !== undefined) {
        if (seenDigest !== digest) {
          answer(problem(409, "idempotency-conflict", `idempotency key '${p.idempotencyKey}' was already used by this signer for a different command`));
        } else if (earlier !== undefined) {
          replays.push({ item, of: earlier.planned });
        } else if (stored !== undefined) {
          const row = this.#receiptAt.get(stored.seq) as { receipt: string };
          item.resolve({ kind: "receipt", receipt: JSON.parse(row.receipt) as Receipt, json: row.receipt, replayed: true });
        }
        return;
      }
      const aggregate = action.aggregate;
      const groupKey = `${artifact.id}\u0000${aggregate}\u0000${p.subject}`;
      let g = groupOf.get(groupKey);
      if (g === undefined) {
        g = groups.length;
        groupOf.set(groupKey, g);
        const current = artifact.tables.get(aggregate)?.read(p.tenant, p.subject) ?? null;
        groups.push({ artifact: artifact.id, aggregate, tenant: p.tenant, subject: p.subject, state: current?.state ?? null, steps: [] });
      }
      const group = groups[g] as (typeof groups)[number];
      const refusal = authorizationRefusal(action, roles);
      const entry: Planned = { item, artifact, action, payloadDigest: digest, group: g, step: group.steps.length };
      group.steps.push({ action: `${aggregate}.${action.name}`, args: p.args, context: { signer: c.signer, time: now }, ...(refusal ? { refusal } : {}) });
      planned.push(entry);
      keysInBatch.set(key, { digest, planned: entry });
    };

    // The checks read the store once per command (roles, idempotency keys, current states): in one
    // read transaction, not one each (every transaction takes and drops the WAL's locks).
    db.exec("BEGIN");
    try {
      for (const item of batch) {
        try {
          plan(item);
        } catch (error) {
          // One command that breaks a check is answered alone; the batch goes on without it.
          // Deterministic (it depends on the command and the store), so every voter answers the same.
          const kind = error instanceof Error ? error.name : typeof error;
          item.resolve({ kind: "problem", problem: problem(500, "internal", `the engine could not check this command (${kind}); nothing was recorded`) });
        }
      }
    } finally {
      db.exec("COMMIT");
    }
    if (planned.length === 0) return false;

    let results: StepResult[][];
    try {
      results = await this.#deps.executor.run(groups);
    } catch (error) {
      if (options.throwOnFailure === true) throw error;
      const pr = problem(500, "internal", `the contract program failed to run: ${(error as Error).message}`);
      for (const x of planned) x.item.resolve({ kind: "problem", problem: pr });
      for (const r of replays) r.item.resolve({ kind: "problem", problem: pr });
      return false;
    }

    const answers = new Map<Planned, CommandAnswer>();
    const receipts: Receipt[] = [];
    const committedAt = new Date(now).toISOString();
    const relaxed = planned.every((x) => x.action.durability === "memory");
    const usage = new Map<string, { entries: number; bytes: number }>();
    let firstSeq = this.#lastSeq;
    try {
      if (relaxed) db.exec("PRAGMA synchronous = OFF");
      db.exec("BEGIN IMMEDIATE");
      // Upgrades write history too (between batches): take the next seq from the store itself.
      this.#lastSeq = Number((this.#maxSeq.get() as { seq: number }).seq);
      firstSeq = this.#lastSeq;
      const finalStates = new Map<number, { seq: number; state: Record<string, unknown> }>();
      for (const x of planned) {
        const result = (results[x.group] as StepResult[])[x.step] as StepResult;
        const c = x.item.command;
        const p = c.payload;
        if (result.kind === "bad-arguments") {
          answers.set(x, {
            kind: "problem",
            problem: problem(400, "bad-arguments", `the arguments of '${p.action}' do not match its parameters`, result.problems.map((e) => ({ pointer: `#/args/${e.field}`, detail: e.message }))),
          });
          continue;
        }
        const seq = ++this.#lastSeq;
        const fields = x.artifact.schema.aggregates[x.action.aggregate]?.fields ?? [];
        const accepted = result.outcome.outcome === "accepted";
        const reason = result.outcome.outcome === "refused" ? result.outcome.reason : null;
        const receipt: Receipt = {
          id: `rcpt_${sha256(`${seq}:${c.digest}`).slice(0, 32)}`,
          command: c.digest,
          seq,
          tenant: p.tenant,
          namespace: p.namespace,
          action: p.action,
          subject: p.subject,
          signer: c.signer,
          artifact: x.artifact.id,
          outcome: accepted ? "accepted" : "refused",
          reason,
          state: publicState(fields, result.after),
          committedAt,
          node: options.node,
        };
        const receiptJson = JSON.stringify(receipt);
        const beforeDigest = stateDigest(fields, result.before);
        const stored = storedPayload(!accepted, JSON.stringify(p.args), c.jws, c.digest);
        const added = usage.get(p.tenant) ?? { entries: 0, bytes: 0 };
        added.entries += 1;
        added.bytes += stored.args.length + stored.command.length + receiptJson.length;
        usage.set(p.tenant, added);
        this.#insertHistory.run(
          seq,
          p.tenant,
          p.namespace,
          x.action.aggregate,
          p.subject,
          p.action,
          c.signer,
          x.artifact.id,
          receipt.outcome,
          reason === null ? null : JSON.stringify(reason),
          stored.args,
          stored.command,
          beforeDigest,
          result.after === result.before ? beforeDigest : stateDigest(fields, result.after),
          receiptJson,
          now,
        );
        this.#insertKey.run(p.tenant, c.signer, p.idempotencyKey, x.payloadDigest, seq);
        if (accepted) finalStates.set(x.group, { seq, state: result.after });
        answers.set(x, { kind: "receipt", receipt, json: receiptJson, replayed: false });
        receipts.push(receipt);
      }
      // Each subject's state is written once, as its last accepted command left it.
      for (const [g, { seq, state }] of finalStates) {
        const group = groups[g] as (typeof groups)[number];
        artifacts.get(group.artifact).tables.get(group.aggregate)?.write(group.tenant, group.subject, group.artifact, seq, state, group.state);
      }
      options.inTransaction?.();
      db.exec("COMMIT");
    } catch (error) {
      if (db.isTransaction) db.exec("ROLLBACK");
      this.#lastSeq = firstSeq;
      this.#failing = true;
      this.#deps.onCommitHealth?.(`commits are failing: ${(error as Error).message}`);
      if (options.throwOnFailure === true) throw error;
      const pr = problem(500, "internal", `the commit failed; nothing was recorded: ${(error as Error).message}`);
      for (const x of planned) x.item.resolve({ kind: "problem", problem: pr });
      for (const r of replays) r.item.resolve({ kind: "problem", problem: pr });
      return false;
    } finally {
      if (relaxed) db.exec(`PRAGMA synchronous = ${options.synchronous ?? "FULL"}`);
    }
    for (const x of planned) x.item.resolve(answers.get(x) as CommandAnswer);
    for (const r of replays) {
      const original = answers.get(r.of) as CommandAnswer;
      r.item.resolve(original.kind === "receipt" ? { ...original, replayed: true } : original);
    }
    if (this.#failing) {
      this.#failing = false;
      this.#deps.onCommitHealth?.(null);
    }
    if (usage.size > 0) this.#deps.onUsage?.(usage);
    if (receipts.length > 0) this.#deps.onCommitted(receipts);
    return true;
  }
}
