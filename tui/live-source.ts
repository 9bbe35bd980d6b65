/**
 * @module The console's live source of snapshots: reads the data directory read-only, follows it
 * with the change watcher, and probes the node over HTTP. A change reloads only what it touched —
 * the store only when `PRAGMA data_version` moved (or the file was reopened), the log only by its
 * appended bytes — and reloads never overlap.
 */
import { join } from "node:path";
import { type Change, watchChanges } from "./change-watcher.ts";
import { clusterFrom, connectTargets, probed } from "./cluster.ts";
import { type Filter, noFilter } from "./filter.ts";
import { LogTail } from "./log-tail.ts";
import { probeNode } from "./node-probe.ts";
import { readNodeState } from "./node-state.ts";
import { openStoreReader, type StoreReader } from "./open-store.ts";
import { readActivity } from "./read-activity.ts";
import { readContracts } from "./read-contracts.ts";
import { readDiskUse } from "./read-disk.ts";
import { readNodeIdentity } from "./read-node-identity.ts";
import { noPeers, readPeers } from "./read-peers.ts";
import { readTenants } from "./read-tenants.ts";
import type { Snapshot, SnapshotSource } from "./snapshot.ts";

export interface LiveSourceOptions {
  /** The node's URL when it cannot be learned from the log (another host's node, say). */
  readonly url?: string;
  /** How many history entries the Activity view holds. */
  readonly activityLimit?: number;
  readonly probeEveryMs?: number;
  readonly now?: () => number;
}

export class LiveSource implements SnapshotSource {
  readonly #dataDir: string;
  readonly #options: LiveSourceOptions;
  readonly #now: () => number;
  readonly #logs: LogTail;
  readonly #listeners = new Set<(s: Snapshot) => void>();
  #reader: StoreReader | null = null;
  #running: boolean | null = null;
  #dataVersion = -1;
  #snapshot: Snapshot;
  #activityFilter: Filter = noFilter;
  #loading: Promise<void> | null = null;
  #pending = new Set<Change | "activity">();
  #probeTimer: NodeJS.Timeout | null = null;
  #unwatch: (() => void) | null = null;
  #closed = false;

