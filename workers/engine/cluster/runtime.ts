/**
 * @module The Raft runtime: drives the pure core (`../raft`) with real time, disk and sockets.
 * Ticks come from a timer, messages from the peer transport, `persist` effects are grouped per
 * event-loop turn into one `raft.db` transaction (one fsync) before `persisted` is fed back, and
 * committed entries go to the state machine strictly in order. Proposals and read-index requests
 * get promises; a voter that is not the leader says who is (forwarding is the caller's business).
 *
 * Ordering rule: a persist record that carries a snapshot from the leader is written only after
 * the state machine has installed that snapshot's image, so the raft log never claims a snapshot
 * the store does not have.
 */
import { randomInt } from "node:crypto";
import { quorum, type Effect, type LogEntry, type Message, type NodeState, type PersistRecord, type RaftConfig, type RaftEvent, type RaftStatus, restore, type Snapshot, status, step } from "../raft/index.ts";
import type { RaftStorage } from "./raft-storage.ts";

/** The replicated state machine as the runtime sees it. */
export interface StateMachine {
  /** The last log index whose effects are durably in the store (survives restarts). */
  appliedIndex(): number;
  /** Applies one committed entry; entries at or below `appliedIndex()` must be skipped. */
  apply(entry: LogEntry): Promise<void>;
  /** Makes everything applied so far durable (before the log behind it is dropped). */
  sync(): void;
  /** A consistent image of the store (which has applied at least every snapshotted entry). */
  makeImage(): Promise<Uint8Array>;
  /** Replaces the store with `image` (received with `snapshot`); durable when it resolves. */
  installImage(image: Uint8Array, snapshot: Snapshot): Promise<void>;
}

/** How the runtime reaches the other voters (see peer-transport.ts). */
export interface RaftLinks {
  send(to: string, body: unknown, attachment?: Uint8Array): boolean;
  lastContact(id: string): number | null;
}

export interface RaftRuntimeOptions {
  readonly config: RaftConfig;
  readonly storage: RaftStorage;
  readonly machine: StateMachine;
  readonly links: RaftLinks;
  /** Milliseconds per tick (election timeouts are `config.electionTicks` ticks). */
  readonly tickMs: number;
  /** Compact the log once this many applied entries lie behind the snapshot... */
  readonly snapshotEvery: number;
  /** ...keeping this many of the newest so a briefly absent follower catches up from the log. */
  readonly snapshotKeep: number;
  /** The voter starts on an empty disk in a cluster that has history (see raft/recovery.ts). */
  readonly recovering: boolean;
  readonly log: { info(msg: string, fields?: Record<string, unknown>): void; warn(msg: string, fields?: Record<string, unknown>): void; error(msg: string, fields?: Record<string, unknown>): void };
  /** Called when a state machine step fails: the voter cannot go on without diverging. */
  readonly onFatal: (error: Error) => void;
}

/** Where a proposal landed, or who to ask instead. */
export type ProposeResult = { readonly ok: true; readonly index: number; readonly term: number } | { readonly ok: false; readonly leader: string | null };

/** A confirmed linearizable read point, or who to ask instead. */
export type ReadResult = { readonly ok: true; readonly index: number } | { readonly ok: false; readonly leader: string | null };

interface Waiter<T> {
  resolve(value: T): void;
}

/** One voter, running. */
export class RaftRuntime {
  readonly #o: RaftRuntimeOptions;
  #state: NodeState;
  #timer: NodeJS.Timeout | null = null;
  #nextId = 0;
  readonly #proposals = new Map<string, Waiter<ProposeResult>>();
  readonly #reads = new Map<string, Waiter<ReadResult>>();
  readonly #appliedWaiters: { index: number; resolve: () => void }[] = [];
  readonly #roleListeners = new Set<() => void>();
  #persistQueue: PersistRecord[] = [];
  #lastPersistId = 0;
  #persistScheduled = false;
  #persistChain: Promise<void> = Promise.resolve();
  #applyChain: Promise<void> = Promise.resolve();
  #installsPending = 0;
  #machineApplied: number;
  #stopped = false;
  #snapshotting = false;
  #lastHeardLeader = 0;
  /** The last image made, by the snapshot index it was made for (dropped when the log compacts again). */
  #image: { snapshotIndex: number; bytes: Uint8Array } | null = null;
  /** When an image last went to each follower, and how long to wait before sending another. */
  readonly #imageSent = new Map<string, { at: number; pauseMs: number; snapshotIndex: number }>();
  /** Images that arrived with install-snapshot messages, by snapshot index, until the core asks to install one. */
  readonly #incoming = new Map<number, Uint8Array>();

