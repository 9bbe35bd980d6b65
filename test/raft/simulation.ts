/**
 * @module A deterministic simulation of a Raft cluster in one process: simulated clock and
 * network (loss, duplication, reordering, symmetric and asymmetric partitions), crashes that lose
 * everything not yet fsynced, restarts, lost disks, clients writing and reading, and periodic
 * snapshots. Every step is checked against Raft's safety properties; at the end the network heals
 * and the cluster must elect a leader and commit within a bound. A fault profile can add targeted
 * adversity: leaders cut off the moment they are elected or first commit (Figure 8 of the paper),
 * vote replies that reach their candidate in a later term. Everything random comes from the seed,
 * so a failing seed replays exactly: `npm run sim -- --seed N [--profile NAME]`.
 */
import type { Effect, InjectedBugs, Message, NodeState, PersistentState, RaftEvent } from "../../workers/engine/raft/index.ts";
import { applyPersist, EMPTY_STORAGE, lastIndex, raftConfig, Random, restore, step } from "../../workers/engine/raft/index.ts";
import { EventQueue } from "./event-queue.ts";
import type { InvariantName } from "./invariants.ts";
import { InvariantChecker, InvariantViolation } from "./invariants.ts";
import { KvMachine } from "./kv-machine.ts";
import type { KvInput, Operation } from "./linearizability.ts";
import { checkLinearizable, kvModel } from "./linearizability.ts";
import { SimNetwork } from "./sim-network.ts";

/**
 * Adversity on top of (or instead of) the seed's random faults, aimed at interleavings the random
 * faults almost never produce. Every field is off when absent, and a run without a profile draws
 * exactly the random numbers it drew before, so the seeds of the default runs replay unchanged.
 * A struck leader is one the profile cuts off or crashes on purpose, at a chosen moment.
 */
export interface FaultProfile {
  /** Cluster sizes to draw from (the default draws mostly three). */
  readonly voters?: readonly number[];
  /** Most entries per append-entries message, to draw from. */
  readonly maxEntriesPerMessage?: readonly number[];
  /** False: none of the seed's random crashes, restarts, lost disks and partitions, only this profile's faults. */
  readonly randomFaults?: boolean;
  /** Chance that the network also keeps a copy of a vote reply and delivers it once its addressee asks for votes in a later term. */
  readonly staleVoteReplies?: number;
  /** Chance that a voter which just became leader is struck within `strikeWithinMs` (before its first entries have spread): cut off alone or with a minority, or crashed. */
  readonly strikeLeader?: number;
  readonly strikeWithinMs?: number;
  /** Chance that a leader is struck within `strikeWithinMs` once its commit index first advances in its term (it knows more than its followers). */
  readonly strikeOnCommit?: number;
  /** How a leader is struck, to draw from (the default: any of the three). */
  readonly strikes?: readonly ("isolate" | "minority" | "crash")[];
  /** A struck voter is reconnected or restarted within this long. */
  readonly strikeForMs?: number;
}

/** Named fault profiles (`npm run sim -- --profile NAME`). */
export const FAULT_PROFILES = {
  /** The seed's random faults only. */
  default: {},
  /**
   * Figure 8 of the Raft paper: a new leader is cut off at once (alone, or with the follower that
   * has its log), so its first entry stays on a minority; the next leader is cut off likewise; an
   * older leader comes back, copies its old entry to a majority one entry per message, and is cut
   * off the moment its commit index moves — before its own term's entry spreads; then a voter
   * holding an entry of a later term may be elected without the old one.
   */
  "figure-8": { voters: [3, 5], maxEntriesPerMessage: [1], randomFaults: false, strikeLeader: 0.8, strikeOnCommit: 1, strikeWithinMs: 0, strikeForMs: 800, strikes: ["isolate", "minority"] },
  /**
   * Vote replies that arrive after their candidate has moved on: the network keeps a copy of every
   * vote reply and delivers it when its addressee next stands, in a later term; every new leader
   * is cut off or crashed at once, so elections follow one another, often several candidates in
   * one term.
   */
  "stale-votes": { voters: [3, 5], staleVoteReplies: 1, randomFaults: false, strikeLeader: 1, strikeWithinMs: 0, strikeForMs: 800 },
} as const satisfies Record<string, FaultProfile>;

