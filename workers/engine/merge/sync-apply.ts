/**
 * @module Applying commands another device made (docs: README "Paired devices"). Every device holds
 * a set of synced commands and decides each one by running the contract programs over them in the
 * merged order (shared/devices/entries.ts `compareEntries`), record by record, so devices that hold
 * the same commands hold the same history outcomes and the same states. Received commands that
 * sort after everything a record already has are run on its current state; when one sorts before
 * commands already decided (it was made apart, earlier), the record is decided again from its first
 * command, and every command whose outcome changes gets a new history entry saying so.
 *
 * Per action, its `merge` mode:
 * - `replay`: run against the merged state; a command accepted where it was made that no longer
 *   holds is refused with `merge_conflict` (the reason says why);
 * - `commute`: the same (the compiler proved its changes add up in any order);
 * - `reject`: also refused with `merge_conflict` when the record was changed meanwhile by a command
 *   its device had not seen; the first change is kept and the refused one is a conflict for the
 *   person to settle (std.sync).
 *
 * A command refused where it was made stays refused, with its reason, everywhere. A command's
 * `context.time` is its origin's commit time. Effects (email, documents) are the origin's to do,
 * never repeated here.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { type Reason, refusals } from "../../../contracts/refusals.ts";
import type { State } from "../../../contracts/runtime/index.ts";
import type { SchemaAction } from "../../../contracts/schema.ts";
import type { Receipt } from "../../../shared/identity/index.ts";
import type { SubmittedCommand } from "../../../shared/protocol/engine.ts";
import type { Roles } from "../../../shared/store/roles.ts";
import { compareEntries, type EntryRow, sawEntry, toEntry, type VerifiedEntry, type VersionVector } from "../../../shared/devices/entries.ts";
import type { ActiveArtifact, ArtifactCache } from "../artifact-cache.ts";
import type { BatchCommitter } from "../command-commit.ts";
import { authorizationRefusal, type PlannedCommand, type PlannedState, type PlannedWrite, payloadDigest } from "../command-plan.ts";
import type { ExecGroup, StepResult } from "../executor/run-groups.ts";
import type { SyncLog } from "./sync-log.ts";

/** What applying a batch of received commands did. */
export interface ApplyResult {
  /** Commands recorded here for the first time. */
  readonly applied: number;
  /** Commands already here whose outcome the merge changed. */
  readonly redecided: number;
  /** Conflicts recorded (merge reject). */
  readonly conflicts: number;
  /** Why an origin's commands stopped short (a gap, a contract not installed here, a revoked device), or null. */
  readonly held: { readonly origin: string; readonly oseq: number; readonly why: string } | null;
  readonly receipts: readonly Receipt[];
  /** What the batch added to each tenant's history. */
  readonly usage: ReadonlyMap<string, { entries: number; bytes: number }>;
  /** This store's version vector after it. */
  readonly vv: VersionVector;
}

export interface SyncApplyDeps {
  readonly db: DatabaseSync;
  readonly artifacts: Pick<ArtifactCache, "active" | "get">;
  readonly executor: { run(groups: readonly ExecGroup[]): Promise<StepResult[][]> };
  readonly log: SyncLog;
  readonly committer: BatchCommitter;
  readonly roles: (tenant: string, did: string, now: number) => Roles | null;
  readonly node: string;
}

/** One command of a record's run: received now, or held already. */
interface RunItem {
  readonly entry: VerifiedEntry;
  readonly action: SchemaAction;
  /** The outcome held for it before this batch (null: received now). */
  readonly held: { readonly reason: string | null } | null;
}

interface StoredRow extends EntryRow {
  digest: string;
  action: string;
  reason: string | null;
}

export class SyncApplier {
  readonly #deps: SyncApplyDeps;
  readonly #later: StatementSync;
  readonly #all: StatementSync;
  readonly #update: StatementSync;
  readonly #conflict: StatementSync;
  readonly #unconflict: StatementSync;
  readonly #revoked: StatementSync;

