/**
 * @module The sync worker: keeps a person's paired devices in step (README "Paired devices").
 *
 * - It pins devices: a pairing code it makes (single use, 10 minutes, burnt after 5 wrong tries),
 *   spent by a device's signed `charter-pair+jws`; or, on a device that joined, the home node.
 * - It exchanges signed commands (shared/devices/peer-protocol.ts): a device dials its home node over
 *   HTTP(S) — `POST {home}/sync/exchange`, each request and reply signed by the sender's node key and
 *   checked against the pinned one — sending what the home lacks and asking for what it lacks,
 *   holding the request open (a long poll) when neither has anything new, and pushing its own new
 *   commands at once. The home node answers through the gateway's `/sync/exchange` route.
 * - Every received command is verified (its origin's stamp, the person's signature) before the
 *   engine applies it (workers/engine/merge): one forged command refuses the whole exchange, and
 *   nothing of it is applied or passed on.
 * - Revocations signed by the person's root key travel with every exchange; a revoked device is
 *   refused from then on.
 *
 * Nothing paired, it idles.
 */
import { join } from "node:path";
import type { Server } from "node:net";
import { DatabaseSync } from "node:sqlite";
import { listenPrivateChannels } from "../../shared/channel/socket.ts";
import type { Channel } from "../../shared/channel/channel.ts";
import { loadOrCreateNodeKey, type KeyPair, type Receipt } from "../../shared/identity/index.ts";
import { openDatabase } from "../../shared/store/open.ts";
import { type Problem, problem } from "../../shared/problem.ts";
import type { PeerStatus, SyncNotices, SyncRequests, SyncStatus } from "../../shared/protocol/sync.ts";
import { EntryReader, jwsDigest, parseEntry, verifyEntry, type VerifiedEntry, type VersionVector } from "../../shared/devices/entries.ts";
import {
  exchangeReplyOf,
  exchangeRequestOf,
  FRESH_MS,
  MAX_EXCHANGE_BYTES,
  MAX_EXCHANGE_ENTRIES,
  MAX_WAIT_MS,
  newNonce,
  openMessage,
  PAIR_TYP,
  REVOKE_TYP,
  signMessage,
  SYNC_REPLY_TYP,
  SYNC_TYP,
  type PeerRow,
} from "../../shared/devices/peer-protocol.ts";
import { dataPaths } from "../../shared/worker/config.ts";
import { EngineLink } from "../../shared/worker/engine-link.ts";
import { FatalError } from "../../shared/worker/fatal.ts";
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";
import { PeerStore } from "./peer-store.ts";

/** What sync reports while no device syncs with the node. */
export const IDLE_STATUS = "idle: no device to sync with";

type HostChannel = Channel<SyncNotices & Record<string, never>, SyncRequests>;

/** Engine requests carry at most this many commands. */
const APPLY_CHUNK = 500;
/** A device counts as connected this long after its last exchange. */
const CONNECTED_MS = 60_000;

/** A node-to-node answer that is a problem document. */
const problemBody = (p: Problem) => ({ status: p.status, type: "application/problem+json", body: JSON.stringify(p) });

export async function startSync(ctx: WorkerContext): Promise<RunningWorker> {
  const sync = new SyncWorker(ctx);
  await sync.start();
  return { drain: () => sync.close() };
}

class SyncWorker {
  readonly #ctx: WorkerContext;
  readonly #channels = new Set<HostChannel>();
  readonly #engine: EngineLink;
  readonly #waiters = new Set<() => void>();
  readonly #nonces = new Map<string, number>();
  readonly #dialers = new Map<string, Dialer>();
  readonly #held = new Map<string, string | null>();
  readonly #busy = new Set<string>();
  #key: KeyPair | null = null;
  #peers: PeerStore | null = null;
  #reader: EntryReader | null = null;
  #store: DatabaseSync | null = null;
  #server: Server | null = null;
  #closed = false;