/** The name of a profile in `FAULT_PROFILES`. */
export type FaultProfileName = keyof typeof FAULT_PROFILES;

/** What to simulate. Unset knobs are drawn from the seed. */
export interface SimOptions {
  readonly seed: number;
  readonly voters?: number;
  /** Simulated milliseconds with faults, then the bound for recovery after healing. */
  readonly faultMs?: number;
  readonly healMs?: number;
  readonly bugs?: InjectedBugs;
  /** Receives one line per event (replays). */
  readonly trace?: (line: string) => void;
  /** Freeze every state handed to `step`, proving it never mutates its input. */
  readonly freeze?: boolean;
  readonly linearizability?: boolean;
  /** Extra adversity (default: none). */
  readonly faults?: FaultProfileName | FaultProfile;
  /** Properties whose violations are recorded in the result instead of failing the run, to see what they lead to. */
  readonly letPass?: readonly InvariantName[];
}

/** What a run did. */
export interface SimResult {
  readonly seed: number;
  readonly voters: number;
  readonly steps: number;
  readonly fingerprint: string;
  readonly leaders: number;
  readonly crashes: number;
  readonly diskLosses: number;
  readonly snapshotsInstalled: number;
  readonly committed: number;
  readonly operations: number;
  readonly recoveredAfterMs: number;
  /** The first violation of each property in `letPass`. */
  readonly passed: Readonly<Record<string, string>>;
}

/** A run broke an invariant; the message starts with `SEED=…` and ends with the command that replays it. */
export class SimulationFailure extends Error {
  readonly seed: number;
  readonly invariant: string;
  constructor(seed: number, invariant: string, message: string, replay = `--seed ${seed}`) {
    super(`SEED=${seed} ${message}\n  replay: npm run sim -- ${replay} --trace`);
    this.seed = seed;
    this.invariant = invariant;
  }
}

/** The `npm run sim` arguments that replay a run with these options. */
export function replayArgs(options: SimOptions): string {
  const args = [`--seed ${options.seed}`];
  if (options.voters !== undefined) args.push(`--voters ${options.voters}`);
  if (options.faultMs !== undefined) args.push(`--fault-ms ${options.faultMs}`);
  if (options.healMs !== undefined) args.push(`--heal-ms ${options.healMs}`);
  if (typeof options.faults === "string" && options.faults !== "default") args.push(`--profile ${options.faults}`);
  else if (typeof options.faults === "object") args.push(`(with the fault profile ${JSON.stringify(options.faults)})`);
  for (const [bug, on] of Object.entries(options.bugs ?? {})) if (on) args.push(`--bug ${bug}`);
  for (const name of options.letPass ?? []) args.push(`--let-pass '${name}'`);
  if (options.linearizability === false) args.push("--no-linearizability");
  return args.join(" ");
}

type SimEvent =
  | { readonly k: "tick"; readonly node: string; readonly inc: number }
  | { readonly k: "deliver"; readonly m: Message }
  | { readonly k: "disk"; readonly node: string; readonly inc: number; readonly write: Extract<Effect, { type: "persist" }> }
  | { readonly k: "local"; readonly node: string; readonly inc: number; readonly event: RaftEvent }
  | { readonly k: "client"; readonly client: number }
  | { readonly k: "timeout"; readonly op: SimOp }
  | { readonly k: "fault" }
  | { readonly k: "strike"; readonly node: string; readonly inc: number; readonly term: number }
  | { readonly k: "unstrike"; readonly nodes: readonly string[]; readonly crashed: boolean };

