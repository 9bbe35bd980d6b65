/**
 * @module Benchmark: the replicated engine. Three voters (`charter serve --voter-id --peers`, three
 * process trees on this machine) against one voter, the same workload in the same run: signed
 * shipping `Request` commands (`durability quorum`, each a new order) from 64 keep-alive clients
 * sent to the leader; commands/s and p99 latency. Then the time to a new leader after `kill -9` of
 * the leader's whole process tree (median of several trials; the killed voter is restarted and
 * catches up between trials). When an `etcd` binary is installed (Debian: `etcd-server`), a
 * three-member etcd on loopback doing the same number of puts with the same concurrency, as the
 * reference for what a mature Raft implementation does on this machine.
 *
 *   node bench/cluster.ts                 # ~2 minutes
 *   node bench/cluster.ts --seconds 3     # shorter runs (default ~8 s each)
 *   node bench/cluster.ts --failovers 9   # more failover trials (default 5)
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPair, type KeyPair } from "../shared/identity/index.ts";
import { type Charter, charterBin, cleanup, sleep, startCharter, stopCharter, tempDataDir } from "../test/helpers/charter-process.ts";
import { Cluster, freePort } from "../test/helpers/cluster.ts";
import { percentile, report } from "./lib.ts";
import { drive, httpPost, type RunResult } from "./support/http-load.ts";
import { signOrders } from "./support/orders.ts";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const RUN_SECONDS = Number(option("--seconds") ?? 8);
const FAILOVERS = Number(option("--failovers") ?? 5);
const WARM_UP = 1500;
const note = (text: string) => process.stderr.write(`# ${text}\n`);
const failures: string[] = [];

function charterCli(args: string[]): string {
  return execFileSync(process.execPath, [charterBin, ...args], { encoding: "utf8" }).trim();
}

/** A tenant with an owner and four members, and the shipping contract — through the running voter. */
function prepare(dataDir: string): KeyPair[] {
  const owner = generateKeyPair();
  const members = Array.from({ length: 4 }, () => generateKeyPair());
  const dir = mkdtempSync(join(tmpdir(), "charter-bench-src-"));
  try {
    charterCli(["tenant", "create", "acme", "--owner", owner.did, "--data", dataDir]);
    for (const m of members) charterCli(["tenant", "member", "add", "acme", m.did, "--data", dataDir]);
    const file = join(dir, "shipping.charter.md");
    execFileSync("cp", [new URL("../contracts/examples/shipping.charter.md", import.meta.url).pathname, file]);
    charterCli(["install", file, "--tenant", "acme", "--data", dataDir]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return members;
}

async function health(url: string): Promise<{ role?: string; term?: number } | null> {
  try {
    const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(500) });
    return (await r.json()) as { role?: string; term?: number };
  } catch {
    return null;
  }
}

const portOf = (c: Charter) => Number(new URL(c.url).port);

// ---- One voter, then three, the same workload ------------------------------------------------

async function measure(port: number, signers: readonly KeyPair[], label: string, pids: Record<string, number>): Promise<RunResult> {
  const warm = await drive(port, signOrders(signers, `${label}-warm`, 0, WARM_UP), { receipts: true });
  if (warm.bad > 0) failures.push(`${label} warm-up: ${warm.bad} answers were not receipts; first: ${warm.firstBad}`);
  const count = Math.min(40_000, Math.max(2000, Math.round(warm.perS * RUN_SECONDS)));
  const r = await drive(port, signOrders(signers, label, 0, count), { receipts: true, pids });
  if (r.bad > 0) failures.push(`${label}: ${r.bad} of ${r.count} answers were not receipts; first: ${r.firstBad}`);
  note(`${label}: ${Math.round(r.perS)} cmds/s over ${r.count} commands`);
  return r;
}

const single = await startCharter({ dataDir: tempDataDir("charter-bench-one-"), timeoutMs: 30_000 });
let one: RunResult;
try {
  const signers = prepare(single.dataDir);
  one = await measure(portOf(single), signers, "one-voter", {});
} finally {
  await stopCharter(single);
  cleanup(single.dataDir);
}

