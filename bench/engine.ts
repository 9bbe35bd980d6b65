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
 *   node bench/engine.ts --rounds 5           # rounds of Charter and the baseline, alternating (default 3)
 *
 * Last, logging: two fresh nodes with the counter contract, one with `CHARTER_LOG_REQUESTS=off`
 * (which silences the per-request lines: answers ≥ 400, refusals, slow batches), go through the same
 * history — a warm-up, then per round the same mix on each, in alternating order: increments on
 * many subjects, one in ten refused (`by: 0`), so the logging node writes a refusal line for every
 * tenth command. Both rates and their ratio are printed (`engine.logging.*`; the target is at most
 * 3% lost to logging).
 *
 * A shared machine's speed drifts within minutes, so Charter's runs and the baseline's alternate,
 * round by round, and the figures are each one's median round (every round is printed too). First
 * it prints the machine's serial commit time (`engine.machine.fsync_commit_us`), and after the
 * many-subjects figures the rate every core busy at the measured CPU per command would give
 * (`cpu_ceiling`), for Charter and for the bare route.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { type KeyPair, signCommand } from "../shared/identity/index.ts";
import { type Charter, cleanup, lockOf, startCharter, stopCharter, tempDataDir } from "../test/helpers/charter-process.ts";
import { example, seed } from "../test/helpers/seed.ts";
import { percentile, pssMb, report, rssMb } from "./lib.ts";
import { drive, type Req, req, type RunResult } from "./support/http-load.ts";
import { signOrders } from "./support/orders.ts";

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
const ROUNDS = Math.max(1, Number(option("--rounds") ?? 3));
const note = (text: string) => process.stderr.write(`# ${text}\n`);

// ---- Commands, signed before anything is timed -----------------------------------------------

function signIncrements(signers: readonly KeyPair[], subject: string, count: number): Req[] {
  const issuedAt = new Date().toISOString();
  return Array.from({ length: count }, (_, i) =>
    req(
      "/v1/acme/acme.bench/actions/Increment",
      signCommand(signers[i % signers.length] as KeyPair, { tenant: "acme", namespace: "acme.bench", action: "Increment", subject, args: { by: 1 }, idempotencyKey: `${subject}-${i}`, issuedAt }),
    ),
  );
}

/** Increments on many subjects (`PREFIX-i`), one in ten refused (`by: 0` fails the counter's `by > 0`). */
function signMixed(signers: readonly KeyPair[], prefix: string, count: number): Req[] {
  const issuedAt = new Date().toISOString();
  return Array.from({ length: count }, (_, i) => {
    const subject = `${prefix}-${i}`;
    const by = i % 10 === 9 ? 0 : 1;
    return req(
      "/v1/acme/acme.bench/actions/Increment",
      signCommand(signers[i % signers.length] as KeyPair, { tenant: "acme", namespace: "acme.bench", action: "Increment", subject, args: { by }, idempotencyKey: subject, issuedAt }),
    );
  });
}

/** How many lines of the node's log say `msg`. */
function logLines(dir: string, msg: string): number {
  const needle = `"msg":${JSON.stringify(msg)}`;
  return readFileSync(join(dir, "logs", "charter.log"), "utf8")
    .split("\n")
    .filter((line) => line.includes(needle)).length;
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

// ---- The machine ------------------------------------------------------------------------------

/**
 * What this machine gives any server, measured in the same run: one committed row with
 * synchronous=FULL (a WAL fsync), serial, on the disk the data directory is on — the bare route's
 * floor per request — and the cores: what to read the absolute figures against, since the same
 * code gives very different rates on machines with slower disks or fewer, slower cores.
 */
function machineFigures(dir: string): { commitUs: number; cores: number } {
  const db = new DatabaseSync(join(dir, "fsync-probe.db"));
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO t (body) VALUES (?)");
  const body = "x".repeat(700);
  const n = 1000;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    db.exec("BEGIN IMMEDIATE");
    insert.run(body);
    db.exec("COMMIT");
  }
  const commitUs = ((performance.now() - started) * 1000) / n;
  db.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(join(dir, `fsync-probe.db${suffix}`), { force: true });
  return { commitUs, cores: availableParallelism() };
}

// ---- Figures ----------------------------------------------------------------------------------

/** The run of median throughput (its latencies and CPU figures come with it). */
function medianRun(runs: readonly RunResult[]): RunResult {
  return [...runs].sort((a, b) => a.perS - b.perS)[Math.floor((runs.length - 1) / 2)] as RunResult;
}

const share = (r: RunResult) => `${((100 * r.status2xx) / r.count).toFixed(1)}% 2xx, ${((100 * r.status422) / r.count).toFixed(1)}% 422`;
const cpuSum = (r: RunResult) => Math.round(Object.values(r.cpuUsPerReq).reduce((a, b) => a + b, 0));