interface SimNode {
  readonly id: string;
  up: boolean;
  inc: number;
  state: NodeState | null;
  disk: PersistentState;
  diskFree: number;
  sm: KvMachine;
  readonly tickEvery: number;
}

interface SimOp {
  readonly id: string;
  readonly client: number;
  readonly input: KvInput;
  readonly node: string;
  readonly call: number;
  ret: number;
  output: string;
  status: "waiting" | "ok" | "failed" | "unknown";
  index?: number;
  term?: number;
}

const NAMES = ["a", "b", "c", "d", "e"];
const KEYS = ["x", "y", "z"];
const TICK_MS = 10;
const OP_TIMEOUT_MS = 400;
const MAX_STEPS = 400_000;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Runs one seeded simulation; throws `SimulationFailure` when an invariant breaks. */
export function simulate(options: SimOptions): SimResult {
  const seed = options.seed;
  const rnd = new Random(seed ^ 0x5eed);
  const profile: FaultProfile = typeof options.faults === "string" ? FAULT_PROFILES[options.faults] : (options.faults ?? {});
  const n = options.voters ?? rnd.pick(profile.voters ?? [3, 3, 3, 3, 3, 3, 3, 1, 5]);
  const ids = NAMES.slice(0, n);
  const faultMs = options.faultMs ?? 4000;
  const healMs = options.healMs ?? 4000;
  // Timing and features are one cluster-wide configuration, as in a deployment.
  const knobs = {
    electionTicks: rnd.pick([8, 10, 15]),
    heartbeatTicks: rnd.pick([1, 2, 3]),
    maxEntriesPerMessage: rnd.pick(profile.maxEntriesPerMessage ?? [1, 3, 64]),
    preVote: rnd.chance(0.85),
    checkQuorum: rnd.chance(0.85),
    ...(options.bugs ? { bugs: options.bugs } : {}),
  };
  const config = (id: string) => raftConfig(id, ids, knobs);
  const configs = new Map(ids.map((id) => [id, config(id)]));
  const net = new SimNetwork(rnd, { loss: rnd.pick([0, 0.01, 0.05, 0.15]), duplicate: rnd.pick([0, 0.02, 0.1]), minDelay: 1, maxDelay: rnd.pick([5, 20, 60]) });
  const fsyncMax = rnd.pick([2, 10, 30]);
  const snapshotEvery = rnd.pick([5, 20, 100]);
  const faultEvery = rnd.pick([50, 150, 400]);
  const clients = rnd.pick([2, 3, 5]);
  const trace = options.trace;
  const queue = new EventQueue<SimEvent>();
  const checker = new InvariantChecker(options.letPass);
  const nodes = new Map<string, SimNode>();
  const ops: SimOp[] = [];
  let now = 0;
  let steps = 0;
  let hash = 0x811c9dc5;
  let crashes = 0;
  let diskLosses = 0;
  let installs = 0;
  let opSeq = 0;
  let healed = false;
  let probe: SimOp | null = null;
  let probes = 0;
  let recoveredAt = -1;
  const leaderHint = new Map<number, string>();
  /** Vote replies the network holds back until their addressee stands in a later term. */
  let heldReplies: Extract<Message, { type: "request-vote-reply" }>[] = [];
  /** The term in which each voter, as leader, last advanced its commit index for the first time. */
  const firstCommits = new Map<string, number>();

  const fail = (e: unknown): never => {
    if (e instanceof InvariantViolation) throw new SimulationFailure(seed, e.invariant, `t=${now} ${e.message}`, replayArgs(options));
    if (e instanceof Error) throw new SimulationFailure(seed, "exception", `t=${now} ${e.stack ?? e.message}`, replayArgs(options));
    throw e;
  };
  const mix = (...xs: number[]) => {
    for (const x of xs) hash = Math.imul(hash ^ (x | 0), 16777619);
  };
  const upStates = () => [...nodes.values()].filter((x) => x.up && x.state).map((x) => x.state!);

  function run(node: SimNode, event: RaftEvent): void {
    const before = node.state!;
    if (steps > MAX_STEPS) throw new InvariantViolation("runaway", `more than ${MAX_STEPS} steps: a message storm or a livelock`);
    if (options.freeze) deepFreeze(before);
    const { state, effects } = step(before, event);
    node.state = state;
    steps += 1;
    mix(now, node.id.charCodeAt(0), event.type.length, state.term, state.commit, lastIndex(state), effects.length);
    if (trace) trace(`t=${now} ${node.id} ${describeEvent(event)} → ${state.role} t${state.term} c${state.commit} l${lastIndex(state)} ${effects.map((e) => e.type).join(",")}`);
    if (profile.strikeOnCommit && !healed && state.role === "leader" && state.commit > before.commit && firstCommits.get(node.id) !== state.term) {
      firstCommits.set(node.id, state.term);
      if (rnd.chance(profile.strikeOnCommit)) queue.push(now + rnd.int(1 + (profile.strikeWithinMs ?? 50)), { k: "strike", node: node.id, inc: node.inc, term: state.term });
    }
    checker.afterStep(before, state, upStates().filter((s) => s !== state));
    for (const e of effects) effect(node, e);
  }

  function effect(node: SimNode, e: Effect): void {
    switch (e.type) {
      case "send": {
        const m = e.message;
        for (const d of net.transmit(m)) queue.push(now + d, { k: "deliver", m });
        if (profile.staleVoteReplies && !healed) holdStale(m);
        return;
      }
      case "persist": {
        const done = Math.max(now, node.diskFree) + 1 + rnd.int(fsyncMax);
        node.diskFree = done;
        queue.push(done, { k: "disk", node: node.id, inc: node.inc, write: e });
        return;
      }
      case "apply":
        for (const entry of e.entries) {
          node.sm.apply(entry);
          checker.afterApply(node.id, entry, node.sm.digest());
          for (const op of ops) {
            if (op.node !== node.id || op.index !== entry.index || op.status !== "waiting") continue;
            finish(op, entry.term === op.term ? "ok" : "failed", "");
          }
        }
        queue.push(now, { k: "local", node: node.id, inc: node.inc, event: { type: "applied", index: node.sm.index } });
        return;
      case "install-snapshot":
        installs += 1;
        node.sm.restore(e.snapshot.data, e.snapshot.lastIndex);
        checker.afterInstall(node.id, e.snapshot.lastIndex, node.sm.digest());
        return;
      case "proposed":
        for (const op of ops) if (op.id === e.id) Object.assign(op, { index: e.index, term: e.term });
        return;
      case "read-ready":
        for (const op of ops) if (op.id === e.id && op.status === "waiting") finish(op, "ok", node.sm.get(op.input.key));
        return;
      case "rejected":
        for (const op of ops) if (op.id === e.id && op.status === "waiting") finish(op, "failed", "");
        return;
      case "role-changed":
        if (e.leader) for (let c = 0; c < clients; c++) leaderHint.set(c, e.leader);
        if (e.role === "leader" && profile.strikeLeader && !healed && rnd.chance(profile.strikeLeader)) {
          queue.push(now + rnd.int(1 + (profile.strikeWithinMs ?? 50)), { k: "strike", node: node.id, inc: node.inc, term: e.term });
        }
        return;
      default: {
        const never: never = e;
        throw new Error(`unknown effect ${JSON.stringify(never)}`);
      }
    }
  }

  function finish(op: SimOp, status: SimOp["status"], output: string): void {
    op.status = status;
    op.ret = now;
    op.output = output;
    if (op.client >= 0) queue.push(now + 1 + rnd.int(20), { k: "client", client: op.client });
  }

  function start(node: SimNode): void {
    node.up = true;
    node.inc += 1;
    node.diskFree = now;
    node.state = restore(configs.get(node.id)!, node.disk, { seed: rnd.int(2 ** 31) });
    node.sm = new KvMachine();
    node.sm.restore(node.disk.snapshot.data, node.disk.snapshot.lastIndex);
    checker.afterStep(null, node.state, upStates().filter((s) => s !== node.state));
    queue.push(now + rnd.int(node.tickEvery) + 1, { k: "tick", node: node.id, inc: node.inc });
  }

  function crash(node: SimNode): void {
    node.up = false;
    node.state = null;
    node.inc += 1;
    crashes += 1;
  }

  function fault(): void {
    const all = [...nodes.values()];
    const up = all.filter((x) => x.up);
    const down = all.filter((x) => !x.up);
    const recovering = all.some((x) => x.disk.recovering || x.state?.recovering);
    const action = rnd.pick(["crash", "crash", "restart", "restart", "restart", "disk-loss", "isolate", "split", "one-way", "heal", "heal"]);
    if (action === "crash" && up.length > 0) crash(rnd.pick(up));
    else if (action === "restart" && down.length > 0) start(rnd.pick(down));
    else if (action === "disk-loss" && n === 3 && !recovering) {
      // Replacing a disk: only one voter at a time, as an operator would (recovery.ts).
      const victim = rnd.pick(all);
      if (victim.up) crash(victim);
      victim.disk = { ...EMPTY_STORAGE, recovering: true };
      diskLosses += 1;
      start(victim);
    } else if (action === "isolate") net.partition([rnd.pick(ids)], ids);
    else if (action === "split") net.partition(ids.filter(() => rnd.chance(0.5)), ids);
    else if (action === "one-way") net.cut(rnd.pick(ids), rnd.pick(ids));
    else if (action === "heal") net.heal();
    if (trace) trace(`t=${now} fault ${action} links cut: ${net.describe()} up: ${all.filter((x) => x.up).map((x) => x.id).join("")}`);
  }

  /** Keeps copies of some vote replies; a request for votes releases those addressed to its sender from earlier terms. */
  function holdStale(m: Message): void {
    if (m.type === "request-vote-reply" && rnd.chance(profile.staleVoteReplies!)) heldReplies.push(m);
    if (m.type !== "request-vote") return;
    const release = heldReplies.filter((r) => r.to === m.from && r.term < m.term && net.connected(r.from, r.to));
    if (release.length === 0) return;
    heldReplies = heldReplies.filter((r) => !release.includes(r));
    for (const r of release) queue.push(now + 1 + rnd.int(2 * net.profile.maxDelay), { k: "deliver", m: r });
  }

  /** Cuts off or crashes a voter that still leads the term it was elected in; undone later. */
  function strike(node: SimNode, term: number): void {
    if (!node.up || node.state!.role !== "leader" || node.state!.term !== term) return;
    const action = rnd.pick(profile.strikes ?? ["isolate", "minority", "crash"]);
    const group = [node.id];
    if (action === "minority") {
      // The leader and the followers that hold most of its log, so what they alone know stays behind the cut.
      const progress = node.state!.progress;
      const closest = ids.filter((id) => id !== node.id).map((id) => ({ id, match: progress[id]!.match, tie: rnd.int(1000) }));
      closest.sort((a, b) => b.match - a.match || a.tie - b.tie);
      group.push(...closest.slice(0, Math.floor((n - 1) / 2) - 1).map((c) => c.id));
    }
    if (action === "crash") crash(node);
    else net.partition(group, ids);
    queue.push(now + 1 + rnd.int(profile.strikeForMs ?? 300), { k: "unstrike", nodes: group, crashed: action === "crash" });
    if (trace) trace(`t=${now} strike ${action} ${group.join("")} links cut: ${net.describe()}`);
  }

  function unstrike(ev: Extract<SimEvent, { k: "unstrike" }>): void {
    if (healed) return;
    for (const id of ev.nodes) {
      const x = nodes.get(id)!;
      if (ev.crashed && !x.up) start(x);
      else if (!ev.crashed) net.reconnect(id);
    }
    if (trace) trace(`t=${now} unstrike ${ev.nodes.join("")} links cut: ${net.describe()}`);
  }

  function clientOp(client: number): void {
    if (healed && now > faultMs + healMs / 2) return;
    const up = [...nodes.values()].filter((x) => x.up);
    const hinted = nodes.get(leaderHint.get(client) ?? "");
    const target = hinted?.up ? hinted : up.length > 0 ? rnd.pick(up) : null;
    if (!target) {
      queue.push(now + 20, { k: "client", client });
      return;
    }
    const key = rnd.pick(KEYS);
    const id = `op${++opSeq}`;
    const input: KvInput = rnd.chance(0.5) ? { kind: "write", key, value: `${client}.${opSeq}` } : { kind: "read", key };
    const op: SimOp = { id, client, input, node: target.id, call: now, ret: Infinity, output: "", status: "waiting" };
    ops.push(op);
    queue.push(now + OP_TIMEOUT_MS, { k: "timeout", op });
    if (input.kind === "write") run(target, { type: "propose", id, data: JSON.stringify({ key, value: input.value }) });
    else run(target, { type: "read-index", id });
  }

  function heal(): void {
    healed = true;
    net.heal();
    net.profile.loss = 0;
    net.profile.duplicate = 0;
    for (const x of nodes.values()) if (!x.up) start(x);
    if (trace) trace(`t=${now} healed`);
  }

  /** After healing: once one leader leads everyone, propose a probe and wait until all apply it. */
  function checkRecovery(): void {
    const states = [...nodes.values()].map((x) => x.state!);
    const leader = states.find((s) => s.role === "leader" && states.every((o) => o.term === s.term && o.leader === s.config.id));
    if (!probe && leader) {
      probe = { id: `probe${++probes}`, client: -1, input: { kind: "write", key: "probe", value: "p" }, node: leader.config.id, call: now, ret: Infinity, output: "", status: "waiting" };
      ops.push(probe);
      run(nodes.get(leader.config.id)!, { type: "propose", id: probe.id, data: JSON.stringify({ key: "probe", value: "p" }) });
      return;
    }
    // A probe whose entry was overwritten may never be applied where it was proposed (that voter
    // can catch up by snapshot): give up on it after the clients' timeout and propose another.
    if (probe && probe.status === "waiting" && now - probe.call >= OP_TIMEOUT_MS) probe.status = "unknown";
    if (probe && (probe.status === "failed" || probe.status === "unknown")) probe = null;
    if (probe?.status === "ok") {
      const sms = [...nodes.values()].map((x) => x.sm);
      if (sms.every((sm) => sm.index >= probe!.index!) && states.every((s) => !s.recovering) && new Set(sms.map((sm) => sm.digest())).size === 1 && sms.every((sm) => sm.index === sms[0]!.index)) recoveredAt = now;
    }
  }

  for (const id of ids) {
    const node: SimNode = { id, up: false, inc: 0, state: null, disk: EMPTY_STORAGE, diskFree: 0, sm: new KvMachine(), tickEvery: TICK_MS - 1 + rnd.int(3) };
    nodes.set(id, node);
  }
  try {
    for (const node of nodes.values()) start(node);
    for (let c = 0; c < clients; c++) queue.push(rnd.int(50), { k: "client", client: c });
    if (profile.randomFaults !== false) queue.push(faultEvery, { k: "fault" });
    for (;;) {
      const next = queue.pop();
      if (!next) break;
      now = next.time;
      if (!healed && now >= faultMs) heal();
      if (now > faultMs + healMs) break;
      const ev = next.item;
      switch (ev.k) {
        case "tick": {
          const node = nodes.get(ev.node)!;
          if (!node.up || node.inc !== ev.inc) break;
          run(node, { type: "tick" });
          queue.push(now + node.tickEvery, ev);
          break;
        }
        case "deliver": {
          const node = nodes.get(ev.m.to)!;
          if (node.up && net.connected(ev.m.from, ev.m.to)) run(node, { type: "message", message: ev.m });
          break;
        }
        case "disk": {
          const node = nodes.get(ev.node)!;
          if (!node.up || node.inc !== ev.inc) break;
          node.disk = applyPersist(node.disk, ev.write);
          run(node, { type: "persisted", id: ev.write.id });
          break;
        }
        case "local": {
          const node = nodes.get(ev.node)!;
          if (!node.up || node.inc !== ev.inc) break;
          run(node, ev.event);
          const s = node.state!;
          if (ev.event.type === "applied" && node.sm.index === s.applied && s.applied - s.snapshot.lastIndex >= snapshotEvery) {
            run(node, { type: "snapshot-taken", index: node.sm.index, data: node.sm.serialize() });
          }
          break;
        }
        case "client":
          clientOp(ev.client);
          break;
        case "timeout":
          if (ev.op.status === "waiting") {
            ev.op.status = ev.op.input.kind === "write" ? "unknown" : "failed";
            if (ev.op !== probe) queue.push(now + 1, { k: "client", client: ev.op.client });
            else probe = null;
          }
          break;
        case "strike": {
          const node = nodes.get(ev.node)!;
          if (!healed && node.inc === ev.inc) strike(node, ev.term);
          break;
        }
        case "unstrike":
          unstrike(ev);
          break;
        case "fault":
          if (!healed) {
            fault();
            queue.push(now + 1 + rnd.int(2 * faultEvery), ev);
          }
          break;
      }
      if (healed && recoveredAt < 0) checkRecovery();
      if (recoveredAt >= 0 && now > faultMs + healMs / 2) break;
    }
  } catch (e) {
    fail(e);
  }
  if (recoveredAt < 0) throw new SimulationFailure(seed, "liveness", `no leader committed and applied everywhere within ${healMs} ms of healing (${[...nodes.values()].map((x) => `${x.id}:${x.state?.role}/t${x.state?.term}/c${x.state?.commit}/a${x.sm.index}${x.state?.recovering ? "/recovering" : ""}`).join(" ")})`, replayArgs(options));
  if (options.linearizability ?? true) {
    const history: Operation<KvInput, string>[] = ops
      .filter((op) => op !== probe && (op.status === "ok" || (op.status === "unknown" && op.input.kind === "write") || (op.status === "waiting" && op.input.kind === "write")))
      .map((op) => ({ input: op.input, output: op.output, call: op.call, ret: op.status === "ok" ? op.ret : Infinity }));
    const verdict = checkLinearizable(kvModel, history);
    if (!verdict.ok) throw new SimulationFailure(seed, "linearizability", `history of key ${verdict.part[0]?.input.key} is not linearizable: ${JSON.stringify(verdict.part.slice(0, 40))}`, replayArgs(options));
  }
  return {
    seed,
    voters: n,
    steps,
    fingerprint: (hash >>> 0).toString(16),
    leaders: checker.leaders.size,
    crashes,
    diskLosses,
    snapshotsInstalled: installs,
    committed: checker.committed.size,
    operations: ops.length,
    recoveredAfterMs: recoveredAt - faultMs,
    passed: Object.fromEntries(checker.passed),
  };
}

function describeEvent(e: RaftEvent): string {
  if (e.type !== "message") return e.type === "persisted" || e.type === "applied" ? `${e.type} ${"id" in e ? e.id : e.index}` : e.type;
  const m = e.message;
  const detail = m.type === "append-entries" ? ` prev ${m.prevIndex}@${m.prevTerm} n${m.entries.length} c${m.commit}` : m.type === "request-vote-reply" || m.type === "pre-vote-reply" ? (m.granted ? " granted" : " refused") : "";
  return `${m.type} from ${m.from} t${m.term}${detail}`;
}
