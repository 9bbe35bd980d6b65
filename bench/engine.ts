/**
 * @module Benchmark: signed commands through HTTP into a running `charter serve` (gateway → engine →
 * signed receipt), 64 concurrent keep-alive clients (raw HTTP/1.1, see the load generator below),
 * every command signed before the timed part. Workloads: (a) many subjects — the shipping example's `Request`, each command a new order (its
 * durability is the default `quorum`, which with one voter is `local`: one fsync per batch);
 * (b) one hot subject — `Increment` of bench/contracts/counter.charter.md (`durability local`) on
 * one counter. Baseline in the same run: a bare Hono route (bench/support/bare-insert-server.ts, its
 * own process) inserting each posted command into node:sqlite (WAL, synchronous=FULL, one
 * transaction per request), driven by the same load generator with the same concurrency, bodies
 * and count. Then loads records (orders) up to `--records N` (default 100000) and reports the
 * engine worker's memory. Exits non-zero if any answer from Charter is not a receipt.
 *
 *   node bench/engine.ts                      # default: ~2 minutes, memory at 100k records
 *   node bench/engine.ts --records 1000000    # memory at 1M records (loads through HTTP; slow)
 *   node bench/engine.ts --seconds 3          # shorter runs (default ~10 s each)
 *   node bench/engine.ts --profile DIR        # --cpu-prof every worker into DIR (see support/profile-top.ts)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { type KeyPair, signCommand } from "../shared/identity/index.ts";
import { cleanup, lockOf, startCharter, stopCharter, tempDataDir } from "../test/helpers/charter-process.ts";
import { example, seed } from "../test/helpers/seed.ts";
import { percentile, pssMb, report, rssMb } from "./lib.ts";

const IN_FLIGHT = 64;
const WARM_UP = 2000;
const CHUNK = 20_000;
const DEFAULT_RECORDS = 100_000;

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const RECORDS = Number(option("--records") ?? DEFAULT_RECORDS);
const PROFILE_DIR = option("--profile");
const RUN_SECONDS = Number(option("--seconds") ?? 10);
const note = (text: string) => process.stderr.write(`# ${text}\n`);

// ---- Commands, signed before anything is timed -----------------------------------------------

/** A whole HTTP/1.1 request, ready to write. */
interface Req {
  readonly bytes: Buffer;
}

function req(path: string, jws: string): Req {
  const body = JSON.stringify({ command: jws });
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return { bytes: Buffer.from(head + body, "utf8") };
}

function signOrders(signers: readonly KeyPair[], prefix: string, from: number, count: number): Req[] {
  const issuedAt = new Date().toISOString();
  const out: Req[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const i = from + k;
    const jws = signCommand(signers[i % signers.length] as KeyPair, {
      tenant: "acme",
      namespace: "acme.shipping",
      action: "Request",
      subject: `${prefix}-${i}`,
      args: { customer: `Customer ${i}`, destination: "Lisbon", units: 1 + (i % 50), crates: 1 + (i % 5), credit_terms: i % 2 === 0 },
      idempotencyKey: `${prefix}-${i}`,
      issuedAt,
    });
    out[k] = req("/v1/acme/acme.shipping/actions/Request", jws);
  }
  return out;
}

function signIncrements(signers: readonly KeyPair[], subject: string, count: number): Req[] {
  const issuedAt = new Date().toISOString();
  return Array.from({ length: count }, (_, i) =>
    req(
      "/v1/acme/acme.bench/actions/Increment",
      signCommand(signers[i % signers.length] as KeyPair, { tenant: "acme", namespace: "acme.bench", action: "Increment", subject, args: { by: 1 }, idempotencyKey: `${subject}-${i}`, issuedAt }),
    ),
  );
}

// ---- The load generator -----------------------------------------------------------------------
//
// Raw HTTP/1.1 on keep-alive sockets, one per client: each request's bytes are built when it is
// signed, and an answer is parsed only as far as its status, length and first bytes. node:http's
// Agent costs ~95 µs of CPU per request here and undici is not installed; this costs a fraction of
// that, which matters because the generator shares the 2 cores with the server it measures.

