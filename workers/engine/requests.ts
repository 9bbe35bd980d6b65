/**
 * @module The engine's answers to the engine channel's requests. Each handler is synchronous work on
 * the writer connection; the channel batches replies.
 */
import type { Channel } from "../../shared/channel/channel.ts";
import type { SyncEngine } from "./merge/sync-engine.ts";
import type { Journal } from "../../shared/journal.ts";
import { type Problem, problem } from "../../shared/problem.ts";
import type { Logger } from "../../shared/log.ts";
import { type KeyPair, signReceipt } from "../../shared/identity/index.ts";
import type { ContractEffects } from "./contract-effects.ts";
import { completeEffects } from "./effect-receipts.ts";
import type { CommandAnswer, EngineRequests, PreviewAnswer, ReadPoint, SubmittedCommand, ConsensusStatus, SignedCommandAnswer } from "../../shared/protocol/engine.ts";
import { checkJsonValue, jsonLimitProblem } from "../../shared/json-limits.ts";

export interface EngineState {
  readonly journal: Journal;
  /** The write path: the command processor, or the replicated engine's log. */
  readonly submit: (command: SubmittedCommand) => Promise<CommandAnswer>;
  /** The engine's decision on a command without committing it (a replicated engine asks its leader). */
  readonly preview: (command: SubmittedCommand) => Promise<PreviewAnswer>;
  /** Signs the receipts this node answers with. */
  readonly nodeKey: KeyPair;
  /** Read points and status of a replicated engine; absent for one voter. */
  readonly cluster?: { readPoint(consistency: "strong" | "local"): Promise<ReadPoint>; status(): ConsensusStatus };
  /** Adds or removes this channel from those told about every commit. */
  readonly watchCommits: (watch: boolean) => void;
  /** Adds or removes this channel from those told when contract-declared effects were queued. */
  readonly watchEffects: (watch: boolean) => void;
  /** Tenants' contract-declared effects; absent on a replicated engine, which never queues them. */
  readonly effects?: ContractEffects;
  /** A problem that keeps a command out before it is queued or proposed (admission/admission.ts), or null. */
  readonly admit: (command: SubmittedCommand) => Problem | null;
  /** Why writes are not working as they should (`/health`'s `degraded`). */
  readonly degraded: () => readonly string[];
  /** Writes held while the node switches to a new release (shared/update/write-hold.ts); absent for `charter serve`. */
  readonly hold?: { problem(): Problem | null; refresh(): boolean };
  /** Resolves once every batch admitted before it has committed. */
  readonly barrier: () => Promise<void>;
  /** Paired devices' sync (charter node, one voter); absent elsewhere. */
  readonly sync?: SyncEngine;
  readonly log: Logger;
}

/** The most entries one `journal-append-many` appends. */
export const MAX_APPEND_MANY = 1000;

