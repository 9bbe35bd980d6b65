/**
 * @module The `commit` frames of `/api/events`: one per entry of the store's history in a tenant
 * the person may read (their did is an owner or a member of it),
 * `{"id": "<seq>", "kind": "commit", tenant, namespace, aggregate, subject, action, outcome, seq, at}`
 * (`at`: when it was committed, RFC 3339 — the receipt's `committedAt`, the same live and replayed).
 *
 * A node has one person and every socket is theirs: what one client may read, every client may,
 * so a frame is made once for all. Live commits come from the gateway's event hub (the engine's
 * receipts). A receipt does not name its aggregate: it is the action's, found in the artifact's
 * schema, parsed once per artifact id. Whether the person reads a tenant is looked up once per
 * turn of the event loop (a turn carries a whole batch of receipts), so a role given or taken
 * away counts from the next turn.
 *
 * Frames published close together go out together, each batch framed once and written in one
 * piece to every client (frames.ts): the first after a quiet moment at once, the next ones at most
 * every `flushMs`. A write costs the gateway a few µs whatever its size, so by default the period
 * grows with the clients, keeping the writes near `writesPerSecond` (1,000 clients: a batch every
 * 20 ms), up to `maxFlushMs`; with few clients every commit goes out on its own.
 *
 * The hub's commits come in history order without gaps. A gap (commits made while the engine was
 * not sending them, or an upgrade's migrated records, which no receipt announces) is filled from
 * the store before the commit after it, up to `fillMax` entries; past that, the clients are closed
 * with 4008 and catch up with `?after=`.
 *
 * `?after=ID` replays the history after seq ID from the store, in pages (at most `pageRows`
 * entries scanned and about `pageBytes` of frames each), waiting for a client that has not taken
 * a page to take it before reading the next; then the client goes live. The hub is subscribed
 * before the replay starts: what it publishes meanwhile is held for the client (counted against its
 * limit) and, once the replay has reached the end of the history, sent without what the replay
 * already covered — no gap, no repeat.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Schema } from "../../../../contracts/schema.ts";
import type { Receipt } from "../../../../shared/identity/receipt.ts";
import type { Logger } from "../../../../shared/log.ts";
import { type Problem, problem } from "../../../../shared/problem.ts";
import { openDatabase } from "../../../../shared/store/open.ts";
import type { EventHub, LiveEvent } from "../../event-hub.ts";
import { CLOSE, type EventClient, type EventSource } from "./events-socket.ts";
import { frameJson, wireFrames } from "./frames.ts";

/** What the commit feed reads: the hub, the store, and whose tenants count. */
export interface CommitFeedOptions {
  readonly hub: Pick<EventHub, "subscribe">;
  /** The store's file, opened read-only on first use. */
  readonly storePath: string;
  /** The person's did, or null before set-up (then no commit is readable). */
  readonly personDid: () => string | null;
  readonly log: Logger;
  /** At most one batch of live frames per this many ms; absent, it follows the number of clients. */
  readonly flushMs?: number;
  /** Writes a second to all clients together that the batching aims at (50,000). */
  readonly writesPerSecond?: number;
  /** The longest period between batches (25 ms). */
  readonly maxFlushMs?: number;
  /** History entries scanned per replay page (1,000). */
  readonly pageRows?: number;
  /** A replay page ends once its frames reach this many bytes (128 KiB). */
  readonly pageBytes?: number;
  /** The largest gap in the hub's commits filled from the store (2,000 entries). */
  readonly fillMax?: number;
}

/** One history entry, as a commit frame shows it. */
export interface Commit {
  readonly seq: number;
  readonly tenant: string;
  readonly namespace: string;
  readonly aggregate: string;
  readonly subject: string;
  readonly action: string;
  readonly outcome: string;
  /** When it was committed (ms since the epoch, as history keeps it). */
  readonly committedAt: number;
}

interface Frame {
  readonly seq: number;
  readonly json: Buffer;
}

/** Live frames sent together. */
interface Batch {
  readonly first: number;
  readonly last: number;
  readonly frames: readonly Frame[];
  readonly wire: Buffer;
}