interface RunResult {
  readonly count: number;
  readonly seconds: number;
  readonly perS: number;
  readonly latencies: number[];
  readonly status2xx: number;
  readonly status422: number;
  readonly bad: number;
  readonly firstBad: string | null;
  /** CPU time per request, µs, by process name (the generator itself is `generator`). */
  readonly cpuUsPerReq: Record<string, number>;
}

/** utime + stime of a process (all its threads), in ms. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

interface Answer {
  readonly status: number;
  /** The first bytes of the body (up to 64). */
  readonly head: Buffer;
  readonly close: boolean;
}

const HEADER_END = Buffer.from("\r\n\r\n");

/** One keep-alive HTTP/1.1 connection that sends pre-built requests one at a time. */
class Client {
  readonly #port: number;
  #socket: Socket | null = null;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void } | null = null;

  constructor(port: number) {
    this.#port = port;
  }

  send(bytes: Buffer): Promise<Answer> {
    const socket = this.#socket ?? this.#connect();
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      socket.write(bytes);
    });
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = null;
  }

  #connect(): Socket {
    const socket = connect({ host: "127.0.0.1", port: this.#port, noDelay: true });
    socket.on("data", (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#parse();
    });
    const fail = (error: Error) => {
      const w = this.#waiting;
      this.#waiting = null;
      this.#socket = null;
      this.#buffer = Buffer.alloc(0);
      w?.reject(error);
    };
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("the server closed the connection with a request in flight")));
    this.#socket = socket;
    return socket;
  }

  #parse(): void {
    const buf = this.#buffer;
    const end = buf.indexOf(HEADER_END);
    if (end < 0) return;
    const head = buf.toString("latin1", 0, end).toLowerCase();
    const status = Number(head.slice(9, 12));
    const bodyStart = end + 4;
    let bodyEnd: number;
    let first: Buffer;
    const length = /\r\ncontent-length: *(\d+)/.exec(head);
    if (length !== null) {
      bodyEnd = bodyStart + Number(length[1]);
      if (buf.length < bodyEnd) return;
      first = Buffer.from(buf.subarray(bodyStart, Math.min(bodyEnd, bodyStart + 64)));
    } else if (/\r\ntransfer-encoding: *chunked/.test(head)) {
      const parts: Buffer[] = [];
      let at = bodyStart;
      for (;;) {
        const lineEnd = buf.indexOf("\r\n", at);
        if (lineEnd < 0) return;
        const size = parseInt(buf.toString("latin1", at, lineEnd), 16);
        if (buf.length < lineEnd + 2 + size + 2) return;
        if (size === 0) {
          const trailerEnd = buf.indexOf(HEADER_END, lineEnd - 2);
          if (trailerEnd < 0) return;
          bodyEnd = trailerEnd + 4;
          break;
        }
        parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      first = Buffer.concat(parts).subarray(0, 64);
    } else {
      bodyEnd = bodyStart;
      first = Buffer.alloc(0);
    }
    this.#buffer = bodyEnd < buf.length ? buf.subarray(bodyEnd) : Buffer.alloc(0);
    const close = /\r\nconnection: *close/.test(head);
    const w = this.#waiting;
    this.#waiting = null;
    if (close) this.close();
    w?.resolve({ status, head: first, close });
  }
}

const RECEIPT_PREFIX = Buffer.from('{"receipt":');

/**
 * Sends every request with IN_FLIGHT concurrent clients, each on its own keep-alive connection,
 * and times each. `receipts`: every answer must be a 200/422 receipt; otherwise a 2xx suffices.
 */
async function drive(port: number, reqs: readonly Req[], options: { receipts: boolean; pids?: Record<string, number> }): Promise<RunResult> {
  const latencies = new Array<number>(reqs.length);
  let next = 0;
  let status2xx = 0;
  let status422 = 0;
  let bad = 0;
  let firstBad: string | null = null;
  const clients = Array.from({ length: IN_FLIGHT }, () => new Client(port));
  const pids = { ...options.pids, generator: process.pid };
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next < reqs.length) {
        const i = next++;
        const t0 = performance.now();
        const { status, head } = await client.send((reqs[i] as Req).bytes);
        latencies[i] = performance.now() - t0;
        const isReceipt = head.subarray(0, RECEIPT_PREFIX.length).equals(RECEIPT_PREFIX);
        const good = options.receipts ? (status === 200 || status === 422) && isReceipt : status >= 200 && status < 300;
        if (!good) {
          bad++;
          firstBad ??= `HTTP ${status}: ${head.toString("utf8")}…`;
        } else if (status === 422) status422++;
        else status2xx++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuUsPerReq = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ((cpuMs(pid) - (cpuBefore[name] as number)) * 1000) / reqs.length]));
  for (const c of clients) c.close();
  latencies.sort((a, b) => a - b);
  return { count: reqs.length, seconds, perS: reqs.length / seconds, latencies, status2xx, status422, bad, firstBad, cpuUsPerReq };
}

