/**
 * @module Three (or any odd number of) voters as real `charter serve` process trees on 127.0.0.1,
 * for the replicated engine's end-to-end tests (issue 7): each voter has its own temp data
 * directory, node key and fixed ports (so a restarted voter comes back at the same address), and,
 * optionally, a TCP proxy on every ordered pair of voters (`ChaosProxy`) so a voter can be cut off.
 *
 * Faults: `kill(id)` is `kill -9` of the voter's whole process tree at once (the supervisor runs
 * in its own process group, which its workers inherit), `restart(id, {emptyDataDir})` starts it
 * again, on an empty data directory that keeps only its node key if asked, and `isolate(id)` /
 * `heal()` black-hole and restore the voter's peer traffic in both directions.
 *
 * Also here: a command sender that retries one signed command (same bytes, same idempotency key)
 * on every voter until it gets a receipt, and a digest of a voter's replicated store.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after } from "node:test";
import { loadOrCreateNodeKey, NODE_KEY_FILE } from "../../shared/identity/key-file.ts";
import { verifyReceipt } from "../../shared/identity/receipt.ts";
import type { ConsensusStatus } from "../../shared/protocol/engine.ts";
import { processAlive } from "../../shared/store/lock.ts";
import { type BlockMode, ChaosProxy } from "./chaos-proxy.ts";
import { charterBin, lockOf, sleep } from "./charter-process.ts";
import { freePort } from "./ports.ts";

export { freePort };

/** What `/health` says about consensus: the voter's own status as the engine reports it. */
export type Consensus = ConsensusStatus;

export interface Voter {
  readonly id: string;
  readonly dataDir: string;
  readonly did: string;
  readonly httpPort: number;
  readonly peerPort: number;
  readonly url: string;
  /** The running supervisor, or null while the voter is down. */
  child: ChildProcess | null;
  exited: Promise<void>;
  /** Everything every incarnation printed, each headed by a `--- start N` line (also in ROOT/ID.out). */
  output: string;
  starts: number;
}

export interface ClusterOptions {
  /** Odd; default 3. */
  readonly size?: number;
  /** A ChaosProxy between every ordered pair of voters (needed for `isolate`). */
  readonly proxies?: boolean;
  /** Extra environment for every voter (e.g. CHARTER_RAFT_SNAPSHOT_EVERY). */
  readonly env?: Record<string, string>;
}

const IDS = "abcdefghi";
/** Clusters still running when a test file ends (a failed test may not reach its stop). */
const running = new Set<Cluster>();
after(async () => {
  for (const c of running) await c.stop();
});
// Should the test process die without its hooks, take the voters' process groups with it.
process.on("exit", () => {
  for (const c of running) c.killAllNow();
});

export class Cluster {
  readonly root: string;
  readonly voters: Voter[];
  readonly #env: Record<string, string>;
  /** `from>to` → the proxy `from` dials to reach `to`. */
  readonly #proxies = new Map<string, ChaosProxy>();
  #stopped = false;

  private constructor(root: string, voters: Voter[], env: Record<string, string>) {
    this.root = root;
    this.voters = voters;
    this.#env = env;
  }

