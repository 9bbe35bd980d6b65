/**
 * @module Planning a batch of signed commands (design §3 steps 2–5): each command is checked
 * (tenant, namespace, action, exposure, caller, idempotency, authorization), the batch's programs
 * run on the executor grouped by subject, and each command's outcome is decided together with what
 * it would write. Nothing is written here: command-commit.ts writes a plan in one transaction.
 * Deterministic: the same batch on the same store gives the same plan (replicated voters rely on it).
 */
import { hash } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Reason } from "../../contracts/refusals.ts";
import type { State } from "../../contracts/runtime/index.ts";
import { delegatesTo, type SchemaAction, type SchemaField } from "../../contracts/schema.ts";
import { NOT_FOUND_FOR_CALLER, type Problem, problem } from "../../shared/problem.ts";
import type { CommandAnswer, SubmittedCommand } from "../../shared/protocol/engine.ts";
import type { Receipt } from "../../shared/identity/index.ts";
import type { ActiveArtifact, ArtifactCache } from "./artifact-cache.ts";
import type { ExecGroup, ExecStep, StepResult } from "./executor/run-groups.ts";
import type { Roles } from "../../shared/store/roles.ts";

/** A command waiting for its answer. */
export interface Pending {
  readonly command: SubmittedCommand;
  readonly resolve: (answer: CommandAnswer) => void;
}

/** What planning reads: the store, the installed artifacts, callers' roles, and the executor that runs programs. */
export interface PlanDeps {
  readonly db: DatabaseSync;
  readonly artifacts: Pick<ArtifactCache, "active">;
  readonly executor: { run(groups: readonly ExecGroup[]): Promise<StepResult[][]> };
  /** The caller's roles in a tenant, or null when the tenant does not exist. */
  readonly roles: (tenant: string, did: string, now: number) => Roles | null;
}

/** The history entry one command adds (its `seq` and receipt are made when it commits). */
export interface PlannedWrite {
  readonly command: SubmittedCommand;
  readonly artifact: string;
  readonly aggregate: string;
  /** The aggregate's fields, in declaration order (digests and the receipt's public state). */
  readonly fields: readonly SchemaField[];
  readonly durability: SchemaAction["durability"];
  /** The digest idempotency compares (`payloadDigest`). */
  readonly payloadDigest: string;
  readonly reason: Reason | null;
  readonly before: State;
  /** The state after it: `before` itself when refused. */
  readonly after: State;
}

/** What was decided for one command of the batch. */
export type PlannedCommand =
  /** Answered without writing: a problem, or the receipt of the command committed earlier under its idempotency key. */
  | { readonly kind: "answer"; readonly item: Pending; readonly answer: CommandAnswer }
  /** Decided (accepted or refused): one history entry. */
  | { readonly kind: "write"; readonly item: Pending; readonly write: PlannedWrite }
  /** The same command as an earlier one of this batch (same signer and idempotency key): answered as it is. */
  | { readonly kind: "repeat"; readonly item: Pending; readonly of: PlannedCommand };

/** A subject's record as the batch leaves it: the state its last accepted command made. */
export interface PlannedState {
  readonly tenant: string;
  readonly artifact: string;
  readonly aggregate: string;
  readonly subject: string;
  /** The stored state before the batch (null: no record yet). */
  readonly previous: State | null;
  readonly state: State;
  /** The write whose `seq` the record carries. */
  readonly last: PlannedWrite;
}

/** A batch, planned. */
export interface BatchPlan {
  /** The batch's time (ms since the epoch): every command in it saw this `now`. */
  readonly now: number;
  /** One decision per command, in batch order. */
  readonly commands: readonly PlannedCommand[];
  readonly states: readonly PlannedState[];
  /** Why the programs could not run (every command that needed them is answered 500), or null. */
  readonly failure: Error | null;
}

const sha256 = (text: string) => hash("sha256", text, "hex");

