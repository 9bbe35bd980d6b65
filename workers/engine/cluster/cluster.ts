/**
 * @module A voter of a replicated engine (three voters, or any odd number): the peer transport,
 * the Raft runtime and the store as its state machine, wired to the engine's requests.
 *
 * - Commands: whichever voter receives them, they are batched per event-loop turn. The leader
 *   proposes each batch as one log entry and answers when the entry is applied (committed on a
 *   majority, fsynced there); a follower forwards its batch to the leader and relays the answers.
 * - Operator requests that change the store go through the log the same way (entry.ts).
 * - Reads: `readBarrier` gives a linearizable read point (the leader's read index, confirmed by a
 *   majority), waits until this voter has applied it, and then the caller reads its own store.
 */
import { checkJsonValue, jsonLimitProblem } from "../../../shared/json-limits.ts";
import { randomInt } from "node:crypto";
import { generateKeyPair, type KeyPair, toPrivateJwk } from "../../../shared/identity/index.ts";
import type { Logger } from "../../../shared/log.ts";
import { type Problem, problem } from "../../../shared/problem.ts";
import type { AdminRequestType, AdminResult } from "../../../shared/protocol/admin.ts";
import type { CommandAnswer, ConsensusStatus, PreviewAnswer, ReadPoint, SubmittedCommand } from "../../../shared/protocol/engine.ts";
import { type Message, raftConfig } from "../raft/index.ts";
import { encodeEntry, KEYED_ADMIN, REPLICATED_ADMIN, type AdminOp } from "./entry.ts";
import type { PeerAddress } from "../../../shared/worker/peers.ts";
import { type PeerTransport, startPeerTransport } from "./peer-transport.ts";
import { RaftRuntime } from "./runtime.ts";
import { RaftStorage } from "./raft-storage.ts";
import type { StoreMachine } from "./store-machine.ts";

/** The voters and which one this is (`--voter-id`, `--peers`). */
export interface ClusterConfig {
  readonly voterId: string;
  readonly voters: readonly PeerAddress[];
  /** Where to listen, when not at this voter's own address in `voters`. */
  readonly listen?: { readonly host: string; readonly port: number };
}

export interface ClusterDeps {
  readonly config: ClusterConfig;
  readonly nodeKey: KeyPair;
  readonly raftPath: string;
  readonly machine: StoreMachine;
  /** Plans a command against this voter's store and commits nothing (the engine's preview). */
  readonly preview: (command: SubmittedCommand) => Promise<PreviewAnswer>;
  readonly log: Logger;
  readonly onFatal: (error: Error) => void;
  /** Milliseconds per Raft tick (default 50: elections after 0.5–1 s without a leader). */
  readonly tickMs?: number;
}

/** The answer to a read barrier. */
export type Barrier = { readonly ok: true; readonly index: number } | { readonly ok: false; readonly problem: Problem };

/** Requests between voters (answered with `request`). */
type PeerRequest =
  | { readonly kind: "probe" }
  | { readonly kind: "commands"; readonly commands: readonly SubmittedCommand[] }
  | { readonly kind: "admin"; readonly op: AdminOp }
  | { readonly kind: "preview"; readonly command: SubmittedCommand }
  | { readonly kind: "read-index" };

const FORWARD_TIMEOUT_MS = 10_000;
/** How long the leader waits for a proposed entry to commit before telling the client to retry. */
const COMMIT_TIMEOUT_MS = 8_000;
/** How long a request waits for a leader to be elected before answering 503. */
const LEADER_WAIT_MS = 3_000;

/** What a voter that is not (or no longer) the leader answers a forwarded request with. */
const NOT_LEADER = "not the leader";

const noLeader = () => problem(503, "no-leader", "no leader is elected among the voters right now; retry shortly");