  constructor(options: RaftRuntimeOptions) {
    this.#o = options;
    const stored = options.storage.load();
    this.#machineApplied = options.machine.appliedIndex();
    if (this.#machineApplied < stored.snapshot.lastIndex) {
      throw new Error(`the store has applied up to ${this.#machineApplied} but raft.db's snapshot covers ${stored.snapshot.lastIndex}: the store was replaced or lost; move raft.db away to rejoin as a voter with an empty disk`);
    }
    const storage = options.recovering && !options.storage.existed ? { ...stored, recovering: true } : stored;
    this.#state = restore(options.config, storage, { seed: randomInt(0, 2 ** 31), applied: this.#machineApplied });
  }

  /** Starts ticking. */
  start(): void {
    if (this.#state.recovering && !this.#o.storage.existed) this.#o.storage.write([{ term: this.#state.term, votedFor: this.#state.votedFor, recovering: true, fromIndex: Number.MAX_SAFE_INTEGER, entries: [] }]);
    let ticks = 0;
    this.#timer = setInterval(() => {
      this.#dispatch({ type: "tick" });
      this.#noteQuorumContact();
      // A follower that went silent stops holding the log back (see #maybeCompact) even when no
      // entry is applied meanwhile.
      if (++ticks % 20 === 0) this.#maybeCompact();
    }, this.#o.tickMs);
    this.#timer.unref();
  }