/** The digest idempotency compares: everything a command asks for, not when it was signed. */
export function payloadDigest(c: SubmittedCommand): string {
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

/** Why the engine refuses `roles` the action before running it (`field` is the program's to check), or undefined. */
export function authorizationRefusal(action: SchemaAction, roles: Roles): Reason | undefined {
  const auth = action.authorize;
  let who: string;
  switch (auth.mode) {
    case "anyone":
      // Anyone who may call it: on an authenticated action that is the tenant's owners and members,
      // never a delegate (a delegate acts only through the actions delegated to its scope).
      if (action.exposure !== "authenticated" || roles.member) return undefined;
      who = "a member or owner of the tenant (a delegate acts only through the actions delegated to its scope)";
      break;
    case "field":
      return undefined;
    case "member":
      if (roles.member) return undefined;
      who = "a member or owner of the tenant";
      break;
    case "owner":
      if (roles.owner) return undefined;
      who = "an owner of the tenant";
      break;
    case "delegate":
      // An owner holds every delegation.
      if (roles.owner || roles.scopes.includes(auth.scope)) return undefined;
      who = `a holder of a delegation with scope ${auth.scope} or an owner`;
      break;
    default:
      return auth satisfies never;
  }
  return { code: "unauthorized", condition: null, line: null, message: `only ${who} may do this` };
}

/** A command that passed every check, and where its step sits among the groups the executor runs. */
interface ToRun {
  readonly item: Pending;
  readonly artifact: ActiveArtifact;
  readonly action: SchemaAction;
  readonly payloadDigest: string;
  readonly group: number;
  readonly step: number;
}

/** A command after the checks: answered, to run, or a repeat of one to run. */
type Checked = { readonly item: Pending; readonly answer: CommandAnswer } | { readonly item: Pending; readonly run: ToRun } | { readonly item: Pending; readonly repeat: ToRun };

interface Group extends ExecGroup {
  readonly tenant: string;
  readonly subject: string;
  readonly steps: ExecStep[];
}

/** Plans batches against one store; its statements are compiled once. */
export class BatchPlanner {
  readonly #deps: PlanDeps;
  readonly #retired: StatementSync;
  readonly #findKey: StatementSync;
  readonly #receiptAt: StatementSync;

  constructor(deps: PlanDeps) {
    this.#deps = deps;
    const { db } = deps;
    this.#retired = db.prepare("SELECT 1 FROM installs WHERE tenant = ? AND namespace = ? AND status = 'retired'");
    this.#findKey = db.prepare("SELECT payload_digest, seq FROM idempotency WHERE tenant = ? AND signer = ? AND key = ?");
    this.#receiptAt = db.prepare("SELECT receipt FROM history WHERE seq = ?");
  }

  /** Checks every command of `batch` as of `now`, runs those that pass, and decides each one's outcome. */
  async plan(batch: readonly Pending[], now: number): Promise<BatchPlan> {
    const groups: Group[] = [];
    const checked = this.#check(batch, now, groups);
    const toRun = checked.filter((c): c is Extract<Checked, { run: ToRun }> => "run" in c);
    if (toRun.length === 0) return { now, commands: checked.map((c) => decided(c, new Map())), states: [], failure: null };
    let results: StepResult[][];
    try {
      results = await this.#deps.executor.run(groups);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      const pr = problem(500, "internal", `the contract program failed to run: ${failure.message}`);
      const failed = new Map(toRun.map((c) => [c.run, { kind: "answer", item: c.item, answer: { kind: "problem", problem: pr } } as PlannedCommand]));
      return { now, commands: checked.map((c) => decided(c, failed)), states: [], failure };
    }
    const outcomes = new Map<ToRun, PlannedCommand>();
    const last = new Map<number, PlannedWrite>();
    for (const { item, run } of toRun) {
      const result = (results[run.group] as StepResult[])[run.step] as StepResult;
      const p = item.command.payload;
      if (result.kind === "bad-arguments") {
        const details = result.problems.map((e) => ({ pointer: `#/args/${e.field}`, detail: e.message }));
        outcomes.set(run, { kind: "answer", item, answer: { kind: "problem", problem: problem(400, "bad-arguments", `the arguments of '${p.action}' do not match its parameters`, details) } });
        continue;
      }
      const write: PlannedWrite = {
        command: item.command,
        artifact: run.artifact.id,
        aggregate: run.action.aggregate,
        fields: run.artifact.schema.aggregates[run.action.aggregate]?.fields ?? [],
        durability: run.action.durability,
        payloadDigest: run.payloadDigest,
        reason: result.outcome.outcome === "refused" ? result.outcome.reason : null,
        before: result.before,
        after: result.after,
      };
      if (write.reason === null) last.set(run.group, write);
      outcomes.set(run, { kind: "write", item, write });
    }
    // Each subject's state is written once, as its last accepted command left it.
    const states = [...last].map(([g, write]): PlannedState => {
      const group = groups[g] as Group;
      return { tenant: group.tenant, artifact: group.artifact, aggregate: group.aggregate, subject: group.subject, previous: group.state, state: write.after, last: write };
    });
    return { now, commands: checked.map((c) => decided(c, outcomes)), states, failure: null };
  }

  /**
   * The checks, in one read transaction (they read the store once per command: roles, idempotency
   * keys, current states; every transaction takes and drops the WAL's locks). Fills `groups` with
   * the steps the executor will run.
   */
  #check(batch: readonly Pending[], now: number, groups: Group[]): Checked[] {
    const { db } = this.#deps;
    const out: Checked[] = [];
    const state: CheckState = { now, groups, groupOf: new Map(), keys: new Map(), roles: new Map() };
    db.exec("BEGIN");
    try {
      for (const item of batch) {
        try {
          out.push(this.#checkOne(item, state));
        } catch (error) {
          // One command that breaks a check is answered alone; the batch goes on without it.
          // Deterministic (it depends on the command and the store), so every voter answers the same.
          const kind = error instanceof Error ? error.name : typeof error;
          out.push({ item, answer: { kind: "problem", problem: problem(500, "internal", `the engine could not check this command (${kind}); nothing was recorded`) } });
        }
      }
    } finally {
      db.exec("COMMIT");
    }
    return out;
  }

  #checkOne(item: Pending, s: CheckState): Checked {
    const c = item.command;
    const p = c.payload;
    const answer = (pr: Problem): Checked => ({ item, answer: { kind: "problem", problem: pr } });
    // A batch often holds many commands of one signer: ask the store for each caller's roles once.
    const rolesKey = `${p.tenant}\u0000${c.signer}`;
    if (!s.roles.has(rolesKey)) s.roles.set(rolesKey, this.#deps.roles(p.tenant, c.signer, s.now));
    const roles = s.roles.get(rolesKey) ?? null;
    // Only the tenant's owners and members learn which of tenant, namespace and action is missing;
    // to anyone else (and anyone can make a key) the three look the same.
    const missing = (precise: Problem) => answer(roles?.member === true ? precise : NOT_FOUND_FOR_CALLER);
    if (roles === null) return missing(problem(404, "unknown-tenant", `no tenant '${p.tenant}'`));
    const artifact = this.#deps.artifacts.active(p.tenant, p.namespace);
    if (artifact === null) {
      const retired = this.#retired.get(p.tenant, p.namespace) !== undefined;
      return missing(problem(404, "unknown-namespace", retired ? `namespace '${p.namespace}' is retired for tenant '${p.tenant}'` : `tenant '${p.tenant}' has no contract installed for namespace '${p.namespace}'`));
    }
    const action = artifact.actions.get(p.action);
    // An internal action is not served: to the API it does not exist.
    if (action === undefined || action.exposure === "internal") return missing(problem(404, "unknown-action", `namespace '${p.namespace}' has no action '${p.action}' served by the API`));
    // A delegate acts only in a contract that delegates to one of its scopes; elsewhere it is a stranger.
    if (action.exposure === "authenticated" && !(roles.member || delegatesTo(artifact.schema, roles.scopes))) {
      return answer(problem(403, "unknown-caller", `${c.signer} is not known to tenant '${p.tenant}' for ${p.namespace}; '${p.action}' requires an authenticated caller`));
    }
    const digest = payloadDigest(c);
    const key = `${p.tenant}\u0000${c.signer}\u0000${p.idempotencyKey}`;
    const earlier = s.keys.get(key);
    const stored = earlier === undefined ? (this.#findKey.get(p.tenant, c.signer, p.idempotencyKey) as { payload_digest: string; seq: number } | undefined) : undefined;
    const seenDigest = earlier?.payloadDigest ?? stored?.payload_digest;
    if (seenDigest !== undefined) {
      if (seenDigest !== digest) return answer(problem(409, "idempotency-conflict", `idempotency key '${p.idempotencyKey}' was already used by this signer for a different command`));
      if (earlier !== undefined) return { item, repeat: earlier };
      const row = this.#receiptAt.get((stored as { seq: number }).seq) as { receipt: string };
      return { item, answer: { kind: "receipt", receipt: JSON.parse(row.receipt) as Receipt, json: row.receipt, replayed: true } };
    }
    const aggregate = action.aggregate;
    const groupKey = `${artifact.id}\u0000${aggregate}\u0000${p.subject}`;
    let g = s.groupOf.get(groupKey);
    if (g === undefined) {
      g = s.groups.length;
      s.groupOf.set(groupKey, g);
      const current = artifact.tables.get(aggregate)?.read(p.tenant, p.subject) ?? null;
      s.groups.push({ artifact: artifact.id, aggregate, tenant: p.tenant, subject: p.subject, state: current?.state ?? null, steps: [] });
    }
    const group = s.groups[g] as Group;
    const refusal = authorizationRefusal(action, roles);
    const run: ToRun = { item, artifact, action, payloadDigest: digest, group: g, step: group.steps.length };
    group.steps.push({ action: `${aggregate}.${action.name}`, args: p.args, context: { signer: c.signer, time: s.now }, ...(refusal ? { refusal } : {}) });
    s.keys.set(key, run);
    return { item, run };
  }
}

/** What the checks of one batch remember between its commands. */
interface CheckState {
  readonly now: number;
  readonly groups: Group[];
  readonly groupOf: Map<string, number>;
  /** Idempotency keys already used in this batch. */
  readonly keys: Map<string, ToRun>;
  readonly roles: Map<string, Roles | null>;
}

function decided(c: Checked, outcomes: ReadonlyMap<ToRun, PlannedCommand>): PlannedCommand {
  if ("answer" in c) return { kind: "answer", item: c.item, answer: c.answer };
  if ("run" in c) return outcomes.get(c.run) as PlannedCommand;
  return { kind: "repeat", item: c.item, of: outcomes.get(c.repeat) as PlannedCommand };
}