/** Registers every engine request handler on a newly connected channel. */
export function serveEngineRequests(channel: Channel<Record<string, never>, EngineRequests>, state: EngineState): void {
  const { journal, submit, cluster, nodeKey, admit, log } = state;
  channel.handleAll({
    ping: () => ({ pid: process.pid }),
    command: async (c) => {
      const refused = state.hold?.problem() ?? admit(c);
      if (refused !== null) return { kind: "problem", problem: refused };
      try {
        return signedAnswer(nodeKey, await submit(c));
      } catch (error) {
        // A request never takes the engine down: whatever one command throws is its own 500.
        log.error("a command failed", { tenant: c.payload?.tenant, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        return { kind: "problem", problem: problem(500, "internal", "the engine failed on this command; nothing was recorded and the failure was logged") };
      }
    },
    preview: async (c) => {
      // Nothing is written, so quotas, rates and the disk's reserve do not apply; the JSON bounds do.
      const over = checkJsonValue(c.payload);
      if (over !== null) return { kind: "problem", problem: jsonLimitProblem(over) };
      try {
        return await state.preview(c);
      } catch (error) {
        log.error("a preview failed", { tenant: c.payload?.tenant, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        return { kind: "problem", problem: problem(500, "internal", "the engine failed on this preview; the failure was logged") };
      }
    },
    "engine-health": () => ({ degraded: state.degraded() }),
    // One voter has no read points to give: its store is always current, and the gateway reads it directly.
    "read-point": (r) => cluster?.readPoint(r.consistency) ?? { ok: false, problem: problem(409, "not-replicated", "this engine is one voter: its store is always current") },
    "consensus-status": () => cluster?.status() ?? null,
    "watch-commits": (r) => {
      state.watchCommits(r.watch);
      return null;
    },
    "watch-effects": (r) => {
      state.watchEffects(r.watch);
      return null;
    },
    "tenant-effects": (r) => state.effects?.settings(r.tenant) ?? null,
    "tenant-effects-set": (r) => {
      if (state.effects === undefined) return { ok: false, problem: problem(409, "effects-replicated", "a replicated engine does not queue contract-declared effects: every voter would, and each would act") };
      if (!state.effects.set(r.tenant, r.effects)) return { ok: false, problem: problem(404, "not-found", `no tenant ${JSON.stringify(r.tenant)}`) };
      return { ok: true };
    },
    "journal-append": (r) => {
      heldThrows(state);
      return { id: journal.append(r.topic, r.payload, { key: r.key, delayMs: r.delayMs }) };
    },
    // Bounded, so one request holds the writer for one short transaction.
    "journal-append-many": (r) => {
      if (!Array.isArray(r.entries) || r.entries.length > MAX_APPEND_MANY) throw new Error(`journal-append-many takes at most ${MAX_APPEND_MANY} entries`);
      heldThrows(state);
      return journal.appendMany(r.entries.map((e) => ({ topic: e.topic, payload: e.payload, key: e.key, delayMs: e.delayMs })));
    },
    "journal-complete": (r) => journal.complete(r.claimant, r.done),
    // Nothing new is started while writes are held: what it did would not be in the switch's backup.
    "journal-claim": (r) => (state.hold?.problem() ? [] : journal.claim(r.claimant, r.topics, r.limit, r.leaseMs)),
    // The updater's barrier before it backs up the store: the hold seen now, every admitted batch committed.
    "update-hold": async () => {
      const held = state.hold?.refresh() ?? false;
      await state.barrier();
      return { held };
    },
    "journal-ack": (r) => journal.ack(r.claimant, r.ids),
    "journal-fail": (r) => journal.fail(r.claimant, r.id, r.error, { retryInMs: r.retryInMs, permanent: r.permanent }),
    "journal-list": (r) => journal.list(r.topic, r.states, { after: r.after, limit: Math.min(Math.max(1, r.limit), 1000), newestFirst: r.newestFirst }),
    "journal-get": (r) => journal.get(r.topic, r.id),
    "journal-revive": (r) => journal.revive(r.topic, r.id),
    "journal-drop": (r) => journal.drop(r.topic, r.id),
    "effect-complete": (r) => completeEffects(journal, nodeKey, r.claimant, r.done),
    "journal-release": (r) => journal.release(r.claimant),
    "journal-stats": () => journal.stats(),
    "sync-enable": (r) => syncOf(state).enable(r.tenant),
    "sync-apply": (r) => {
      heldThrows(state);
      if (!Array.isArray(r.entries) || r.entries.length > MAX_APPEND_MANY) throw new Error(`sync-apply takes at most ${MAX_APPEND_MANY} entries`);
      return syncOf(state).apply(r.tenant, r.entries);
    },
    "sync-revoke": (r) => syncOf(state).revoke(r.tenant, r.device, r.statement),
  });
}

/** The engine's sync, or a throw where it does not run (charter serve, a replicated engine). */
function syncOf(state: EngineState): SyncEngine {
  if (state.sync === undefined) throw new Error("this engine does not sync with devices (charter node with one voter does)");
  return state.sync;
}

/** Throws while writes are held (the requester answers `503 updating`). */
function heldThrows(state: EngineState): void {
  const held = state.hold?.problem();
  if (held) throw new Error(`updating: ${held.detail}`);
}

/**
 * The answer with its receipt signed by this node. On a replicated engine the leader that decided
 * is recorded in history, but the voter answering signs the receipt, so the receipt names it (a
 * receipt's signature is always by the node it names).
 */
export function signedAnswer(nodeKey: KeyPair, answer: CommandAnswer): SignedCommandAnswer {
  if (answer.kind === "problem") return answer;
  const own = answer.receipt.node === nodeKey.did;
  const receipt = own ? answer.receipt : { ...answer.receipt, node: nodeKey.did };
  return { kind: "receipt", jws: signReceipt(nodeKey, receipt, own ? answer.json : undefined), outcome: receipt.outcome, replayed: answer.replayed };
}