// ---- Baseline: the bare Hono insert route -----------------------------------------------------

async function bareInsertRoute(reqs: readonly Req[]): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), "charter-bench-bare-"));
  const script = fileURLToPath(new URL("./support/bare-insert-server.ts", import.meta.url));
  const server: ChildProcess = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", script, join(dir, "bare.db")], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<number>((resolve) => server.stdout?.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
    await drive(port, reqs.slice(0, WARM_UP), { receipts: false });
    const r = await drive(port, reqs, { receipts: false, pids: { server: server.pid as number } });
    if (r.bad > 0) failures.push(`bare route: ${r.bad} failed requests; first: ${r.firstBad}`);
    return r;
  } finally {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Figures, printed as soon as each is measured -------------------------------------------

const share = (r: RunResult) => `${((100 * r.status2xx) / r.count).toFixed(1)}% 2xx, ${((100 * r.status422) / r.count).toFixed(1)}% 422`;
const cpuSum = (r: RunResult) => Math.round(Object.values(r.cpuUsPerReq).reduce((a, b) => a + b, 0));

function printMany(many: RunResult, bare: RunResult): void {
  process.stdout.write(`# ${IN_FLIGHT} concurrent keep-alive clients (raw HTTP/1.1), ${many.count} pre-signed commands per run; shipping Request is durability quorum = local with one voter (one fsync per batch)\n`);
  report("engine.many_subjects.commands_per_s", many.perS, "cmds/s", { label: "bare Hono insert route", value: bare.perS, higherIsBetter: true, target: ">= 5000/s and >= 0.7x" });
  report("engine.many_subjects.p50_ms", percentile(many.latencies, 50), "ms", { label: "bare Hono insert route", value: percentile(bare.latencies, 50), higherIsBetter: false });
  report("engine.many_subjects.p99_ms", percentile(many.latencies, 99), "ms", { label: "bare Hono insert route", value: percentile(bare.latencies, 99), higherIsBetter: false });
  process.stdout.write(`engine.many_subjects.answers ${share(many)} (${many.count} commands, ${many.seconds.toFixed(1)} s)\n`);
  process.stdout.write(`engine.many_subjects.cpu_us_per_cmd ${cpuSum(many)} µs (${cpuText(many)}; bare route ${cpuSum(bare)} µs: ${cpuText(bare)})\n`);
}

function printHot(hot: RunResult, bare: RunResult): void {
  report("engine.hot_subject.commands_per_s", hot.perS, "cmds/s", { label: "bare Hono insert route", value: bare.perS, higherIsBetter: true });
  report("engine.hot_subject.p50_ms", percentile(hot.latencies, 50), "ms");
  report("engine.hot_subject.p99_ms", percentile(hot.latencies, 99), "ms");
  process.stdout.write(`engine.hot_subject.answers ${share(hot)} (${hot.count} commands, ${hot.seconds.toFixed(1)} s)\n`);
  process.stdout.write(`engine.hot_subject.cpu_us_per_cmd ${cpuSum(hot)} µs (${cpuText(hot)})\n`);
}

// ---- Charter ----------------------------------------------------------------------------------

const fmt = (n: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(2));
const cpuText = (r: RunResult) =>
  Object.entries(r.cpuUsPerReq)
    .map(([name, us]) => `${name} ${Math.round(us)}`)
    .join(", ");
const failures: string[] = [];
function checkReceipts(name: string, r: RunResult): void {
  if (r.bad === 0) return;
  failures.push(`${name}: ${r.bad} of ${r.count} answers were not receipts; first: ${r.firstBad}`);
}

const dataDir = tempDataDir("charter-bench-engine-");
const counterSource = readFileSync(new URL("./contracts/counter.charter.md", import.meta.url), "utf8");
const seeded = await seed(dataDir, { members: 4, contracts: [example("shipping.charter.md"), counterSource] });
const signers = seeded.members;
if (PROFILE_DIR !== undefined) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --cpu-prof --cpu-prof-dir=${PROFILE_DIR}`.trim();
const charter = await startCharter({ dataDir, timeoutMs: 30_000 });
if (PROFILE_DIR !== undefined) delete process.env.NODE_OPTIONS;
const port = Number(new URL(charter.url).port);
const { pid: supervisorPid, workers } = lockOf(dataDir);
const enginePid = workers.engine as number;
const serverPids: Record<string, number> = { ...workers, supervisor: supervisorPid };
const idlePss = pssMb(enginePid);

try {
  // Warm-up (JIT, caches) and a first rate, which sizes the ~10 s runs.
  const warm = await drive(port, signOrders(signers, "warm", 0, WARM_UP), { receipts: true });
  checkReceipts("warm-up", warm);
  const count = Math.min(60_000, Math.max(3000, Math.round(warm.perS * RUN_SECONDS * 1.2)));
  note(`warm-up ${Math.round(warm.perS)} cmds/s; ${count} commands per run`);

  // (a) many subjects.
  const manyReqs = signOrders(signers, "order", 0, count);
  const many = await drive(port, manyReqs, { receipts: true, pids: serverPids });
  checkReceipts("many subjects", many);

  // Baseline, right after (Charter idles meanwhile): the same bodies, count and concurrency.
  const bare = await bareInsertRoute(manyReqs);
  printMany(many, bare);

  // (b) one hot subject.
  await drive(port, signIncrements(signers, "warm-counter", 1000), { receipts: true });
  const hot = await drive(port, signIncrements(signers, "hot", count), { receipts: true, pids: serverPids });
  checkReceipts("hot subject", hot);
  printHot(hot, bare);

  // Memory: orders up to RECORDS, signed a chunk at a time (issuedAt must stay fresh).
  let stored = WARM_UP + count;
  let loaded = 0;
  const loadStarted = performance.now();
  for (let from = 0; stored < RECORDS; ) {
    const n = Math.min(CHUNK, RECORDS - stored);
    const r = await drive(port, signOrders(signers, "load", from, n), { receipts: true });
    checkReceipts("load", r);
    from += n;
    stored += n;
    loaded += n;
    if (loaded % 100_000 === 0) note(`loaded ${stored} records`);
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  await new Promise((r) => setTimeout(r, 2000));
  const memPss = pssMb(enginePid);
  const memRss = rssMb(enginePid);
  const db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
  // The orders' table (its name also carries the contract version): count what was really stored.
  const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'st\\_acme\\_shipping%Order' ESCAPE '\\'").get() as { name: string } | undefined;
  if (table === undefined) throw new Error("the orders' table was not found in the store");
  const records = Number((db.prepare(`SELECT count(*) AS n FROM "${table.name}"`).get() as { n: number }).n);
  db.close();
  if (loaded > 0) {
    const perS = loaded / loadSeconds;
    process.stdout.write(`engine.load.records_per_s ${fmt(perS)} records/s (${loaded} orders through HTTP in ${loadSeconds.toFixed(1)} s, signing included; 1M would take ~${(1_000_000 / perS / 60).toFixed(1)} min)\n`);
  }
  process.stdout.write(`engine.memory_pss_mb_at_${records}_records ${fmt(memPss)} MB (engine worker; idle at start ${fmt(idlePss)} MB; target < 300 MB)\n`);
  process.stdout.write(`engine.memory_rss_mb_at_${records}_records ${fmt(memRss)} MB (engine worker; target < 300 MB)\n`);
  if (RECORDS < 1_000_000) process.stdout.write(`# the 1,000,000-record figure is opt-in: node bench/engine.ts --records 1000000\n`);
} finally {
  await stopCharter(charter);
  cleanup(dataDir);
}

if (failures.length > 0) {
  for (const f of failures) process.stderr.write(`FAIL ${f}\n`);
  process.exit(1);
}