  /** Creates the voters' keys and ports (and proxies), starts every voter and waits until each listens. */
  static async start(options: ClusterOptions = {}): Promise<Cluster> {
    const size = options.size ?? 3;
    const root = mkdtempSync(join(tmpdir(), "charter-cluster-"));
    const voters: Voter[] = [];
    for (let i = 0; i < size; i++) {
      const id = IDS[i] as string;
      const dataDir = join(root, id);
      const key = await loadOrCreateNodeKey(dataDir);
      if (!key.ok) throw new Error(key.error.message);
      const httpPort = await freePort();
      voters.push({ id, dataDir, did: key.value.did, httpPort, peerPort: await freePort(), url: `http://127.0.0.1:${httpPort}`, child: null, exited: Promise.resolve(), output: "", starts: 0 });
    }
    const cluster = new Cluster(root, voters, options.env ?? {});
    running.add(cluster);
    if (options.proxies === true) {
      for (const from of voters) {
        for (const to of voters) {
          if (from !== to) cluster.#proxies.set(`${from.id}>${to.id}`, await ChaosProxy.start({ host: "127.0.0.1", port: to.peerPort }));
        }
      }
    }
    await Promise.all(voters.map((v) => cluster.#spawn(v)));
    return cluster;
  }

  voter(id: string): Voter {
    const v = this.voters.find((x) => x.id === id);
    if (v === undefined) throw new Error(`no voter ${id}`);
    return v;
  }

  get majority(): number {
    return Math.floor(this.voters.length / 2) + 1;
  }

  /** The `--peers` list voter `id` is given: itself at its peer port, the others through its proxies. */
  peersFor(id: string): string {
    return this.voters
      .map((w) => {
        const proxy = this.#proxies.get(`${id}>${w.id}`);
        return `${w.id}=${w.did}@127.0.0.1:${w.id === id || proxy === undefined ? w.peerPort : proxy.port}`;
      })
      .join(",");
  }

  async #spawn(v: Voter, timeoutMs = 30_000): Promise<void> {
    const args = [
      charterBin, "serve", "--data", v.dataDir, "--listen", `127.0.0.1:${v.httpPort}`, "--grpc", "127.0.0.1:0",
      "--voter-id", v.id, "--peers", this.peersFor(v.id), "--peer-listen", `127.0.0.1:${v.peerPort}`,
    ];
    // Its own process group: kill(-pid) reaches the supervisor and every worker at once.
    const child = spawn(process.execPath, args, { env: { ...process.env, ...this.#env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    v.starts++;
    v.child = child;
    const print = (text: string) => {
      v.output += text;
      appendFileSync(join(this.root, `${v.id}.out`), text);
    };
    print(`--- start ${v.starts} (pid ${child.pid}) at ${new Date().toISOString()}\n`);
    const mark = v.output.length;
    child.stdout?.on("data", (d: Buffer) => print(d.toString()));
    child.stderr?.on("data", (d: Buffer) => print(d.toString()));
    v.exited = new Promise<void>((resolve) =>
      child.on("exit", (code, signal) => {
        print(`--- exit ${code ?? signal} at ${new Date().toISOString()}\n`);
        if (v.child === child) v.child = null;
        resolve();
      }),
    );
    const deadline = Date.now() + timeoutMs;
    while (!/listening on http:\/\//.test(v.output.slice(mark))) {
      if (v.child !== child || Date.now() > deadline) throw new Error(`voter ${v.id} did not start:\n${this.tail(v.id)}`);
      await sleep(20);
    }
  }

  /** The last `lines` lines voter `id` printed. */
  tail(id: string, lines = 40): string {
    return this.voter(id).output.split("\n").slice(-lines).join("\n");
  }

  /** The voter's `/health` consensus, or null when it does not answer (within 2 s). */
  async consensus(id: string): Promise<Consensus | null> {
    try {
      const r = await fetch(`${this.voter(id).url}/health`, { signal: AbortSignal.timeout(2000) });
      const body = (await r.json()) as { consensus?: Consensus };
      return body.consensus ?? null;
    } catch {
      return null;
    }
  }

  /** Every voter's consensus (null for those down or not answering). */
  async statuses(): Promise<Map<string, Consensus | null>> {
    const all = await Promise.all(this.voters.map(async (v) => [v.id, v.child === null ? null : await this.consensus(v.id)] as const));
    return new Map(all);
  }

  /**
   * Polls until exactly one voter leads with a majority of voters (itself included) naming it
   * leader, other than `not`; its id.
   */
  async leader(options: { not?: string; timeoutMs?: number } = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    for (;;) {
      const s = await this.statuses();
      const leaders = [...s.values()].filter((c) => c?.role === "leader").map((c) => c?.id as string);
      const backed = leaders.filter((l) => [...s.values()].filter((c) => c?.leader === l).length >= this.majority);
      if (backed.length === 1 && backed[0] !== options.not) return backed[0] as string;
      if (Date.now() > deadline) throw new Error(`no leader backed by a majority: ${JSON.stringify([...s.entries()].map(([id, c]) => [id, c?.role, c?.term, c?.leader]))}`);
      await sleep(25);
    }
  }

  /** Followers of the current leader. */
  async followers(): Promise<string[]> {
    const l = await this.leader();
    return this.voters.map((v) => v.id).filter((id) => id !== l);
  }

  /**
   * Waits until every voter is up, agrees on one leader and has applied everything the leader has
   * committed, and the leader's log has nothing uncommitted; the agreed applied index.
   */
  async converged(timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = await this.statuses();
      const all = [...s.values()];
      const leader = all.find((c) => c?.role === "leader");
      const last = JSON.stringify(all.map((c) => c && [c.id, c.role, c.term, c.leader, c.commitIndex, c.appliedIndex, c.lastIndex]));
      if (
        leader !== undefined && leader !== null &&
        all.every((c) => c !== null && c.leader === leader.id && c.term === leader.term && c.appliedIndex === leader.commitIndex && !c.recovering) &&
        leader.lastIndex === leader.commitIndex
      ) {
        return leader.commitIndex;
      }
      if (Date.now() > deadline) throw new Error(`the voters did not converge: ${last}`);
      await sleep(50);
    }
  }

  /** `kill -9` of voter `id`'s whole process tree; resolves once every process of it is gone. */
  async kill(id: string): Promise<void> {
    const v = this.voter(id);
    const child = v.child;
    if (child === null) throw new Error(`voter ${id} is not running`);
    let pids: number[] = [];
    try {
      pids = Object.values(lockOf(v.dataDir).workers);
    } catch {
      // No lock yet: the group kill still reaches every worker.
    }
    process.kill(-(child.pid as number), "SIGKILL");
    await v.exited;
    const deadline = Date.now() + 10_000;
    while (pids.some((pid) => processAlive(pid))) {
      if (Date.now() > deadline) throw new Error(`voter ${id}'s workers ${pids.join(", ")} outlived the kill`);
      await sleep(10);
    }
  }

  /** Starts voter `id` again; with `emptyDataDir`, on an empty data directory that keeps only its node key. */
  async restart(id: string, options: { emptyDataDir?: boolean } = {}): Promise<void> {
    const v = this.voter(id);
    if (v.child !== null) throw new Error(`voter ${id} is running`);
    if (options.emptyDataDir === true) {
      for (const name of readdirSync(v.dataDir)) if (name !== NODE_KEY_FILE) rmSync(join(v.dataDir, name), { recursive: true, force: true });
    }
    await this.#spawn(v);
  }

  /** Cuts voter `id` off from every other voter, both directions (its clients still reach it). */
  isolate(id: string, mode: BlockMode = "blackhole"): void {
    if (this.#proxies.size === 0) throw new Error("isolate needs a cluster started with proxies");
    for (const [pair, proxy] of this.#proxies) {
      const [from, to] = pair.split(">");
      if (from === id || to === id) proxy.block(mode);
    }
  }

  /** Restores every link. */
  heal(): void {
    for (const proxy of this.#proxies.values()) proxy.heal();
  }

  /** Runs `charter ARGS` to completion (e.g. `tenant create` through a voter's admin socket); its stdout. */
  async cli(args: string[]): Promise<string> {
    const child = spawn(process.execPath, [charterBin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    if (code !== 0) throw new Error(`charter ${args.join(" ")} exited ${code}: ${err}${out}`);
    return out;
  }

  /** SIGTERM to every voter (SIGKILL to the group after 15 s), closes the proxies, removes the directories. */
  async stop(options: { keep?: boolean } = {}): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    running.delete(this);
    this.heal();
    await Promise.all(
      this.voters.map(async (v) => {
        const child = v.child;
        if (child === null) return;
        child.kill("SIGTERM");
        const timer = setTimeout(() => killGroup(child), 15_000);
        await v.exited;
        clearTimeout(timer);
        killGroup(child); // workers that outlived their supervisor
      }),
    );
    for (const proxy of this.#proxies.values()) await proxy.close();
    if (options.keep !== true && process.env.CHARTER_KEEP_CLUSTER === undefined) rmSync(this.root, { recursive: true, force: true });
  }

  /** Synchronous last resort (process exit): SIGKILL every voter's process group. */
  killAllNow(): void {
    for (const v of this.voters) if (v.child !== null) killGroup(v.child);
  }
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-(child.pid as number), "SIGKILL");
  } catch {
    // Already gone.
  }
}

// ---- commands ----------------------------------------------------------------------------------

/** How one command fared: sent at `call`, answered at `ret` (Infinity when no receipt came). */
export interface Sent {
  readonly jws: string;
  readonly path: string;
  readonly call: number;
  ret: number;
  status: number | null;
  receipt: { seq: number; outcome: string; state: Record<string, unknown> | null; node: string } | null;
  /** Attempts, and the answers other than receipts on the way (status or error), for diagnostics. */
  attempts: number;
  readonly failures: string[];
}

/**
 * Sends one signed command (the same bytes every time, so its idempotency key makes a retry
 * safe) to the voters (or `only` those) in turn, starting at `first`, until one answers with a
 * receipt (200 or 422) or `deadline` passes (or `cancelled` says so). A 4xx other than 422 is a bug in the test or the engine: thrown.
 */
export async function sendUntilReceipt(
  cluster: Cluster,
  path: string,
  jws: string,
  options: { first?: number; only?: readonly string[]; deadline?: number; attemptTimeoutMs?: number; cancelled?: () => boolean } = {},
): Promise<Sent> {
  const sent: Sent = { jws, path, call: Date.now(), ret: Infinity, status: null, receipt: null, attempts: 0, failures: [] };
  const deadline = options.deadline ?? Date.now() + 60_000;
  const voters = options.only === undefined ? cluster.voters : options.only.map((id) => cluster.voter(id));
  let i = options.first ?? 0;
  while (Date.now() < deadline && options.cancelled?.() !== true) {
    const v = voters[i++ % voters.length] as Voter;
    sent.attempts++;
    try {
      const r = await fetch(`${v.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ command: jws }),
        signal: AbortSignal.timeout(Math.min(options.attemptTimeoutMs ?? 6000, Math.max(1, deadline - Date.now()))),
      });
      const body = (await r.json()) as { receipt?: Sent["receipt"]; jws?: string; type?: string; detail?: string };
      if (r.status === 200 || r.status === 422) {
        // Whichever voter decided, the receipt is the answering voter's: it names it and carries its signature.
        const verified = verifyReceipt(body.jws ?? "", { node: v.did });
        if (!verified.ok || JSON.stringify(verified.value.receipt) !== JSON.stringify(body.receipt)) {
          throw new Error(`/v1 receipt from ${v.id} is not signed by it for the receipt it sent: ${JSON.stringify(verified.ok ? verified.value.receipt : verified.error)}`);
        }
        sent.ret = Date.now();
        sent.status = r.status;
        sent.receipt = body.receipt as Sent["receipt"];
        return sent;
      }
      if (r.status < 500) throw new Error(`${path} at ${v.id}: ${r.status} ${JSON.stringify(body)}`);
      if (sent.failures.length < 20) sent.failures.push(`${v.id}:${r.status}:${body.type ?? ""}`);
    } catch (error) {
      if (error instanceof Error && /^\/v1/.test(error.message)) throw error;
      if (sent.failures.length < 20) sent.failures.push(`${v.id}:${(error as Error).name}`);
    }
    await sleep(30);
  }
  return sent;
}

// ---- store digests ---------------------------------------------------------------------------

/** The replicated tables of a store (not the journal, which each voter runs for itself). */
const REPLICATED = ["tenants", "tenant_roles", "delegations", "tenant_retired_dids", "artifacts", "installs", "history", "idempotency", "replication"];

/**
 * A digest per replicated table of the store in `dataDir`: the fixed tables above and every
 * aggregate's state table (`st_*` created by the engine; not FTS5's own shadow tables), rows in a
 * canonical order. Readable while the voter runs (a WAL reader sees the last commit).
 */
export function storeDigest(dataDir: string): Record<string, { rows: number; digest: string }> {
  const db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
  try {
    const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string; sql: string }[];
    const names = tables.filter((t) => REPLICATED.includes(t.name) || (t.name.startsWith("st_") && /^CREATE TABLE "/.test(t.sql))).map((t) => t.name);
    const out: Record<string, { rows: number; digest: string }> = {};
    for (const name of names) {
      const rows = (db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]).map((r) => JSON.stringify(r, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString("hex") : typeof v === "bigint" ? String(v) : v)));
      rows.sort();
      out[name] = { rows: rows.length, digest: createHash("sha256").update(rows.join("\n")).digest("hex").slice(0, 16) };
    }
    return out;
  } finally {
    db.close();
  }
}

/** The commands in a store's history: JWS → seqs (more than one seq would be a command decided twice). */
export function historyCommands(dataDir: string): Map<string, number[]> {
  const db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
  try {
    const out = new Map<string, number[]>();
    for (const row of db.prepare("SELECT seq, command FROM history ORDER BY seq").all() as { seq: number; command: string }[]) {
      out.set(row.command, [...(out.get(row.command) ?? []), Number(row.seq)]);
    }
    return out;
  } finally {
    db.close();
  }
}