export class ClusterEngine {
  readonly #d: ClusterDeps;
  readonly #transport: PeerTransport;
  readonly #runtime: RaftRuntime;
  #queue: { command: SubmittedCommand; resolve: (a: CommandAnswer) => void }[] = [];
  #scheduled = false;
  #lastNow = 0;
  #closed = false;

  private constructor(deps: ClusterDeps, transport: PeerTransport, runtime: RaftRuntime) {
    this.#d = deps;
    this.#transport = transport;
    this.#runtime = runtime;
  }

  /** Starts the transport, finds out whether this voter lost its disk, and starts the runtime. */
  static async start(deps: ClusterDeps): Promise<ClusterEngine> {
    const { config } = deps;
    const self = config.voters.find((v) => v.id === config.voterId);
    if (self === undefined) throw new Error(`--voter-id ${config.voterId} is not among the --peers`);
    if (self.did !== deps.nodeKey.did) throw new Error(`--peers names ${self.did} for voter ${self.id}, but this data directory's identity is ${deps.nodeKey.did} (see \`charter identity\`)`);
    const storage = new RaftStorage(deps.raftPath);
    let runtime: RaftRuntime | null = null;
    let engine: ClusterEngine | null = null;
    const pending: Message[] = [];
    const transport = await startPeerTransport({
      self: config.listen ? { ...self, host: config.listen.host, port: config.listen.port } : self,
      peers: config.voters.filter((v) => v.id !== self.id),
      key: deps.nodeKey,
      log: deps.log,
      onMessage: (from, body, attachment) => {
        const m = body as Message;
        // A voter speaks only for itself, and only to us.
        if (typeof m !== "object" || m === null || m.from !== from || m.to !== self.id) return;
        if (runtime === null) {
          if (pending.length < 1000) pending.push(m);
          return;
        }
        if (m.type === "install-snapshot") {
          if (attachment !== null) runtime.receiveSnapshot(m, attachment);
        } else runtime.receive(m);
      },
      onRequest: async (from, body) => {
        const r = body as PeerRequest;
        if (r.kind === "probe") return storage.existed || runtime !== null ? probeOf(runtime, storage) : { term: 0, lastIndex: 0, recovering: false, empty: true };
        if (engine === null) throw new Error("this voter is still starting");
        return engine.#serve(from, r);
      },
    });
    const recovering = storage.existed ? false : await lostDisk(config, transport, deps.log);
    runtime = new RaftRuntime({
      config: raftConfig(self.id, config.voters.map((v) => v.id)),
      storage,
      machine: deps.machine,
      links: transport,
      tickMs: deps.tickMs ?? envNumber("CHARTER_RAFT_TICK_MS", 50),
      snapshotEvery: envNumber("CHARTER_RAFT_SNAPSHOT_EVERY", 2000),
      snapshotKeep: envNumber("CHARTER_RAFT_SNAPSHOT_KEEP", 500),
      recovering,
      log: deps.log,
      onFatal: deps.onFatal,
    });
    engine = new ClusterEngine(deps, transport, runtime);
    runtime.start();
    for (const m of pending) runtime.receive(m);
    deps.log.info("voter started", { id: self.id, voters: config.voters.map((v) => v.id), peerPort: transport.port, recovering });
    return engine;
  }