const cluster = await Cluster.start();
try {
  const first = cluster.voter(await cluster.leader());
  const signers = prepare(first.dataDir);
  const three = await measure(first.httpPort, signers, "three-voters", {});
  process.stdout.write(`# 64 concurrent keep-alive clients (raw HTTP/1.1) to the leader; shipping Request, durability quorum (a majority fsynced before the receipt)\n`);
  report("cluster.three_voters.commands_per_s", three.perS, "cmds/s", { label: "one voter", value: one.perS, higherIsBetter: true, target: ">= 0.5x" });
  report("cluster.three_voters.p50_ms", percentile(three.latencies, 50), "ms", { label: "one voter", value: percentile(one.latencies, 50), higherIsBetter: false });
  report("cluster.three_voters.p99_ms", percentile(three.latencies, 99), "ms", { label: "one voter", value: percentile(one.latencies, 99), higherIsBetter: false });

  // ---- Time to a new leader after kill -9 ----------------------------------------------------
  const times: number[] = [];
  for (let trial = 0; trial < FAILOVERS; trial++) {
    const old = await cluster.leader();
    const term = (await health(cluster.voter(old).url))?.term ?? 0;
    const killedAt = performance.now();
    await cluster.kill(old);
    const others = cluster.voters.filter((v) => v.id !== old);
    // Polled every 5 ms: the harness's own wait for a majority-backed leader polls too slowly to time this.
    for (;;) {
      const states = await Promise.all(others.map((v) => health(v.url)));
      if (states.some((h) => h?.role === "leader" && (h.term ?? 0) > term)) break;
      if (performance.now() - killedAt > 30_000) throw new Error("no new leader within 30 s");
      await sleep(5);
    }
    times.push(performance.now() - killedAt);
    note(`failover ${trial + 1}: new leader after ${Math.round(times.at(-1) as number)} ms`);
    await cluster.restart(old);
    // The restarted voter rejoins before the next trial.
    await cluster.converged();
  }
  times.sort((a, b) => a - b);
  report("cluster.failover.new_leader_median_ms", percentile(times, 50), "ms", { label: "the election timeout's lower bound", value: 500, higherIsBetter: false });
  process.stdout.write(`cluster.failover.new_leader_ms ${times.map((t) => Math.round(t)).join(", ")} (target: median < 1000 ms)\n`);

  // ---- etcd, the reference ---------------------------------------------------------------------
  const etcdPuts = await etcdReference(three.count);
  if (etcdPuts !== null) {
    report("cluster.etcd_reference.puts_per_s", etcdPuts.perS, "ops/s", { label: "Charter three voters' commands", value: three.perS, higherIsBetter: true });
    report("cluster.etcd_reference.p99_ms", percentile(etcdPuts.latencies, 99), "ms", { label: "Charter three voters", value: percentile(three.latencies, 99), higherIsBetter: false });
  }
} finally {
  await cluster.stop();
}

/** A three-member etcd on loopback doing `count` puts with the same concurrency; null when etcd is not installed. */
async function etcdReference(count: number): Promise<RunResult | null> {
  try {
    execFileSync("etcd", ["--version"], { stdio: "ignore" });
  } catch {
    process.stdout.write("# etcd is not installed (Debian: apt-get install etcd-server): no reference run\n");
    return null;
  }
  const root = mkdtempSync(join(tmpdir(), "charter-bench-etcd-"));
  const members = await Promise.all(["e1", "e2", "e3"].map(async (name) => ({ name, client: await freePort(), peer: await freePort() })));
  const initialCluster = members.map((m) => `${m.name}=http://127.0.0.1:${m.peer}`).join(",");
  const procs: ChildProcess[] = members.map((m) =>
    spawn(
      "etcd",
      [
        "--name", m.name,
        "--data-dir", join(root, m.name),
        "--listen-client-urls", `http://127.0.0.1:${m.client}`,
        "--advertise-client-urls", `http://127.0.0.1:${m.client}`,
        "--listen-peer-urls", `http://127.0.0.1:${m.peer}`,
        "--initial-advertise-peer-urls", `http://127.0.0.1:${m.peer}`,
        "--initial-cluster", initialCluster,
        "--initial-cluster-state", "new",
        "--initial-cluster-token", "charter-bench",
        "--log-level", "error",
      ],
      { stdio: "ignore" },
    ),
  );
  try {
    const port = (members[0] as { client: number }).client;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
      if (ok) break;
      if (Date.now() > deadline) throw new Error("etcd did not start");
      await sleep(100);
    }
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    // The same shape of work as an order: a new key with a ~150-byte JSON value.
    const puts = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) =>
        httpPost("/v3/kv/put", JSON.stringify({ key: b64(`orders/${prefix}-${i}`), value: b64(JSON.stringify({ customer: `Customer ${i}`, destination: "Lisbon", units: 1 + (i % 50), crates: 1 + (i % 5), credit_terms: i % 2 === 0 })) })),
      );
    await drive(port, puts("warm", WARM_UP), { receipts: false });
    const r = await drive(port, puts("run", count), { receipts: false });
    if (r.bad > 0) failures.push(`etcd: ${r.bad} failed puts; first: ${r.firstBad}`);
    note(`etcd: ${Math.round(r.perS)} puts/s over ${r.count} puts`);
    return r;
  } finally {
    for (const p of procs) p.kill("SIGKILL");
    await sleep(200);
    rmSync(root, { recursive: true, force: true });
  }
}

if (failures.length > 0) {
  for (const f of failures) process.stderr.write(`FAIL ${f}\n`);
  process.exit(1);
}