/** A client's place in the feed. */
interface Follower {
  /** Frames up to this seq have been sent (or are not wanted). */
  from: number;
  replaying: boolean;
  /** Live batches held while the replay runs, and their bytes. */
  pending: Batch[];
  held: number;
}

/** The read-only connection and its statements. */
interface Store {
  readonly db: DatabaseSync;
  readonly maxSeq: StatementSync;
  readonly range: StatementSync;
  readonly gap: StatementSync;
  readonly readable: StatementSync;
  readonly schema: StatementSync;
  readonly aggregateAt: StatementSync;
}

/** Artifacts whose action→aggregate map is kept; more are re-read. */
const MAX_ARTIFACTS = 256;
const NONE: ReadonlySet<string> = new Set();
const AFTER = /^(?:0|[1-9][0-9]{0,15})$/;

/** The frame of a commit. */
export function commitFrame(c: Commit): Buffer {
  return frameJson("commit", String(c.seq), { tenant: c.tenant, namespace: c.namespace, aggregate: c.aggregate, subject: c.subject, action: c.action, outcome: c.outcome, seq: c.seq, at: isoTime(Number(c.committedAt)) });
}

/** An instant in ms as RFC 3339; null when it is not one. */
function isoTime(ms: number): string | null {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null;
}

/** `?after`'s value as a seq, or null when it is not a non-negative integer. */
export function parseAfter(raw: string): number | null {
  if (!AFTER.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

export class CommitFeed implements EventSource {
  readonly #options: CommitFeedOptions;
  readonly #flushMs: number | null;
  readonly #writesPerSecond: number;
  readonly #maxFlushMs: number;
  readonly #pageRows: number;
  readonly #pageBytes: number;
  readonly #fillMax: number;
  readonly #followers = new Map<EventClient, Follower>();
  readonly #aggregates = new Map<string, ReadonlyMap<string, string>>();
  #unsubscribe: (() => void) | null = null;
  /** The last seq the hub published (or the history's end when subscribing); null when unknown. */
  #lastSeq: number | null = null;
  #batch: Frame[] = [];
  #flushScheduled = false;
  #lastFlush = -Infinity;
  #store: Store | null = null;
  #readable: ReadonlySet<string> | null = null;
  #closed = false;

  constructor(options: CommitFeedOptions) {
    this.#options = options;
    this.#flushMs = options.flushMs ?? null;
    this.#writesPerSecond = options.writesPerSecond ?? 50_000;
    this.#maxFlushMs = options.maxFlushMs ?? 25;
    this.#pageRows = options.pageRows ?? 1000;
    this.#pageBytes = options.pageBytes ?? 128 * 1024;
    this.#fillMax = options.fillMax ?? 2000;
  }

  check(query: URLSearchParams): Problem | null {
    const after = query.getAll("after");
    if (after.length === 0 || (after.length === 1 && parseAfter(after[0] as string) !== null)) return null;
    return problem(400, "bad-parameters", "after must be one non-negative integer: the id of the last commit received");
  }

  open(client: EventClient, query: URLSearchParams): void {
    if (this.#closed) return;
    const raw = query.get("after");
    const after = raw === null ? null : parseAfter(raw);
    this.#subscribe();
    const follower: Follower = { from: after ?? this.#lastSeq ?? 0, replaying: after !== null, pending: [], held: 0 };
    this.#followers.set(client, follower);
    client.onClose(() => {
      this.#followers.delete(client);
      if (this.#followers.size === 0) this.#unsubscribeHub();
    });
    if (after === null) return;
    this.#replay(client, follower, after).catch((error: unknown) => {
      this.#options.log.error("replaying commits failed", { error: (error as Error).stack ?? String(error) });
      client.close(1011, "internal error");
    });
  }

  close(): void {
    this.#closed = true;
    this.#unsubscribeHub();
    this.#followers.clear();
    this.#store?.db.close();
    this.#store = null;
  }

  #subscribe(): void {
    if (this.#unsubscribe !== null) return;
    this.#unsubscribe = this.#options.hub.subscribe((event) => this.#onEvent(event));
    // Nothing is published between these two lines: commits the hub brings later at or below this
    // seq were in the store when a replay started.
    this.#lastSeq = this.#maxSeq();
  }

  #unsubscribeHub(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#lastSeq = null;
    this.#batch = [];
  }

  #onEvent(event: LiveEvent): void {
    if (event.source !== "commit" || this.#closed) return;
    // The hub calls every subscriber in turn: nothing here may throw into it.
    try {
      const seq = event.id;
      if (this.#lastSeq !== null) {
        if (seq <= this.#lastSeq) return;
        if (seq > this.#lastSeq + 1) this.#fill(this.#lastSeq, seq);
      }
      this.#lastSeq = seq;
      const r = event.payload as Receipt;
      if (!this.#readableNow().has(r.tenant)) return;
      this.#queue(seq, commitFrame({ seq, tenant: r.tenant, namespace: r.namespace, aggregate: this.#aggregateOf(r), subject: r.subject, action: r.action, outcome: r.outcome, committedAt: Date.parse(r.committedAt) }));
    } catch (error) {
      this.#options.log.error("a commit frame failed", { error: (error as Error).stack ?? String(error) });
    }
  }

  /** Queues the readable history entries strictly between `from` and `to`, which the hub skipped. */
  #fill(from: number, to: number): void {
    const store = this.#open();
    const rows = store === null ? null : (store.gap.all(from, to, this.#fillMax + 1) as unknown as Commit[]);
    if (rows === null || rows.length > this.#fillMax) {
      this.#options.log.warn("commits missed by the event stream; its clients catch up from the store", { from, to });
      for (const client of [...this.#followers.keys()]) client.close(CLOSE.behind, "missed commits; reconnect with ?after=<the last id received>");
      return;
    }
    const tenants = this.#readableNow();
    for (const row of rows) if (tenants.has(row.tenant)) this.#queue(row.seq, commitFrame(row));
  }

  #queue(seq: number, json: Buffer): void {
    this.#batch.push({ seq, json });
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    const period = this.#flushMs ?? Math.min(this.#maxFlushMs, (this.#followers.size * 1000) / this.#writesPerSecond);
    const wait = this.#lastFlush + period - performance.now();
    if (wait <= 0) setImmediate(() => this.#flush());
    else setTimeout(() => this.#flush(), wait);
  }

  #flush(): void {
    this.#flushScheduled = false;
    this.#lastFlush = performance.now();
    const frames = this.#batch;
    this.#batch = [];
    if (frames.length === 0 || this.#closed) return;
    const batch: Batch = { first: (frames[0] as Frame).seq, last: (frames.at(-1) as Frame).seq, frames, wire: wireFrames(frames.map((f) => f.json)) };
    for (const [client, follower] of this.#followers) {
      if (!follower.replaying) this.#deliver(client, follower, batch);
      else if (client.hold(batch.wire.length)) {
        follower.pending.push(batch);
        follower.held += batch.wire.length;
      }
    }
  }

  /** Sends the frames of `batch` the client has not had; false when the client is closed. */
  #deliver(client: EventClient, follower: Follower, batch: Batch): boolean {
    if (batch.last <= follower.from) return true;
    const wire = batch.first > follower.from ? batch.wire : wireFrames(batch.frames.filter((f) => f.seq > follower.from).map((f) => f.json));
    follower.from = batch.last;
    return client.send(wire);
  }

  async #replay(client: EventClient, follower: Follower, after: number): Promise<void> {
    let cursor = after;
    for (;;) {
      if (client.closed) return;
      const page = this.#page(cursor);
      if (page.frames.length > 0 && !client.send(wireFrames(page.frames))) return;
      cursor = page.end;
      if (page.done) break;
      // The next page is read once the client has taken most of this one: memory stays one page or two.
      if (client.behind > follower.held + this.#pageBytes) await client.drained();
      else await new Promise((resolve) => setImmediate(resolve));
    }
    if (client.closed) return;
    // The replay reached the history's end in this turn: live from here, without what it covered.
    follower.replaying = false;
    follower.from = cursor;
    client.release(follower.held);
    follower.held = 0;
    const pending = follower.pending;
    follower.pending = [];
    for (const batch of pending) if (!this.#deliver(client, follower, batch)) return;
  }

  /** The readable frames of the history after `cursor`, one page; `end` is the last seq it covers. */
  #page(cursor: number): { frames: Buffer[]; end: number; done: boolean } {
    const store = this.#open();
    const max = store === null ? cursor : this.#maxSeq() ?? cursor;
    if (store === null || max <= cursor) return { frames: [], end: cursor, done: true };
    const tenants = this.#readableNow();
    // Nothing to read: the history up to here is covered at once.
    if (tenants.size === 0) return { frames: [], end: max, done: true };
    const hi = Math.min(max, cursor + this.#pageRows);
    const frames: Buffer[] = [];
    let bytes = 0;
    let end = hi;
    for (const row of store.range.iterate(cursor, hi) as Iterable<Commit>) {
      if (!tenants.has(row.tenant)) continue;
      const json = commitFrame(row);
      frames.push(json);
      bytes += json.length;
      if (bytes >= this.#pageBytes && row.seq < hi) {
        end = row.seq;
        break;
      }
    }
    return { frames, end, done: end >= max };
  }

  /** The tenants the person reads, looked up once per turn of the event loop. */
  #readableNow(): ReadonlySet<string> {
    if (this.#readable !== null) return this.#readable;
    let tenants = NONE;
    const did = this.#options.personDid();
    const store = did === null ? null : this.#open();
    if (store !== null) tenants = new Set((store.readable.all(did) as { tenant: string }[]).map((r) => r.tenant));
    this.#readable = tenants;
    setImmediate(() => (this.#readable = null));
    return tenants;
  }

  /** The aggregate of a receipt's action, from its artifact's schema (else from its history entry). */
  #aggregateOf(r: Receipt): string {
    let actions = this.#aggregates.get(r.artifact);
    if (actions === undefined) {
      const store = this.#open();
      const row = store?.schema.get(r.artifact) as { schema: string } | undefined;
      if (row !== undefined) {
        const map = new Map<string, string>();
        // The engine runs the first action of that name (workers/engine/artifact-cache.ts).
        for (const action of Object.values((JSON.parse(row.schema) as Schema).actions)) if (!map.has(action.name)) map.set(action.name, action.aggregate);
        if (this.#aggregates.size >= MAX_ARTIFACTS) this.#aggregates.clear();
        this.#aggregates.set(r.artifact, map);
        actions = map;
      }
    }
    const aggregate = actions?.get(r.action);
    if (aggregate !== undefined) return aggregate;
    const entry = this.#open()?.aggregateAt.get(r.seq) as { aggregate: string } | undefined;
    return entry?.aggregate ?? "";
  }

  #maxSeq(): number | null {
    const store = this.#open();
    return store === null ? null : (store.maxSeq.get() as { seq: number }).seq;
  }

  /** The read-only connection, opened on first use; null while the store cannot be read yet. */
  #open(): Store | null {
    if (this.#store !== null || this.#closed) return this.#store;
    let db: DatabaseSync | null = null;
    try {
      db = openDatabase(this.#options.storePath, { readOnly: true });
      const columns = "seq, tenant, namespace, aggregate, subject, action, outcome, committed_at AS committedAt";
      this.#store = {
        db,
        maxSeq: db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM history"),
        range: db.prepare(`SELECT ${columns} FROM history WHERE seq > ? AND seq <= ? ORDER BY seq`),
        gap: db.prepare(`SELECT ${columns} FROM history WHERE seq > ? AND seq < ? ORDER BY seq LIMIT ?`),
        readable: db.prepare("SELECT DISTINCT tenant FROM tenant_roles WHERE did = ? AND role IN ('owner', 'member')"),
        schema: db.prepare("SELECT schema FROM artifacts WHERE id = ?"),
        aggregateAt: db.prepare("SELECT aggregate FROM history WHERE seq = ?"),
      };
    } catch (error) {
      db?.close();
      this.#options.log.debug("the store cannot be read yet", { error: (error as Error).message });
    }
    return this.#store;
  }
}