  constructor(dataDir: string, options: LiveSourceOptions = {}) {
    this.#dataDir = dataDir;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#logs = new LogTail(join(dataDir, "logs"));
    this.#snapshot = {
      dataDir,
      at: this.#now(),
      node: { running: false, stale: null },
      nodeDid: null,
      nodeUrl: options.url ?? null,
      store: { mode: "absent", ready: false, error: null },
      contracts: [],
      tenants: [],
      activity: { entries: [], latestSeq: 0 },
      activityFilter: noFilter,
      logs: [],
      disk: { used: 0, files: 0, free: null, total: null },
      cluster: { voters: [], leader: null, term: null },
      connect: [],
    };
  }

  current(): Snapshot {
    return this.#snapshot;
  }

  subscribe(listener: (s: Snapshot) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  setActivityFilter(filter: Filter): void {
    this.#activityFilter = filter;
    void this.#schedule(["activity"]);
  }

  /** Reads everything once (and probes the node); a test or a first frame awaits this. */
  async refresh(): Promise<Snapshot> {
    await this.#schedule(["lock", "store", "logs", "activity"]);
    await this.#probe();
    return this.#snapshot;
  }

  /** Follows the directory and probes the node until `close`. */
  start(): void {
    this.#unwatch = watchChanges(this.#dataDir, (changes) => void this.#schedule([...changes]));
    const loop = async () => {
      await this.#probe();
      if (!this.#closed) this.#probeTimer = setTimeout(loop, this.#options.probeEveryMs ?? 2000);
    };
    this.#probeTimer = setTimeout(loop, this.#options.probeEveryMs ?? 2000);
  }

  close(): void {
    this.#closed = true;
    this.#unwatch?.();
    if (this.#probeTimer !== null) clearTimeout(this.#probeTimer);
    this.#reader?.close();
    this.#reader = null;
  }

  /** Queues `changes` and runs one load at a time; resolves once they have been read. */
  async #schedule(changes: readonly (Change | "activity")[]): Promise<void> {
    for (const c of changes) this.#pending.add(c);
    while (this.#loading !== null) await this.#loading;
    if (this.#pending.size === 0 || this.#closed) return;
    const work = this.#pending;
    this.#pending = new Set();
    this.#loading = this.#load(work).finally(() => {
      this.#loading = null;
    });
    await this.#loading;
  }

  async #load(changes: ReadonlySet<Change | "activity">): Promise<void> {
    const tick = changes.has("tick");
    const next: { -readonly [K in keyof Snapshot]?: Snapshot[K] } = {};
    let storeChanged = changes.has("activity");
    let nodeChanged = false;
    if (changes.has("lock") || tick || this.#running === null) {
      const node = readNodeState(this.#dataDir);
      const nodeDid = readNodeIdentity(this.#dataDir);
      if (JSON.stringify(node) !== JSON.stringify(this.#snapshot.node) || nodeDid !== this.#snapshot.nodeDid) {
        Object.assign(next, { node, nodeDid });
        nodeChanged = true;
      }
      if (node.running !== this.#running) {
        this.#running = node.running;
        this.#reopen();
        storeChanged = true;
      }
    }
    // A stopped store is read as a fixed picture: an offline `charter tenant` writing it means reopening.
    const reopen = this.#reader === null || (changes.has("store") && this.#reader.mode !== "live") || (this.#reader.kysely === null && (changes.has("store") || tick));
    if (reopen) {
      this.#reopen();
      storeChanged = true;
    }
    if (changes.has("store") || tick) {
      const version = this.#safe(() => this.#reader?.dataVersion() ?? 0, -1);
      if (version !== this.#dataVersion) storeChanged = true;
      this.#dataVersion = version;
    }
    if (storeChanged) Object.assign(next, await this.#readStore());
    const logsChanged = (changes.has("logs") || tick) && this.#logs.refresh();
    if (logsChanged) next.logs = [...this.#logs.entries];
    if (!storeChanged && !logsChanged && !nodeChanged) return;
    next.disk = readDiskUse(this.#dataDir);
    this.#publish(next);
    // A node that started or stopped is worth asking at once, not at the next probe.
    if (nodeChanged && this.#unwatch !== null) void this.#probe();
  }

  #reopen(): void {
    this.#reader?.close();
    this.#reader = null;
    try {
      this.#reader = openStoreReader(this.#dataDir, this.#running === true);
      this.#dataVersion = this.#reader.dataVersion();
      this.#storeError = null;
    } catch (error) {
      this.#storeError = (error as Error).message;
    }
  }

  #storeError: string | null = null;

  async #readStore(): Promise<Partial<Snapshot>> {
    const reader = this.#reader;
    const db = reader?.kysely ?? null;
    const store = { mode: reader?.mode ?? "absent", ready: db !== null, error: this.#storeError };
    if (db === null) return { store, contracts: [], tenants: [], activity: { entries: [], latestSeq: 0 }, activityFilter: this.#activityFilter };
    try {
      const filter = this.#activityFilter;
      return {
        store,
        contracts: await readContracts(db),
        tenants: await readTenants(db),
        activity: await readActivity(db, filter, this.#options.activityLimit ?? 300),
        activityFilter: filter,
      };
    } catch (error) {
      // A store mid-upgrade or written by a newer Charter: say so and keep what was shown.
      return { store: { ...store, error: (error as Error).message } };
    }
  }

  /** Probes this node (and the voters it names and a paired home node) once; re-reads the paired devices. */
  async #probe(): Promise<void> {
    const s = this.#snapshot;
    const url = this.#options.url ?? this.#urlFromLog(s);
    const self = url === null ? null : await probeNode(url);
    const cluster = clusterFrom(s.nodeDid, self);
    const peers = this.#safe(() => readPeers(this.#dataDir, this.#running === true), noPeers);
    const targets = connectTargets(s.nodeDid ?? (typeof self?.wellKnown?.identity === "string" ? self.wellKnown.identity : null), url, cluster, peers);
    const others = await Promise.all(targets.slice(1).map((t) => (t.url === null || !probed(t) ? null : probeNode(t.url, { wellKnown: false }))));
    if (this.#closed) return;
    this.#publish({
      nodeUrl: url,
      cluster,
      connect: targets.map((target, i) => ({ target, probe: i === 0 ? self : (others[i - 1] ?? null) })),
    });
  }

  /** Where the running node's gateway said it listens, if it said so since the node started. */
  #urlFromLog(s: Snapshot): string | null {
    const listening = this.#logs.listening;
    if (!s.node.running || listening === null) return null;
    return listening.t >= s.node.startedAt ? listening.url : null;
  }

  #safe<T>(fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch {
      return fallback;
    }
  }

  #publish(next: Partial<Snapshot>): void {
    this.#snapshot = { ...this.#snapshot, ...next, at: this.#now() };
    for (const listener of this.#listeners) listener(this.#snapshot);
  }
}