  /** Stops ticking and answers everything waiting with "not the leader". */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    for (const w of this.#proposals.values()) w.resolve({ ok: false, leader: null });
    for (const w of this.#reads.values()) w.resolve({ ok: false, leader: null });
    this.#proposals.clear();
    this.#reads.clear();
    await this.#persistChain;
    await this.#applyChain;
  }

  /**
   * Appends `data` to the log if this voter leads. `onResult` is called synchronously, before
   * anything else can happen to the voter, so the caller can register for the entry's index
   * before the entry could possibly be applied.
   */
  propose(data: string, onResult: (result: ProposeResult) => void): void {
    const id = `p${++this.#nextId}`;
    this.#proposals.set(id, { resolve: onResult });
    this.#dispatch({ type: "propose", id, data });
    // Stopped, or the core failed: nothing answered.
    this.#settle(this.#proposals, id, { ok: false, leader: null });
  }

  /** A linearizable read point, confirmed by a majority and applied here, if this voter leads. */
  readIndex(): Promise<ReadResult> {
    const id = `r${++this.#nextId}`;
    return new Promise((resolve) => {
      this.#reads.set(id, { resolve });
      this.#dispatch({ type: "read-index", id });
    });
  }

  /** Resolves once the state machine has applied `index` (at once if it has). */
  waitApplied(index: number): Promise<void> {
    if (this.#machineApplied >= index) return Promise.resolve();
    return new Promise((resolve) => this.#appliedWaiters.push({ index, resolve }));
  }

  /** Hands a message from a peer to the core. */
  receive(message: Message): void {
    if (message.type === "append-entries" || message.type === "install-snapshot") this.#lastHeardLeader = Date.now();
    if (message.type === "install-snapshot-reply") this.#imageSent.delete(message.from);
    this.#dispatch({ type: "message", message });
  }

  /** Calls `fn` whenever the role, term or leader changes. */
  onRoleChange(fn: () => void): () => void {
    this.#roleListeners.add(fn);
    return () => this.#roleListeners.delete(fn);
  }

  get id(): string {
    return this.#o.config.id;
  }

  get isLeader(): boolean {
    return this.#state.role === "leader";
  }

  get leader(): string | null {
    return this.#state.leader;
  }

  get appliedIndex(): number {
    return this.#machineApplied;
  }

  /**
   * Milliseconds since this voter last knew its state current: since a leader last reached it, or,
   * on the leader, since a majority last answered it. Null when it never has.
   */
  get sinceLeaderContact(): number | null {
    return this.#lastHeardLeader === 0 ? null : Date.now() - this.#lastHeardLeader;
  }

  /** On the leader, each tick: a majority answered within the last heartbeat or two is contact. */
  #noteQuorumContact(): void {
    const s = this.#state;
    if (s.role !== "leader") return;
    const recent = Object.values(s.progress).filter((p) => s.now - p.lastContact <= 2 * s.config.heartbeatTicks).length;
    if (recent + 1 >= quorum(s.config)) this.#lastHeardLeader = Date.now();
  }

  status(): RaftStatus {
    return status(this.#state);
  }

  #dispatch(event: RaftEvent): void {
    if (this.#stopped) return;
    let result;
    try {
      result = step(this.#state, event);
    } catch (error) {
      this.#o.onFatal(error as Error);
      return;
    }
    this.#state = result.state;
    for (const e of result.effects) this.#effect(e);
  }

  #effect(e: Effect): void {
    switch (e.type) {
      case "send":
        this.#send(e.message);
        break;
      case "persist": {
        const { type: _type, id, lastIndex: _last, ...record } = e;
        this.#persistQueue.push(record);
        this.#lastPersistId = id;
        if (!this.#persistScheduled) {
          this.#persistScheduled = true;
          setImmediate(() => this.#flush());
        }
        break;
      }
      case "apply":
        this.#enqueueApply(e.entries);
        break;
      case "install-snapshot":
        this.#enqueueInstall(e.snapshot);
        break;
      case "proposed":
        this.#settle(this.#proposals, e.id, { ok: true, index: e.index, term: e.term });
        break;
      case "read-ready":
        this.#settle(this.#reads, e.id, { ok: true, index: e.index });
        break;
      case "rejected":
        if (e.request === "propose") this.#settle(this.#proposals, e.id, { ok: false, leader: e.leader });
        else this.#settle(this.#reads, e.id, { ok: false, leader: e.leader });
        break;
      case "role-changed":
        this.#o.log.info("voter role changed", { role: e.role, term: e.term, leader: e.leader });
        for (const fn of this.#roleListeners) fn();
        break;
      default: {
        const never: never = e;
        throw new Error(`unknown effect ${JSON.stringify(never)}`);
      }
    }
  }

  #settle<T>(map: Map<string, Waiter<T>>, id: string, value: T): void {
    const w = map.get(id);
    if (w === undefined) return;
    map.delete(id);
    w.resolve(value);
  }

  #send(message: Message): void {
    if (message.type !== "install-snapshot") {
      this.#o.links.send(message.to, message);
      return;
    }
    // The core asks again every election timeout while the follower has not answered, but a large
    // image takes longer than that to send and install: one image per follower at a time, again
    // only after a pause that grows with its size (the follower answers once it has installed it).
    const last = this.#imageSent.get(message.to);
    if (this.#snapshotting || (last !== undefined && Date.now() - last.at < last.pauseMs)) return;
    this.#snapshotting = true;
    // The snapshot travels as an image of the store: it has applied at least the snapshot's index,
    // and everything it holds is committed. One image serves every follower that needs it.
    const cached = this.#image;
    const making = cached !== null && cached.snapshotIndex === message.snapshot.lastIndex ? Promise.resolve(cached.bytes) : this.#o.machine.makeImage();
    making.then(
      (image) => {
        this.#snapshotting = false;
        this.#image = { snapshotIndex: message.snapshot.lastIndex, bytes: image };
        if (this.#o.links.send(message.to, message, image)) {
          // 5 s, plus a second for every 10 MB to send and install.
          this.#imageSent.set(message.to, { at: Date.now(), pauseMs: 5000 + Math.ceil(image.byteLength / 10_000_000) * 1000, snapshotIndex: message.snapshot.lastIndex });
          this.#o.log.info("sent a snapshot to a voter", { to: message.to, index: message.snapshot.lastIndex, bytes: image.byteLength });
        }
      },
      (error: unknown) => {
        this.#snapshotting = false;
        this.#o.log.warn("could not make a snapshot image", { error: (error as Error).message });
      },
    );
  }

  /** Writes every queued persist record in one transaction, then confirms them to the core. */
  #flush(): void {
    this.#persistScheduled = false;
    const records = this.#persistQueue;
    const id = this.#lastPersistId;
    this.#persistQueue = [];
    if (records.length === 0) return;
    const waitForInstall = records.some((r) => r.snapshot !== undefined) && this.#installsPending > 0;
    this.#persistChain = this.#persistChain.then(async () => {
      if (waitForInstall) await this.#applyChain;
      if (this.#stopped) return;
      try {
        this.#o.storage.write(records);
      } catch (error) {
        this.#o.onFatal(error as Error);
        return;
      }
      this.#dispatch({ type: "persisted", id });
    });
  }

  #enqueueApply(entries: readonly LogEntry[]): void {
    this.#applyChain = this.#applyChain.then(async () => {
      for (const entry of entries) {
        if (this.#stopped) return;
        if (entry.index > this.#machineApplied) {
          try {
            await this.#o.machine.apply(entry);
          } catch (error) {
            this.#o.onFatal(error as Error);
            return;
          }
          this.#machineApplied = entry.index;
        }
      }
      const last = entries.at(-1);
      if (last !== undefined) this.#applied(last.index);
    });
  }