function printMany(many: RunResult, bare: RunResult, machine: { cores: number }): void {
  process.stdout.write(`# ${IN_FLIGHT} concurrent keep-alive clients (raw HTTP/1.1), ${many.count} pre-signed commands per run, median of ${ROUNDS} rounds; shipping Request is durability quorum = local with one voter (one fsync per batch)\n`);
  report("engine.many_subjects.commands_per_s", many.perS, "cmds/s", { label: "bare Hono insert route", value: bare.perS, higherIsBetter: true, target: ">= 5000/s and >= 0.7x" });
  report("engine.many_subjects.p50_ms", percentile(many.latencies, 50), "ms", { label: "bare Hono insert route", value: percentile(bare.latencies, 50), higherIsBetter: false });
  report("engine.many_subjects.p99_ms", percentile(many.latencies, 99), "ms", { label: "bare Hono insert route", value: percentile(bare.latencies, 99), higherIsBetter: false });
  process.stdout.write(`engine.many_subjects.answers ${share(many)} (${many.count} commands, ${many.seconds.toFixed(1)} s)\n`);
  process.stdout.write(`engine.many_subjects.cpu_us_per_cmd ${cpuSum(many)} µs (${cpuText(many)}; bare route ${cpuSum(bare)} µs: ${cpuText(bare)})\n`);
  // Every core busy with this run's CPU per command, generator included: the most this machine could give.
  process.stdout.write(
    `engine.many_subjects.cpu_ceiling ${Math.round((machine.cores * 1e6) / cpuSum(many))} cmds/s (${machine.cores} cores at ${cpuSum(many)} µs per command; measured ${Math.round(many.perS)}, ${Math.round((100 * many.perS * cpuSum(many)) / (machine.cores * 1e6))}% of it; the bare route's ${Math.round((machine.cores * 1e6) / cpuSum(bare))} at ${cpuSum(bare)} µs, were its fsyncs free)\n`,
  );
}

function printHot(hot: RunResult, bare: RunResult): void {
  report("engine.hot_subject.commands_per_s", hot.perS, "cmds/s", { label: "bare Hono insert route", value: bare.perS, higherIsBetter: true });
  report("engine.hot_subject.p50_ms", percentile(hot.latencies, 50), "ms");
  report("engine.hot_subject.p99_ms", percentile(hot.latencies, 99), "ms");
  process.stdout.write(`engine.hot_subject.answers ${share(hot)} (${hot.count} commands, ${hot.seconds.toFixed(1)} s)\n`);
  process.stdout.write(`engine.hot_subject.cpu_us_per_cmd ${cpuSum(hot)} µs (${cpuText(hot)})\n`);
}

function printLogging(onRuns: readonly RunResult[], offRuns: readonly RunResult[], refusalLines: number, quietRefusalLines: number): void {
  const on = medianRun(onRuns);
  const off = medianRun(offRuns);
  report("engine.logging.commands_per_s", on.perS, "cmds/s", { label: "per-request lines off (CHARTER_LOG_REQUESTS=off)", value: off.perS, higherIsBetter: true, target: ">= 0.97x" });
  // Each round's two runs are close in time, so their ratio is less exposed to the machine's drift than the medians'.
  const paired = Math.exp(onRuns.reduce((sum, r, i) => sum + Math.log(r.perS / (offRuns[i] as RunResult).perS), 0) / onRuns.length);
  process.stdout.write(`engine.logging.paired_ratio ${paired.toFixed(3)} (geometric mean of the rounds' on/off rate ratios: ${onRuns.map((r, i) => (r.perS / (offRuns[i] as RunResult).perS).toFixed(3)).join(", ")})\n`);
  process.stdout.write(`engine.logging.cpu_us_per_cmd ${cpuSum(on)} µs on, ${cpuSum(off)} µs off (the median runs; on: ${cpuText(on)}; off: ${cpuText(off)})\n`);
  process.stdout.write(`engine.logging.p99_ms ${fmt(percentile(on.latencies, 99))} ms (off ${fmt(percentile(off.latencies, 99))} ms)\n`);
  process.stdout.write(`engine.logging.answers ${share(on)} (off: ${share(off)}); refusal lines written: ${refusalLines} with logging on, ${quietRefusalLines} off\n`);
}

// ---- Logging: the same node with per-request lines on and off ----------------------------------

interface BenchNode {
  readonly dir: string;
  readonly charter: Charter;
  readonly signers: readonly KeyPair[];
  readonly port: number;
  readonly pids: Record<string, number>;
}

/** A fresh node with the counter contract; `env` for its processes. */
async function counterNode(prefix: string, env: Record<string, string>): Promise<BenchNode> {
  const dir = tempDataDir(prefix);
  const { members } = await seed(dir, { members: 4, contracts: [counterSource] });
  const started = await startCharter({ dataDir: dir, timeoutMs: 30_000, env });
  const { pid, workers } = lockOf(dir);
  return { dir, charter: started, signers: members, port: Number(new URL(started.url).port), pids: { ...workers, supervisor: pid } };
}

