/**
 * @module Benchmark: cold start of the process tree to its first 200 from /health, and the idle
 * memory of the whole tree once every worker runs (PSS per process and summed; the RSS sum beside
 * it), for `serve` (engine, gateway) and `node` (those and the idle assistant, outbox, sync and
 * updater). Baselines in the same run: a bare Node HTTP server started the same way (its cold
 * start and its memory), a bare idle Node process (for each process of the tree), and, for
 * `node`, the `serve` tree.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pssMb, report, rssMb } from "./lib.ts";

const bin = fileURLToPath(new URL("../bin/charter.js", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function firstOk(url: string, started: number, deadlineMs = 20_000): Promise<number> {
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return performance.now() - started;
    } catch {
      // Not up yet.
    }
    if (performance.now() - started > deadlineMs) throw new Error(`no 200 from ${url}`);
    await sleep(5);
  }
}

/** The workers `/health` lists, once every one of them runs (the tree answers before its idle workers have started). */
async function allRunning(url: string, deadlineMs = 20_000): Promise<string[]> {
  const deadline = performance.now() + deadlineMs;
  for (;;) {
    const { workers } = (await (await fetch(url)).json()) as { workers: Record<string, string> };
    if (Object.values(workers).every((state) => state === "running")) return Object.keys(workers);
    if (performance.now() > deadline) throw new Error(`not every worker runs: ${JSON.stringify(workers)}`);
    await sleep(20);
  }
}

interface TreeRun {
  readonly ms: number;
  /** PSS in MB of each process: the supervisor, then the workers in start order. */
  readonly pss: Record<string, number>;
  readonly pssMb: number;
  readonly rssMb: number;
}

async function charterRun(edition: "serve" | "node", port: number): Promise<TreeRun> {
  const dir = mkdtempSync(join(tmpdir(), "charter-bench-"));
  const started = performance.now();
  const child = spawn(process.execPath, [bin, edition, "--data", dir, "--listen", `127.0.0.1:${port}`], { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}/health`;
  const ms = await firstOk(url, started);
  const names = await allRunning(url);
  // Idle: the start's garbage collected, nothing asked of it.
  await sleep(2000);
  const { workers } = JSON.parse(readFileSync(join(dir, "charter.lock"), "utf8")) as { workers: Record<string, number> };
  const missing = names.filter((n) => workers[n] === undefined);
  if (missing.length > 0) throw new Error(`the lock names no pid for ${missing.join(", ")}`);
  const pids: Record<string, number> = { supervisor: child.pid as number, ...workers };
  const pss = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pssMb(pid)]));
  const rss = Object.values(pids).reduce((sum, pid) => sum + rssMb(pid), 0);
  child.kill("SIGTERM");
  await new Promise((r) => child.on("exit", r));
  rmSync(dir, { recursive: true, force: true });
  return { ms, pss, pssMb: Object.values(pss).reduce((a, b) => a + b, 0), rssMb: rss };
}

async function bareColdStart(port: number): Promise<{ ms: number; memMb: number }> {
  const started = performance.now();
  const code = `require("node:http").createServer((q,s)=>s.end("ok")).listen(${port},"127.0.0.1")`;
  const child = spawn(process.execPath, ["-e", code], { stdio: "ignore" });
  const ms = await firstOk(`http://127.0.0.1:${port}/`, started);
  await sleep(500);
  const memMb = pssMb(child.pid as number);
  child.kill("SIGTERM");
  await new Promise((r) => child.on("exit", r));
  return { ms, memMb };
}

/** PSS of a Node process that does nothing: what any worker process costs before its own code. */
async function bareIdle(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" });
  await sleep(1000);
  const memMb = pssMb(child.pid as number);
  child.kill("SIGTERM");
  await new Promise((r) => child.on("exit", r));
  return memMb;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const base = 20000 + Math.floor(Math.random() * 20000);
const bare = await bareColdStart(base);
const idle = await bareIdle();
const treePss: Partial<Record<"serve" | "node", number>> = {};
for (const [i, edition] of (["serve", "node"] as const).entries()) {
  const runs: TreeRun[] = [];
  for (let k = 0; k < 3; k++) runs.push(await charterRun(edition, base + 1 + i * 3 + k));
  report(`tree.${edition}.cold_start_ms`, median(runs.map((r) => r.ms)), "ms", { label: "bare node:http server", value: bare.ms, higherIsBetter: false, target: "< 1500 ms" });
  const mem = median(runs.map((r) => r.pssMb));
  treePss[edition] = mem;
  report(`tree.${edition}.idle_memory_pss_mb`, mem, "MB", { label: "one bare node:http process", value: bare.memMb, higherIsBetter: false, target: edition === "serve" ? "< 200 MB" : "< 400 MB" });
  if (edition === "node" && treePss.serve !== undefined) report("tree.node.idle_memory_pss_mb.vs_serve", mem, "MB", { label: "the serve tree", value: treePss.serve, higherIsBetter: false });
  report(`tree.${edition}.idle_memory_rss_sum_mb`, median(runs.map((r) => r.rssMb)), "MB");
  for (const name of Object.keys(runs[0]?.pss ?? {})) {
    report(`tree.${edition}.pss_mb.${name}`, median(runs.map((r) => r.pss[name] ?? 0)), "MB", { label: "one bare idle node process", value: idle, higherIsBetter: false });
  }
}