  #enqueueInstall(snapshot: Snapshot): void {
    const image = this.#incoming.get(snapshot.lastIndex);
    this.#incoming.clear();
    this.#installsPending++;
    this.#applyChain = this.#applyChain.then(async () => {
      try {
        if (image === undefined) throw new Error(`the snapshot at ${snapshot.lastIndex} arrived without its image`);
        await this.#o.machine.installImage(image, snapshot);
        this.#machineApplied = Math.max(this.#o.machine.appliedIndex(), snapshot.lastIndex);
        this.#o.log.info("installed a snapshot from the leader", { index: snapshot.lastIndex, applied: this.#machineApplied, bytes: image.byteLength });
      } catch (error) {
        this.#o.onFatal(error as Error);
        return;
      } finally {
        this.#installsPending--;
      }
      this.#wakeApplied();
    });
  }


  /** A snapshot's image arrived with its install-snapshot message: keep it for the effect. */
  receiveSnapshot(message: Message, image: Uint8Array): void {
    if (message.type !== "install-snapshot") return;
    // Still installing the last one: the leader's repeat would only be installed again.
    if (this.#installsPending > 0) return;
    this.#incoming.set(message.snapshot.lastIndex, image);
    this.receive(message);
    // The core ignored it (stale, or already covered): nothing to install.
    this.#incoming.delete(message.snapshot.lastIndex);
  }

  #applied(index: number): void {
    this.#dispatch({ type: "applied", index });
    this.#wakeApplied();
    this.#maybeCompact();
  }

  #wakeApplied(): void {
    if (this.#appliedWaiters.length === 0) return;
    const ready = this.#appliedWaiters.filter((w) => w.index <= this.#machineApplied);
    if (ready.length === 0) return;
    for (const w of ready) this.#appliedWaiters.splice(this.#appliedWaiters.indexOf(w), 1);
    for (const w of ready) w.resolve();
  }

  #maybeCompact(): void {
    const applied = this.#state.applied;
    if (applied - this.#state.snapshot.lastIndex < this.#o.snapshotEvery + this.#o.snapshotKeep) return;
    // A leader keeps the entries a follower it hears from still needs, and those after an image
    // it is sending: compacting them away would only make that follower need yet another image
    // (under load, forever). A follower that went silent does not hold the log back.
    let index = applied - this.#o.snapshotKeep;
    if (this.#state.role === "leader") {
      const st = status(this.#state);
      for (const f of Object.values(st.followers)) if (f.lastContactTicksAgo <= 2 * this.#state.config.electionTicks) index = Math.min(index, f.match);
      for (const sent of this.#imageSent.values()) if (Date.now() - sent.at < 2 * sent.pauseMs) index = Math.min(index, sent.snapshotIndex);
      // Not without bound: the log is kept in memory, and a follower this far behind can take an image.
      index = Math.max(index, applied - 20 * this.#o.snapshotEvery);
    }
    if (index - this.#state.snapshot.lastIndex < this.#o.snapshotEvery) return;
    try {
      this.#o.machine.sync();
    } catch (error) {
      this.#o.onFatal(error as Error);
      return;
    }
    this.#dispatch({ type: "snapshot-taken", index, data: "" });
    this.#image = null;
  }
}