/**
 * Two fresh nodes, alike but for `CHARTER_LOG_REQUESTS=off` on one, through the same history: the
 * same warm-up, then per round the same mix on each, the order alternating (the machine drifts).
 */
async function loggingRounds(): Promise<void> {
  const on = await counterNode("charter-bench-log-on-", {});
  const off = await counterNode("charter-bench-log-off-", { CHARTER_LOG_REQUESTS: "off" });
  try {
    const run = (n: BenchNode, tag: string, count: number) => drive(n.port, signMixed(n.signers, tag, count), { receipts: true, pids: n.pids, inFlight: IN_FLIGHT });
    const warm = Math.min((await run(on, "warm", WARM_UP)).perS, (await run(off, "warm", WARM_UP)).perS);
    const count = Math.min(60_000, Math.max(3000, Math.round(warm * RUN_SECONDS * 1.2)));
    const onRuns: RunResult[] = [];
    const offRuns: RunResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const tag = `mixed${round}`;
      if (round % 2 === 0) {
        onRuns.push(await run(on, tag, count));
        offRuns.push(await run(off, tag, count));
      } else {
        offRuns.push(await run(off, tag, count));
        onRuns.push(await run(on, tag, count));
      }
      checkReceipts("mixed, logging on", onRuns[round] as RunResult);
      checkReceipts("mixed, logging off", offRuns[round] as RunResult);
      note(`logging round ${round + 1}/${ROUNDS}: on ${Math.round((onRuns[round] as RunResult).perS)}, off ${Math.round((offRuns[round] as RunResult).perS)} cmds/s`);
    }
    printLogging(onRuns, offRuns, logLines(on.dir, "refused"), logLines(off.dir, "refused"));
    const perRound = (runs: RunResult[]) => runs.map((r) => Math.round(r.perS)).join(", ");
    process.stdout.write(`engine.logging.rounds ${ROUNDS} (cmds/s per round, ${count} commands each) on ${perRound(onRuns)}; off ${perRound(offRuns)}\n`);
  } finally {
    await stopCharter(on.charter);
    await stopCharter(off.charter);
    cleanup(on.dir);
    cleanup(off.dir);
  }
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
const machine = machineFigures(dataDir);
process.stdout.write(
  `engine.machine.fsync_commit_us ${Math.round(machine.commitUs)} µs (one row per transaction, synchronous=FULL, serial: at most ${Math.round(1e6 / machine.commitUs)} commits/s before any HTTP; ${machine.cores} cores)\n`,
);
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

  // Rounds: (a) many subjects, then the baseline right after (Charter idles meanwhile) with the
  // same bodies, count and concurrency, then (b) one hot subject.
  await drive(port, signIncrements(signers, "warm-counter", 1000), { receipts: true });
  const manyRuns: RunResult[] = [];
  const bareRuns: RunResult[] = [];
  const hotRuns: RunResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const manyReqs = signOrders(signers, `order${round}`, 0, count);
    const many = await drive(port, manyReqs, { receipts: true, pids: serverPids, inFlight: IN_FLIGHT });
    checkReceipts("many subjects", many);
    manyRuns.push(many);
    bareRuns.push(await bareInsertRoute(manyReqs));
    const hot = await drive(port, signIncrements(signers, `hot${round}`, count), { receipts: true, pids: serverPids, inFlight: IN_FLIGHT });
    checkReceipts("hot subject", hot);
    hotRuns.push(hot);
    note(`round ${round + 1}/${ROUNDS}: many subjects ${Math.round(many.perS)}, bare route ${Math.round((bareRuns[round] as RunResult).perS)}, hot subject ${Math.round(hot.perS)} cmds/s`);
  }
  const bare = medianRun(bareRuns);
  printMany(medianRun(manyRuns), bare, machine);
  printHot(medianRun(hotRuns), bare);
  const perRound = (runs: RunResult[]) => runs.map((r) => Math.round(r.perS)).join(", ");
  process.stdout.write(`engine.rounds ${ROUNDS} (cmds/s per round) many subjects ${perRound(manyRuns)}; bare route ${perRound(bareRuns)}; hot subject ${perRound(hotRuns)}; ratio per round ${manyRuns.map((r, i) => (r.perS / (bareRuns[i] as RunResult).perS).toFixed(2)).join(", ")}\n`);

  // Memory: orders up to RECORDS, signed a chunk at a time (issuedAt must stay fresh).
  let stored = WARM_UP + count * ROUNDS;
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

await loggingRounds();

if (failures.length > 0) {
  for (const f of failures) process.stderr.write(`FAIL ${f}\n`);
  process.exit(1);
}