  /** Queues a verified command; answers with its receipt once its entry is applied (or a problem). */
  submit(command: SubmittedCommand): Promise<CommandAnswer> {
    return new Promise((resolve) => {
      this.#queue.push({ command, resolve });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#pump());
      }
    });
  }

  /**
   * The leader's preview of a command: planned on the leader's store once it has applied every
   * entry committed so far (a read index, confirmed by a majority), so it sees every write already
   * acknowledged; a follower asks the leader. It never enters the log.
   */
  preview(command: SubmittedCommand): Promise<PreviewAnswer> {
    return this.#atLeader<PreviewAnswer>(
      () => this.#previewHere(command),
      async (leader) => {
        const r = await this.#forward(leader, { kind: "preview", command }, true);
        if (r.ok) return r.value as PreviewAnswer;
        if (r.retry) return null;
        // Nothing was written either way: asking again is always safe.
        return { kind: "problem", problem: problem(503, "forward-failed", `the leader did not answer (${r.error}); preview again`) };
      },
      () => ({ kind: "problem", problem: this.#closed ? problem(503, "draining", "the voter is stopping; preview again") : noLeader() }),
    );
  }

  /** Previews here once this voter, still leading, has applied its read index; null when it does not lead. */
  async #previewHere(command: SubmittedCommand): Promise<PreviewAnswer | null> {
    const over = checkJsonValue(command.payload);
    if (over !== null) return { kind: "problem", problem: jsonLimitProblem(over) };
    const point = await this.#runtime.readIndex();
    if (!point.ok) return null;
    await this.#runtime.waitApplied(point.index);
    return this.#d.preview(command);
  }

  /** Runs an operator request: through the log when it changes the store, else locally. */
  async admin(type: AdminRequestType, body: unknown, local: (body: unknown) => Promise<AdminResult<unknown>>): Promise<AdminResult<unknown>> {
    if (!REPLICATED_ADMIN.has(type)) {
      const barrier = await this.readBarrier();
      if (!barrier.ok) return { ok: false, error: { code: "no_leader", message: barrier.problem.detail } };
      return local(body);
    }
    const op: AdminOp = KEYED_ADMIN.has(type) ? { type, body: body as AdminOp["body"], tenantKey: toPrivateJwk(generateKeyPair()) } : { type, body: body as AdminOp["body"] };
    return this.#proposeAdmin(op);
  }

  /** A linearizable read point applied on this voter, or why there is none. */
  readBarrier(): Promise<Barrier> {
    return this.#atLeader<Barrier>(
      async () => {
        const r = await this.#runtime.readIndex();
        return r.ok ? r : null;
      },
      async (leader) => {
        const r = await this.#transport.request(leader, { kind: "read-index" } satisfies PeerRequest, FORWARD_TIMEOUT_MS);
        if (!r.ok) return null;
        const index = (r.value as { index: number }).index;
        const caughtUp = await Promise.race([this.#runtime.waitApplied(index).then(() => true), sleep(FORWARD_TIMEOUT_MS).then(() => false)]);
        if (caughtUp) return { ok: true, index };
        return { ok: false, problem: problem(503, "behind", `this voter has not caught up with the leader's read point ${index}; read again, or ask for ?consistency=local`) };
      },
      () => ({ ok: false, problem: noLeader() }),
    );
  }

  /**
   * Runs `here` when this voter leads, else `there` with the leader it knows of; either answers
   * null to try again (leadership moved meanwhile). Gives up with `none` after LEADER_WAIT_MS
   * without a leader, or once the voter is stopping.
   */
  async #atLeader<T>(here: () => Promise<T | null>, there: (leader: string) => Promise<T | null>, none: () => T): Promise<T> {
    const deadline = Date.now() + LEADER_WAIT_MS;
    for (;;) {
      if (this.#closed) return none();
      const leader = this.#runtime.leader;
      const answer = this.#runtime.isLeader ? await here() : leader !== null ? await there(leader) : null;
      if (answer !== null) return answer;
      if (Date.now() > deadline) return none();
      await sleep(50);
    }
  }

  /**
   * `request` to the leader, with what went wrong: "retry" when it was not the leader or, with
   * `untilLeaderChanges`, as soon as this voter learns of another leader (the answer may still
   * come, but the caller moves on).
   */
  async #forward(leader: string, body: PeerRequest, untilLeaderChanges: boolean): Promise<{ ok: true; value: unknown } | { ok: false; retry: boolean; error: string }> {
    const request = this.#transport.request(leader, body, FORWARD_TIMEOUT_MS);
    let stop = (): void => undefined;
    const changed = new Promise<{ ok: false; error: string }>((resolve) => {
      if (!untilLeaderChanges) return;
      stop = this.#runtime.onRoleChange(() => {
        const now = this.#runtime.leader;
        if (now !== null && now !== leader) resolve({ ok: false, error: NOT_LEADER });
      });
    });
    const r = await Promise.race([request, changed]).finally(() => stop());
    return r.ok ? r : { ok: false, retry: r.error.includes(NOT_LEADER), error: r.error };
  }

  /** `strong`: waits for a linearizable read point; `local`: this voter's state as it is, and how stale. */
  async readPoint(consistency: "strong" | "local"): Promise<ReadPoint> {
    if (consistency === "strong") {
      const barrier = await this.readBarrier();
      if (!barrier.ok) return barrier;
    }
    const s = this.#runtime.status();
    return { ok: true, appliedIndex: this.#runtime.appliedIndex, commitIndex: s.commitIndex, leaderContactMs: this.#runtime.sinceLeaderContact, role: s.role };
  }

  /** What `/health` and the console show of this voter. */
  status(): ConsensusStatus {
    const s = this.#runtime.status();
    const connected = new Set(this.#transport.connected());
    return {
      id: s.id,
      role: s.role,
      term: s.term,
      leader: s.leader,
      commitIndex: s.commitIndex,
      appliedIndex: this.#runtime.appliedIndex,
      lastIndex: s.lastIndex,
      snapshotIndex: s.snapshotIndex,
      recovering: s.recovering,
      leaderContactMs: this.#runtime.sinceLeaderContact,
      voters: this.#d.config.voters.map((v) => {
        const self = v.id === s.id;
        const contact = self ? null : this.#transport.lastContact(v.id);
        const f = s.followers[v.id];
        return {
          id: v.id,
          did: v.did,
          role: self ? s.role : v.id === s.leader ? "leader" : s.leader !== null ? "follower" : null,
          address: `${v.host}:${v.port}`,
          connected: self || connected.has(v.id),
          lastContactMs: contact === null ? null : Date.now() - contact,
          ...(f ? { match: f.match, lag: f.lag } : {}),
        };
      }),
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#runtime.stop();
    this.#d.machine.failAll();
    for (const q of this.#queue) q.resolve({ kind: "problem", problem: problem(503, "draining", "the voter is stopping; send the command again") });
    this.#queue = [];
    await this.#transport.close();
  }

  async #pump(): Promise<void> {
    this.#scheduled = false;
    const batch = this.#queue.splice(0, this.#queue.length);
    if (batch.length === 0) return;
    const answers = await this.#replicate(batch.map((b) => b.command));
    batch.forEach((b, i) => b.resolve(answers[i] as CommandAnswer));
  }

  /** Gets a batch committed: proposed here when leading, else forwarded to the leader. */
  #replicate(commands: readonly SubmittedCommand[]): Promise<CommandAnswer[]> {
    const all = (pr: Problem): CommandAnswer[] => commands.map(() => ({ kind: "problem", problem: pr }));
    return this.#atLeader<CommandAnswer[]>(
      () => this.#proposeCommands(commands),
      async (leader) => {
        // A new leader while waiting: the batch goes there. Should the old leader commit it as well,
        // the idempotency keys make the second copy a replay of the first.
        const r = await this.#forward(leader, { kind: "commands", commands }, true);
        if (r.ok) return r.value as CommandAnswer[];
        if (r.retry) return null;
        // The leader could have committed them before the link failed: only a retry with the same
        // idempotency keys is safe, and that is the client's to make.
        return all(problem(503, "forward-failed", `the leader did not answer (${r.error}); send the command again with the same idempotency key`));
      },
      () => all(this.#closed ? problem(503, "draining", "the voter is stopping; send the command again") : noLeader()),
    );
  }

  /** Proposes a batch; null when this voter turned out not to lead (nothing was appended). */
  #proposeCommands(commands: readonly SubmittedCommand[]): Promise<CommandAnswer[] | null> {
    const now = (this.#lastNow = Math.max(this.#lastNow, Date.now()));
    let settle = (): void => undefined;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    return new Promise((resolve) => {
      const answers: CommandAnswer[] = new Array(commands.length);
      let left = commands.length;
      let done = false;
      const finish = (value: CommandAnswer[] | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        settle();
        resolve(value);
      };
      const resolvers = commands.map((_, i) => (a: CommandAnswer) => {
        if (done || answers[i] !== undefined) return;
        answers[i] = a;
        if (--left === 0) finish(answers);
      });
      // A leader cut off from the others cannot commit; it steps down, and the entry's fate is known
      // only once this voter hears from the new leader. The client is not kept waiting that long.
      const timer = setTimeout(() => {
        const pending = problem(503, "commit-timeout", `the command was not committed within ${COMMIT_TIMEOUT_MS / 1000} s; it may still be: send it again with the same idempotency key`);
        finish(answers.length === commands.length ? Array.from(answers, (a) => a ?? { kind: "problem", problem: pending }) : commands.map(() => ({ kind: "problem", problem: pending })));
      }, COMMIT_TIMEOUT_MS);
      timer.unref();
      this.#runtime.propose(encodeEntry({ now, node: this.#d.nodeKey.did, commands }), (r) => {
        if (!r.ok) return finish(null);
        this.#d.machine.wait(r.index, { term: r.term, commands: resolvers });
        // Stepping down, this voter can no longer tell whether the entry will commit: say so now,
        // so the client retries (with the same keys, which is safe) where a leader is.
        const unsubscribe = this.#runtime.onRoleChange(() => {
          if (this.#runtime.isLeader) return;
          const unknown = problem(503, "leader-stepped-down", "this voter stopped leading before the command committed; send it again with the same idempotency key (if it did commit, that returns its receipt)");
          for (let i = 0; i < commands.length; i++) (resolvers[i] as (a: CommandAnswer) => void)({ kind: "problem", problem: unknown });
        });
        void settled.then(unsubscribe);
      });
    });
  }

  /** Gets an operator request applied: proposed here when leading, else forwarded to the leader. */
  #proposeAdmin(op: AdminOp): Promise<AdminResult<unknown>> {
    return this.#atLeader<AdminResult<unknown>>(
      () => this.#proposeAdminHere(op),
      async (leader) => {
        // Not re-sent on a change of leader: an operator request has no idempotency key.
        const r = await this.#forward(leader, { kind: "admin", op }, false);
        if (r.ok) return r.value as AdminResult<unknown>;
        if (r.retry) return null;
        return { ok: false, error: { code: "forward_failed", message: `the leader did not answer (${r.error}); it may have been applied — check before retrying` } };
      },
      () => ({ ok: false, error: { code: "no_leader", message: noLeader().detail } }),
    );
  }

  /** Proposes an operator request here; null when this voter turned out not to lead. */
  #proposeAdminHere(op: AdminOp): Promise<AdminResult<unknown> | null> {
    return new Promise((resolve) => {
      const now = (this.#lastNow = Math.max(this.#lastNow, Date.now()));
      const timer = setTimeout(() => resolve({ ok: false, error: { code: "commit_timeout", message: `not committed within ${COMMIT_TIMEOUT_MS / 1000} s; it may still be: check before retrying` } }), COMMIT_TIMEOUT_MS);
      timer.unref();
      this.#runtime.propose(encodeEntry({ now, node: this.#d.nodeKey.did, admin: op }), (r) => {
        if (!r.ok) {
          clearTimeout(timer);
          return resolve(null);
        }
        this.#d.machine.wait(r.index, {
          term: r.term,
          admin: (result) => {
            clearTimeout(timer);
            resolve(result);
          },
        });
      });
    });
  }

  /**
   * Proposes commands another voter forwarded. That voter admitted them, but what enters the log
   * must be applicable by every voter, so the bounds on their JSON are checked again here: one
   * that slipped past them is answered alone and never proposed.
   */
  async #proposeForwarded(commands: readonly SubmittedCommand[]): Promise<CommandAnswer[] | null> {
    const over = commands.map((c) => checkJsonValue(c.payload));
    if (over.every((o) => o === null)) return this.#proposeCommands(commands);
    const good = commands.filter((_, i) => over[i] === null);
    const answers = good.length > 0 ? await this.#proposeCommands(good) : [];
    if (answers === null) return null;
    let next = 0;
    return commands.map((_, i) => {
      const o = over[i];
      return o === null || o === undefined ? (answers[next++] as CommandAnswer) : { kind: "problem", problem: jsonLimitProblem(o) };
    });
  }

  /** Answers another voter's request (this voter is, or was, the leader it thought). */
  async #serve(_from: string, r: PeerRequest): Promise<unknown> {
    const answer = <T>(value: T | null): T => {
      if (value === null) throw new Error(NOT_LEADER);
      return value;
    };
    switch (r.kind) {
      case "commands":
        return answer(this.#runtime.isLeader ? await this.#proposeForwarded(r.commands) : null);
      case "admin":
        return answer(this.#runtime.isLeader ? await this.#proposeAdminHere(r.op) : null);
      case "preview":
        return answer(this.#runtime.isLeader ? await this.#previewHere(r.command) : null);
      case "read-index": {
        const result = await this.#runtime.readIndex();
        return { index: answer(result.ok ? result.index : null) };
      }
      case "probe":
        return probeOf(this.#runtime, null);
    }
  }
}

function probeOf(runtime: RaftRuntime | null, storage: RaftStorage | null): { term: number; lastIndex: number; recovering: boolean; empty: boolean } {
  if (runtime !== null) {
    const s = runtime.status();
    return { term: s.term, lastIndex: s.lastIndex, recovering: s.recovering, empty: s.term === 0 && s.lastIndex === 0 };
  }
  const stored = (storage as RaftStorage).load();
  const last = stored.log.at(-1)?.index ?? stored.snapshot.lastIndex;
  return { term: stored.term, lastIndex: last, recovering: stored.recovering, empty: stored.term === 0 && last === 0 };
}

/**
 * A voter with an empty raft.db either joins a brand-new cluster or lost its disk. It asks the
 * others: if any has history, it lost its disk and rejoins as `recovering` (it may not vote until
 * the leader reinstates it); once a majority (itself included) is known empty, the cluster is new.
 */
async function lostDisk(config: ClusterConfig, transport: PeerTransport, log: Logger): Promise<boolean> {
  const others = config.voters.filter((v) => v.id !== config.voterId);
  const majority = Math.floor(config.voters.length / 2) + 1;
  const empty = new Set<string>([config.voterId]);
  let announced = false;
  for (;;) {
    const answers = await Promise.all(others.map(async (v) => ({ id: v.id, r: await transport.request(v.id, { kind: "probe" } satisfies PeerRequest, 1000) })));
    for (const { id, r } of answers) {
      if (!r.ok) continue;
      const p = r.value as { empty: boolean; recovering: boolean };
      if (!p.empty) {
        log.warn("this voter's raft log is empty but the other voters have history: rejoining as a voter that lost its disk", { peer: id });
        return true;
      }
      if (!p.recovering) empty.add(id);
    }
    if (empty.size >= majority) return false;
    if (!announced) {
      announced = true;
      log.info("waiting for the other voters to answer before the first election", { voters: others.map((v) => v.id) });
    }
    await sleep(200 + randomInt(0, 100));
  }
}

/**
 * A tuning knob from the environment: `CHARTER_RAFT_TICK_MS` (50), `CHARTER_RAFT_SNAPSHOT_EVERY`
 * (2000 entries) and `CHARTER_RAFT_SNAPSHOT_KEEP` (500 entries kept behind a snapshot).
 */
function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