  constructor(deps: SyncApplyDeps) {
    this.#deps = deps;
    const { db } = deps;
    const subject = "tenant = ? AND namespace = ? AND aggregate = ? AND subject = ?";
    this.#later = db.prepare(`SELECT 1 FROM sync_entries WHERE ${subject} AND (lamport > ? OR (lamport = ? AND (origin > ? OR (origin = ? AND oseq > ?)))) LIMIT 1`);
    this.#all = db.prepare(`SELECT origin, oseq, lamport, time, seen, first_outcome, first_reason, jws, stamp, digest, action, reason FROM sync_entries WHERE ${subject} ORDER BY lamport, origin, oseq`);
    this.#update = db.prepare("UPDATE sync_entries SET outcome = ?, reason = ?, seq = ? WHERE tenant = ? AND origin = ? AND oseq = ?");
    this.#conflict = db.prepare(
      "INSERT INTO sync_conflicts (id, tenant, namespace, aggregate, subject, action, signer, args, against, origin, oseq, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT (id) DO UPDATE SET against = excluded.against",
    );
    this.#unconflict = db.prepare("DELETE FROM sync_conflicts WHERE id = ?");
    this.#revoked = db.prepare("SELECT device FROM sync_revoked WHERE tenant = ?");
  }

  /** Applies received commands of `tenant` as of `now` (call between batches: the engine's `exclusive`). */
  async apply(tenant: string, received: readonly VerifiedEntry[], now: number): Promise<ApplyResult> {
    const { log, artifacts } = this.#deps;
    if (!log.enabled(tenant)) throw new Error(`tenant '${tenant}' does not sync`);
    const clock = log.clock(tenant);
    const revoked = new Set((this.#revoked.all(tenant) as { device: string }[]).map((r) => r.device));
    const next = new Map<string, number>();
    const stopped = new Set<string>();
    let held: ApplyResult["held"] = null;
    const groups = new Map<string, { artifact: ActiveArtifact; aggregate: string; subject: string; namespace: string; items: RunItem[] }>();
    for (const e of [...received].sort(compareEntries)) {
      if (e.origin === log.origin || stopped.has(e.origin)) continue;
      const expected = next.get(e.origin) ?? (clock.vv[e.origin] ?? 0) + 1;
      if (e.oseq < expected) continue;
      const stop = (why: string) => {
        stopped.add(e.origin);
        held ??= { origin: e.origin, oseq: e.oseq, why };
      };
      if (revoked.has(e.origin)) {
        stop(`${e.origin} is a revoked device`);
        continue;
      }
      if (e.oseq > expected) {
        stop(`commands ${expected}–${e.oseq - 1} of ${e.origin} have not arrived`);
        continue;
      }
      const p = e.payload;
      const artifact = artifacts.active(tenant, p.namespace);
      const action = artifact?.actions.get(p.action);
      if (artifact === null || action === undefined || action.exposure === "internal") {
        stop(`${p.namespace} ${p.action} is not installed here`);
        continue;
      }
      next.set(e.origin, e.oseq + 1);
      const key = `${p.namespace}\u0000${action.aggregate}\u0000${p.subject}`;
      let g = groups.get(key);
      if (g === undefined) {
        g = { artifact, aggregate: action.aggregate, subject: p.subject, namespace: p.namespace, items: [] };
        groups.set(key, g);
      }
      g.items.push({ entry: e, action, held: null });
    }
    const commands: PlannedCommand[] = [];
    const states: PlannedState[] = [];
    const newConflicts: { item: RunItem; against: string; namespace: string; aggregate: string }[] = [];
    const cleared: string[] = [];
    const removals: (() => void)[] = [];
    const redecided = new Map<PlannedWrite, RunItem>();
    const fresh = new Map<PlannedWrite, RunItem>();
    for (const g of groups.values()) {
      const decided = await this.#decide(tenant, g, now);
      for (const d of decided.items) {
        if (d.against !== null) newConflicts.push({ item: d.item, against: d.against, namespace: g.namespace, aggregate: g.aggregate });
        else if (d.item.held !== null) cleared.push(d.item.entry.digest);
        if (d.write === null) continue;
        commands.push({ kind: "write", item: { command: d.write.command, resolve: () => {} }, write: d.write });
        (d.item.held === null ? fresh : redecided).set(d.write, d.item);
      }
      if (decided.state !== null) states.push(decided.state);
      if (decided.remove !== null) removals.push(decided.remove);
    }
    if (commands.length === 0) return { applied: 0, redecided: 0, conflicts: 0, held, receipts: [], usage: new Map(), vv: { ...clock.vv } };
    const committed = this.#deps.committer.commit(
      { now, commands, states, failure: null },
      {
        node: this.#deps.node,
        synced: {
          recorded: (w, seq) => {
            const item = fresh.get(w);
            const reason = w.reason === null ? null : JSON.stringify(w.reason);
            if (item !== undefined) {
              const e = item.entry;
              log.record(tenant, { ...e, namespace: e.payload.namespace, aggregate: item.action.aggregate, subject: e.payload.subject, action: e.payload.action }, { reason: w.reason, seq });
            } else {
              const e = (redecided.get(w) as RunItem).entry;
              this.#update.run(reason === null ? "accepted" : "refused", reason, seq, tenant, e.origin, e.oseq);
            }
          },
        },
        inTransaction: () => {
          for (const c of newConflicts) {
            const e = c.item.entry;
            this.#conflict.run(e.digest, tenant, c.namespace, c.aggregate, e.payload.subject, e.payload.action, e.signer, JSON.stringify(e.payload.args), c.against, e.origin, e.oseq, now);
          }
          for (const id of cleared) this.#unconflict.run(id);
          for (const remove of removals) remove();
        },
      },
    );
    return { applied: fresh.size, redecided: redecided.size, conflicts: newConflicts.length, held, receipts: committed.receipts, usage: committed.usage, vv: { ...clock.vv } };
  }

  /** Decides one record's run: what to write for each command, and the record's state after it. */
  async #decide(
    tenant: string,
    g: { artifact: ActiveArtifact; aggregate: string; subject: string; namespace: string; items: RunItem[] },
    now: number,
  ): Promise<{ items: { item: RunItem; write: PlannedWrite | null; against: string | null }[]; state: PlannedState | null; remove: (() => void) | null }> {
    const first = g.items[0]?.entry as VerifiedEntry;
    const table = g.artifact.tables.get(g.aggregate);
    const stored = table?.read(tenant, g.subject) ?? null;
    const later = this.#later.get(tenant, g.namespace, g.aggregate, g.subject, first.lamport, first.lamport, first.origin, first.origin, first.oseq) !== undefined;
    // Decided again from the record's first command when a received one sorts among those held (or
    // a `merge reject` one must be compared with every change before it); else run on from the state.
    const full = later || g.items.some((i) => i.action.merge === "reject");
    const run: RunItem[] = full ? [...this.#held(tenant, g), ...g.items].sort((a, b) => compareEntries(a.entry, b.entry)) : g.items;
    const reject = run.some((i) => i.action.merge === "reject");
    const base: State | null = full ? null : (stored?.state ?? null);
    const preset = new Map<number, { reason: Reason; against: string | null }>();
    run.forEach((item, i) => {
      const e = item.entry;
      if (e.reason !== null) {
        preset.set(i, { reason: e.reason as Reason, against: null });
        return;
      }
      const roles = this.#deps.roles(tenant, e.signer, now);
      const refusal = roles === null ? refusals.mergeConflict(null, null) : authorizationRefusal(item.action, roles);
      if (refusal !== undefined) preset.set(i, { reason: refusal, against: null });
    });
    let results: StepResult[];
    for (;;) {
      const steps = run.map((item, i) => {
        const e = item.entry;
        const refusal = preset.get(i)?.reason;
        return { action: `${g.aggregate}.${e.payload.action}`, args: e.payload.args, context: { signer: e.signer, time: e.time }, ...(refusal === undefined ? {} : { refusal }) };
      });
      results = ((await this.#deps.executor.run([{ artifact: g.artifact.id, aggregate: g.aggregate, state: base, steps }])) as StepResult[][])[0] as StepResult[];
      const clash = reject ? firstClash(run, results, preset) : null;
      if (clash === null) break;
      preset.set(clash.index, { reason: refusals.mergeConflict(null, clash.against), against: clash.against });
    }
    const fields = g.artifact.schema.aggregates[g.aggregate]?.fields ?? [];
    const out: { item: RunItem; write: PlannedWrite | null; against: string | null }[] = [];
    let state: State | null = base;
    let accepted = false;
    let last: PlannedWrite | null = null;
    run.forEach((item, i) => {
      const r = results[i] as StepResult;
      const before = state ?? (r.kind === "decided" ? r.before : ({} as State));
      let reason: Reason | null;
      let after: State = before;
      if (r.kind === "bad-arguments") reason = { code: "merge_conflict", condition: null, line: null, message: "after merging with another device: its arguments no longer match the action's parameters" };
      else {
        reason = r.outcome.outcome === "refused" ? r.outcome.reason : null;
        after = r.after;
      }
      const p = preset.get(i);
      if (item.entry.reason === null && reason !== null && reason.code !== "merge_conflict") reason = refusals.mergeConflict(reason, null);
      if (reason === null) accepted = true;
      state = reason === null ? after : before;
      const changed = item.held === null || item.held.reason !== (reason === null ? null : JSON.stringify(reason));
      let write: PlannedWrite | null = null;
      if (changed) {
        write = { command: commandOf(item.entry), artifact: g.artifact.id, aggregate: g.aggregate, fields, durability: item.action.durability, payloadDigest: payloadDigest(commandOf(item.entry)), reason, before, after: reason === null ? after : before };
        last = write;
      }
      out.push({ item, write, against: p?.against ?? null });
    });
    const lastWrite = last as PlannedWrite | null;
    // Decided again from nothing and no command of it holds now: the record goes (a refused command never makes one).
    if (full && !accepted && stored !== null && table !== undefined) return { items: out, state: null, remove: () => table.remove(tenant, g.subject, stored.state) };
    const keep = lastWrite !== null && state !== null && (accepted || stored !== null);
    return { items: out, remove: null, state: keep ? { tenant, artifact: g.artifact.id, aggregate: g.aggregate, subject: g.subject, previous: stored?.state ?? null, state: state as State, last: lastWrite } : null };
  }

  /** The commands a record already holds, as run items. */
  #held(tenant: string, g: { artifact: ActiveArtifact; aggregate: string; subject: string; namespace: string }): RunItem[] {
    const out: RunItem[] = [];
    for (const r of this.#all.all(tenant, g.namespace, g.aggregate, g.subject) as unknown as StoredRow[]) {
      const action = g.artifact.actions.get(r.action);
      const payload = JSON.parse(Buffer.from(r.jws.split(".")[1] as string, "base64url").toString("utf8")) as VerifiedEntry["payload"];
      const header = JSON.parse(Buffer.from(r.jws.split(".")[0] as string, "base64url").toString("utf8")) as { kid: string };
      if (action === undefined) continue;
      const entry: VerifiedEntry = { ...toEntry(r), digest: r.digest, signer: header.kid.split("#")[0] as string, payload };
      out.push({ entry, action, held: { reason: r.reason } });
    }
    return out;
  }
}

/** The first `merge reject` command accepted although an accepted command before it was made without seeing it. */
function firstClash(run: readonly RunItem[], results: readonly StepResult[], preset: ReadonlyMap<number, unknown>): { index: number; against: string } | null {
  const accepted = (i: number) => {
    const r = results[i] as StepResult;
    return r.kind === "decided" && r.outcome.outcome === "accepted";
  };
  for (let i = 0; i < run.length; i++) {
    const item = run[i] as RunItem;
    if (item.action.merge !== "reject" || preset.has(i) || !accepted(i)) continue;
    for (let j = i - 1; j >= 0; j--) {
      const x = (run[j] as RunItem).entry;
      if (accepted(j) && !sawEntry(item.entry, x)) return { index: i, against: x.digest };
    }
  }
  return null;
}

function commandOf(e: VerifiedEntry): SubmittedCommand {
  return { jws: e.jws, digest: e.digest, signer: e.signer, payload: e.payload };
}