  constructor(ctx: WorkerContext) {
    this.#ctx = ctx;
    this.#engine = new EngineLink(dataPaths(ctx.config.dataDir).engineSocket, {
      onConnect: (channel) => {
        channel.onNotice("committed", ({ receipts }) => this.#committed(receipts));
        void channel.request("watch-commits", { watch: true }).catch(() => {});
      },
    });
  }

  async start(): Promise<void> {
    const paths = dataPaths(this.#ctx.config.dataDir);
    const key = await loadOrCreateNodeKey(this.#ctx.config.dataDir);
    if (!key.ok) throw new FatalError(key.error.message);
    this.#key = key.value;
    this.#peers = new PeerStore(openDatabase(join(this.#ctx.config.dataDir, "sync.db")));
    void this.#engine.channel().catch(() => {});
    this.#server = await listenPrivateChannels<SyncNotices & Record<string, never>, SyncRequests>(join(paths.run, "sync.sock"), (channel) => this.#accept(channel as unknown as HostChannel));
    for (const p of this.#peers.peers()) if (p.role === "home" && p.revoked_at === null && p.url !== null) this.#dial(p);
    this.#report();
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const d of this.#dialers.values()) d.stop();
    for (const wake of this.#waiters) wake();
    for (const c of this.#channels) c.close();
    this.#server?.close();
    await this.#engine.close();
    this.#store?.close();
  }

  get #me(): KeyPair {
    return this.#key as KeyPair;
  }

  get #store_(): PeerStore {
    return this.#peers as PeerStore;
  }

  /** The store, read-only (the engine writes it), opened once it exists. */
  #entries(): EntryReader {
    if (this.#reader === null) {
      this.#store = new DatabaseSync(dataPaths(this.#ctx.config.dataDir).store, { readOnly: true, timeout: 5000 });
      this.#reader = new EntryReader(this.#store);
    }
    return this.#reader;
  }

  #accept(channel: HostChannel): void {
    this.#channels.add(channel);
    channel.onClose(() => this.#channels.delete(channel));
    channel.handle("sync-status", () => this.#status());
    channel.handle("pair-code", ({ tenant }) => {
      const made = this.#store_.newCode(tenant, Date.now());
      return { code: made.code, expiresAt: new Date(made.expiresAt).toISOString() };
    });
    channel.handle("pair-accept", ({ jws }) => this.#pairAccept(jws));
    channel.handle("join-home", async ({ home, url, name, tenant }) => {
      this.#store_.pin(home, name, "home", url, Date.now());
      this.#store_.setTenant(tenant);
      const peer = this.#store_.peer(home);
      if (peer !== null && peer.revoked_at === null) this.#dial(peer);
      this.#report();
      return { ok: true as const };
    });
    channel.handle("enable", async ({ tenant }) => {
      await this.#engine.request("sync-enable", { tenant });
      this.#store_.setTenant(tenant);
      for (const d of this.#dialers.values()) d.wake();
      this.#report();
      return { ok: true as const };
    });
    channel.handle("exchange", ({ jws }) => this.#answer(jws));
    channel.handle("revoke", async ({ device, statement }) => ({ revoked: await this.#revoke(device, statement) }));
  }

  async #pairAccept(jws: string): Promise<SyncRequests["pair-accept"]["response"]> {
    const opened = openMessage(jws, PAIR_TYP);
    if (!opened.ok) return { ok: false, status: 400, code: "bad-pairing", detail: opened.error };
    const b = opened.value.body;
    const name = typeof b.name === "string" ? b.name.slice(0, 100) : "";
    if (b.device !== opened.value.signer || typeof b.code !== "string" || b.code.length > 20 || typeof b.at !== "number" || name === "") {
      return { ok: false, status: 400, code: "bad-pairing", detail: "a pairing request names the signing device, a name, the code and its time" };
    }
    if (Math.abs(b.at - Date.now()) > FRESH_MS) return { ok: false, status: 400, code: "bad-pairing", detail: "the pairing request is not fresh (check both machines' clocks)" };
    const device = opened.value.signer;
    if (device === this.#me.did) return { ok: false, status: 400, code: "bad-pairing", detail: "a node cannot pair with itself" };
    if (this.#store_.peer(device)?.revoked_at != null) return { ok: false, status: 403, code: "device-revoked", detail: "this device was revoked; it cannot pair again with the same key" };
    const spent = this.#store_.spendCode(b.code, Date.now());
    if (!spent.ok) {
      const detail = { none: "no pairing code is live: make one on the home node", expired: "the pairing code expired: make a new one", wrong: "the pairing code is wrong", burnt: "too many wrong codes: the pairing code is burnt; make a new one" }[spent.why];
      return { ok: false, status: 403, code: "bad-pairing-code", detail };
    }
    await this.#engine.request("sync-enable", { tenant: spent.tenant });
    this.#store_.setTenant(spent.tenant);
    this.#store_.pin(device, name, "device", null, Date.now());
    this.#ctx.log.info("device paired", { device, name });
    this.#report();
    return { ok: true, device, name, code: b.code, tenant: spent.tenant };
  }

  /** Applies verified revocations (the gateway checked this one; others arrive with exchanges). */
  async #revoke(device: string, statement: string): Promise<boolean> {
    const tenant = this.#store_.tenant();
    const fresh = this.#store_.revoke(device, Date.now());
    if (tenant !== null) await this.#engine.request("sync-revoke", { tenant, device, statement }).catch(() => ({ revoked: false }));
    this.#dialers.get(device)?.stop();
    this.#dialers.delete(device);
    // A long poll the device has open is answered now, and refused (below): it learns at once.
    for (const wake of [...this.#waiters]) wake();
    if (fresh) this.#ctx.log.warn("device revoked", { device });
    this.#report();
    return fresh;
  }

  /** The revocation statements this node holds, to pass on. */
  #statements(tenant: string): string[] {
    try {
      return (this.#entriesDb().prepare("SELECT statement FROM sync_revoked WHERE tenant = ? ORDER BY at LIMIT 64").all(tenant) as { statement: string }[]).map((r) => r.statement);
    } catch {
      return [];
    }
  }

  #entriesDb(): DatabaseSync {
    this.#entries();
    return this.#store as DatabaseSync;
  }

  /** Takes revocations a peer passed on: each must be signed by an owner of the tenant, for this tenant. */
  async #takeRevocations(tenant: string, statements: readonly string[]): Promise<void> {
    for (const s of statements) {
      const opened = openMessage(s, REVOKE_TYP);
      if (!opened.ok) continue;
      const { body, signer } = opened.value;
      if (body.tenant !== tenant || typeof body.device !== "string") continue;
      const owner = this.#entriesDb().prepare("SELECT 1 FROM tenant_roles WHERE tenant = ? AND did = ? AND role = 'owner'").get(tenant, signer);
      if (owner === undefined) continue;
      if (this.#store_.peer(body.device)?.revoked_at != null) continue;
      await this.#revoke(body.device, s);
    }
  }

  /** Answers a device's exchange (`POST /sync/exchange` on this node). */
  async #answer(jws: string): Promise<{ status: number; type: string; body: string }> {
    const opened = openMessage(jws, SYNC_TYP);
    if (!opened.ok) return problemBody(problem(400, "bad-exchange", opened.error));
    const req = exchangeRequestOf(opened.value.signer, opened.value.body);
    if (!req.ok) return problemBody(problem(400, "bad-exchange", req.error));
    const r = req.value;
    const peer = this.#store_.peer(r.from);
    if (peer === null) return problemBody(problem(401, "unknown-device", "this node has not paired with that device"));
    if (peer.revoked_at !== null) return problemBody(problem(403, "device-revoked", "that device was revoked by the person; it cannot sync again"));
    if (r.to !== this.#me.did) return problemBody(problem(400, "bad-exchange", "the exchange is addressed to another node"));
    const now = Date.now();
    if (Math.abs(r.at - now) > FRESH_MS) return problemBody(problem(400, "bad-exchange", "the exchange is not fresh (check both machines' clocks)"));
    for (const [n, at] of this.#nonces) if (at < now - 2 * FRESH_MS) this.#nonces.delete(n);
    if (this.#nonces.has(r.nonce) || this.#nonces.size > 100_000) return problemBody(problem(400, "bad-exchange", "the exchange's nonce was used already"));
    this.#nonces.set(r.nonce, now);
    const tenant = this.#store_.tenant();
    if (tenant === null || r.tenant !== tenant) return problemBody(problem(400, "bad-exchange", `this node syncs ${tenant === null ? "no tenant yet" : `tenant '${tenant}'`}`));
    await this.#takeRevocations(tenant, r.revoked);
    if (this.#store_.peer(r.from)?.revoked_at != null) return problemBody(problem(403, "device-revoked", "that device was revoked by the person; it cannot sync again"));
    const verified = verifyAll(tenant, r.entries);
    if (!verified.ok) {
      this.#ctx.log.warn("refused an exchange with a command that does not verify", { device: r.from, reason: verified.error });
      this.#store_.contact(r.from, now, null, `sent a command that does not verify: ${verified.error}`);
      return problemBody(problem(400, "bad-entry", `nothing was applied: ${verified.error}`));
    }
    this.#busy.add(r.from);
    try {
      const held = await this.#apply(tenant, verified.value);
      this.#held.set(r.from, held);
      // Nothing to send back yet: wait (a long poll) for a commit here, or the time the device allows.
      let out = this.#entries().missing(tenant, r.vv, MAX_EXCHANGE_ENTRIES, MAX_EXCHANGE_BYTES);
      if (out.entries.length === 0 && r.wait > 0 && !this.#closed) {
        await this.#wait(r.wait);
        if (this.#store_.peer(r.from)?.revoked_at != null) return problemBody(problem(403, "device-revoked", "that device was revoked by the person; it cannot sync again"));
        out = this.#entries().missing(tenant, r.vv, MAX_EXCHANGE_ENTRIES, MAX_EXCHANGE_BYTES);
      }
      const vv = this.#entries().versionVector(tenant);
      this.#store_.contact(r.from, Date.now(), r.vv, null);
      this.#report();
      const reply = signMessage(this.#me, SYNC_REPLY_TYP, { from: this.#me.did, to: r.from, re: jwsDigest(jws), vv, entries: out.entries, more: out.more, revoked: this.#statements(tenant), held });
      return { status: 200, type: "application/jose", body: reply };
    } finally {
      this.#busy.delete(r.from);
    }
  }

  /** Applies verified commands in chunks; answers why some were held back, or null. */
  async #apply(tenant: string, entries: readonly VerifiedEntry[]): Promise<string | null> {
    let held: string | null = null;
    for (let i = 0; i < entries.length; i += APPLY_CHUNK) {
      const r = await this.#engine.request("sync-apply", { tenant, entries: entries.slice(i, i + APPLY_CHUNK) as VerifiedEntry[] });
      if (r.held !== null) held ??= r.held.why;
    }
    return held;
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
    });
  }

  #committed(receipts: readonly Receipt[]): void {
    const tenant = this.#store_.tenant();
    if (tenant === null || !receipts.some((r) => r.tenant === tenant)) return;
    for (const wake of [...this.#waiters]) wake();
    for (const d of this.#dialers.values()) d.push();
  }

  #dial(peer: PeerRow): void {
    if (this.#dialers.has(peer.did) || peer.url === null) return;
    const dialer = new Dialer({
      peer: peer.did,
      theirs: peer.their_vv === null ? {} : (JSON.parse(peer.their_vv) as VersionVector),
      url: peer.url,
      me: this.#me,
      tenant: () => this.#store_.tenant(),
      enabled: (tenant) => this.#entriesDb().prepare("SELECT 1 FROM sync_tenants WHERE tenant = ?").get(tenant) !== undefined,
      entries: () => this.#entries(),
      statements: (tenant) => this.#statements(tenant),
      apply: (tenant, entries) => this.#apply(tenant, entries),
      revocations: (tenant, s) => this.#takeRevocations(tenant, s),
      contact: (theirs, error) => {
        this.#store_.contact(peer.did, Date.now(), theirs, error);
        this.#report();
      },
      revoked: () => {
        this.#store_.revoke(peer.did, Date.now());
        this.#report();
      },
      held: (why) => this.#held.set(peer.did, why),
      log: this.#ctx.log,
    });
    this.#dialers.set(peer.did, dialer);
    dialer.start();
  }

  #status(): SyncStatus {
    const tenant = this.#store_.tenant();
    let mine: VersionVector = {};
    let commands = 0;
    try {
      if (tenant !== null) {
        mine = this.#entries().versionVector(tenant);
        commands = Object.values(mine).reduce((a, b) => a + b, 0);
      }
    } catch {
      // The store is not there yet (a node not set up): nothing is held.
    }
    const now = Date.now();
    const peers = this.#store_.peers().map((p): PeerStatus => {
      const theirs = p.their_vv === null ? null : (JSON.parse(p.their_vv) as VersionVector);
      return {
        did: p.did,
        name: p.name,
        role: p.role,
        url: p.url,
        pairedAt: new Date(p.paired_at).toISOString(),
        revokedAt: p.revoked_at === null ? null : new Date(p.revoked_at).toISOString(),
        lastContact: p.last_contact === null ? null : new Date(p.last_contact).toISOString(),
        lastError: p.last_error,
        connected: p.revoked_at === null && (this.#busy.has(p.did) || this.#dialers.get(p.did)?.connected() === true || (p.last_contact !== null && now - p.last_contact < CONNECTED_MS && p.last_error === null)),
        pendingIn: theirs === null ? null : ahead(theirs, mine),
        pendingOut: theirs === null ? null : ahead(mine, theirs),
        held: this.#held.get(p.did) ?? null,
      };
    });
    return { node: this.#me.did, tenant, commands, peers };
  }

  /** Tells the gateway and the console what changed. */
  #report(): void {
    if (this.#closed) return;
    const status = this.#status();
    for (const c of this.#channels) {
      (c.notify as (k: string, b: unknown) => void)("sync-status", { status });
      c.flush();
    }
    const live = status.peers.filter((p) => p.revokedAt === null);
    this.#ctx.status(live.length === 0 ? IDLE_STATUS : `${live.length} paired device${live.length === 1 ? "" : "s"}, ${live.filter((p) => p.connected).length} connected; ${status.commands} commands`);
  }
}

/** How many commands `a` holds that `b` lacks. */
function ahead(a: VersionVector, b: VersionVector): number {
  let n = 0;
  for (const [o, top] of Object.entries(a)) n += Math.max(0, top - (b[o] ?? 0));
  return n;
}

const merged = (a: VersionVector, b: VersionVector): VersionVector => {
  const out: Record<string, number> = { ...a };
  for (const [o, n] of Object.entries(b)) out[o] = Math.max(out[o] ?? 0, n);
  return out;
};

/** Every entry parsed and verified, or the first reason one is not (nothing of the list is used then). */
function verifyAll(tenant: string, raw: readonly unknown[]): { ok: true; value: VerifiedEntry[] } | { ok: false; error: string } {
  const out: VerifiedEntry[] = [];
  for (const item of raw) {
    const parsed = parseEntry(item);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    const v = verifyEntry(tenant, parsed.value);
    if (!v.ok) return { ok: false, error: v.error };
    out.push(v.value);
  }
  return { ok: true, value: out };
}

interface DialerDeps {
  readonly peer: string;
  /** What the home node held at the last contact (so a restart does not send it all again). */
  readonly theirs: VersionVector;
  readonly url: string;
  readonly me: KeyPair;
  readonly tenant: () => string | null;
  readonly enabled: (tenant: string) => boolean;
  readonly entries: () => EntryReader;
  readonly statements: (tenant: string) => string[];
  readonly apply: (tenant: string, entries: readonly VerifiedEntry[]) => Promise<string | null>;
  readonly revocations: (tenant: string, statements: readonly string[]) => Promise<void>;
  readonly contact: (theirs: VersionVector | null, error: string | null) => void;
  readonly revoked: () => void;
  readonly held: (why: string | null) => void;
  readonly log: WorkerContext["log"];
}

/**
 * A device's link to its home node: a long poll that brings the home's new commands, and pushes of
 * this device's own as they commit. Failures back off from 1 to 30 seconds.
 */
class Dialer {
  readonly #d: DialerDeps;
  #theirs: VersionVector;
  #stopped = false;
  #pushing = false;
  #pushAgain = false;
  #wakeLoop: (() => void) | null = null;
  #lastOk = 0;
  readonly #controller = new AbortController();

  constructor(deps: DialerDeps) {
    this.#d = deps;
    this.#theirs = deps.theirs;
  }

  connected(): boolean {
    return Date.now() - this.#lastOk < CONNECTED_MS;
  }

  start(): void {
    void this.#loop();
  }

  stop(): void {
    this.#stopped = true;
    this.#controller.abort();
    this.#wakeLoop?.();
  }

  wake(): void {
    this.#wakeLoop?.();
  }

  /** This node committed something: send it now (one push at a time; another follows if more came meanwhile). */
  push(): void {
    if (this.#stopped) return;
    if (this.#pushing) {
      this.#pushAgain = true;
      return;
    }
    this.#pushing = true;
    void (async () => {
      try {
        do {
          this.#pushAgain = false;
          await this.#exchange(0).catch((error: unknown) => {
            if (error instanceof RevokedError) this.#wasRevoked();
          });
        } while (this.#pushAgain && !this.#stopped);
      } finally {
        this.#pushing = false;
      }
    })();
  }

  async #loop(): Promise<void> {
    let backoff = 1000;
    while (!this.#stopped) {
      const tenant = this.#d.tenant();
      if (tenant === null || !this.#enabledSafe(tenant)) {
        await this.#sleep(2000);
        continue;
      }
      try {
        const more = await this.#exchange(MAX_WAIT_MS);
        backoff = 1000;
        if (!more) continue;
      } catch (error) {
        if (this.#stopped) break;
        if (error instanceof RevokedError) {
          this.#wasRevoked();
          break;
        }
        this.#d.contact(null, (error as Error).message);
        await this.#sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }

  /** The home node refused this device as revoked (to a push or the long poll): sync stops, once. */
  #wasRevoked(): void {
    if (this.#stopped) return;
    this.stop();
    this.#d.revoked();
    this.#d.log.warn("this device was revoked by the home node; sync stops", { home: this.#d.peer });
  }

  #enabledSafe(tenant: string): boolean {
    try {
      return this.#d.enabled(tenant);
    } catch {
      return false;
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.#wakeLoop = null;
        resolve();
      }, ms);
      this.#wakeLoop = () => {
        clearTimeout(t);
        this.#wakeLoop = null;
        resolve();
      };
    });
  }

  /** One exchange; answers whether either side has more to send. */
  async #exchange(wait: number): Promise<boolean> {
    const tenant = this.#d.tenant();
    if (tenant === null) return false;
    const reader = this.#d.entries();
    const out = reader.missing(tenant, this.#theirs, MAX_EXCHANGE_ENTRIES, MAX_EXCHANGE_BYTES);
    const vv = reader.versionVector(tenant);
    const jws = signMessage(this.#d.me, SYNC_TYP, { from: this.#d.me.did, to: this.#d.peer, at: Date.now(), nonce: newNonce(), tenant, vv, entries: out.entries, wait: out.entries.length > 0 ? 0 : wait, revoked: this.#d.statements(tenant) });
    const response = await fetch(new URL("/sync/exchange", this.#d.url), {
      method: "POST",
      headers: { "content-type": "application/jose" },
      body: jws,
      signal: AbortSignal.any([this.#controller.signal, AbortSignal.timeout(wait + 30_000)]),
    });
    const text = await response.text();
    if (response.status === 403 && text.includes("device-revoked")) throw new RevokedError();
    if (response.status !== 200) throw new Error(`the home node answered ${response.status}: ${text.slice(0, 300)}`);
    const opened = openMessage(text, SYNC_REPLY_TYP);
    if (!opened.ok) throw new Error(`the home node's reply does not verify: ${opened.error}`);
    if (opened.value.signer !== this.#d.peer) throw new Error(`the reply is signed by ${opened.value.signer}, not the pinned home node`);
    const reply = exchangeReplyOf(opened.value.signer, opened.value.body);
    if (!reply.ok) throw new Error(`the home node's reply is malformed: ${reply.error}`);
    const r = reply.value;
    if (r.re !== jwsDigest(jws) || r.to !== this.#d.me.did) throw new Error("the reply does not answer this request");
    await this.#d.revocations(tenant, r.revoked);
    const verified = verifyAll(tenant, r.entries);
    if (!verified.ok) throw new Error(`the home node sent a command that does not verify; nothing applied: ${verified.error}`);
    const held = verified.value.length > 0 ? await this.#d.apply(tenant, verified.value) : null;
    this.#d.held(held ?? r.held);
    this.#theirs = merged(this.#theirs, r.vv);
    this.#lastOk = Date.now();
    this.#d.contact(r.vv, null);
    // Sent commands the home held back (a contract it lacks): do not send them again at once.
    const sentAhead = out.entries.length > 0 && r.held !== null;
    return !sentAhead && (r.more || out.more || (verified.value.length > 0 && held === null));
  }
}

class RevokedError extends Error {}
