/**
 * @module Benchmark: cold start of the process tree to its first 200 from /health, and the idle
 * memory of the whole tree, for `serve` and `node`. Baseline in the same run: a bare Node HTTP
 * server started the same way (its cold start and its memory).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pssMb, report, rssMb } from "./lib.ts";

const bin = fileURLToPath(new URL("../bin/charter.js", import.meta.url));

async function firstOk(url: string, started: number, deadlineMs = 20_000): Promise<number> {
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return performance.now() - started;
    } catch {
      // Not up yet.
    }
    if (performance.now() - started > deadlineMs) throw new Error(`no 200 from ${url}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function charterColdStart(edition: "serve" | "node", port: number): Promise<{ ms: number; memMb: number; rssMb: number }> {
  const dir = mkdtempSync(join(tmpdir(), "charter-bench-"));
  const started = performance.now();
  const child = spawn(process.execPath, [bin, edition, "--data", dir, "--listen", `127.0.0.1:${port}`], { stdio: "ignore" });
  const ms = await firstOk(`http://127.0.0.1:${port}/health`, started);
  await new Promise((r) => setTimeout(r, 2000));
  const { workers } = JSON.parse((await import("node:fs")).readFileSync(join(dir, "charter.lock"), "utf8")) as { workers: Record<string, number> };
  const pids = [child.pid as number, ...Object.values(workers)];
  const memMb = pids.reduce((sum, pid) => sum + pssMb(pid), 0);
  const rss = pids.reduce((sum, pid) => sum + rssMb(pid), 0);
  child.kill("SIGTERM");
  await new Promise((r) => child.on("exit", r));
  rmSync(dir, { recursive: true, force: true });
  return { ms, memMb, rssMb: rss };
}

async function bareColdStart(port: number): Promise<{ ms: number; memMb: number }> {
  const started = performance.now();
  const code = `require("node:http").createServer((q,s)=>s.end("ok")).listen(${port},"127.0.0.1")`;
  const child = spawn(process.execPath, ["-e", code], { stdio: "ignore" });
  const ms = await firstOk(`http://127.0.0.1:${port}/`, started);
  await new Promise((r) => setTimeout(r, 500));
  const memMb = pssMb(child.pid as number);
  child.kill("SIGTERM");
  await new Promise((r) => child.on("exit", r));
  return { ms, memMb };
}

const base = 20000 + Math.floor(Math.random() * 20000);
const bare = await bareColdStart(base);
for (const [i, edition] of (["serve", "node"] as const).entries()) {
  const runs = [];
  for (let k = 0; k < 3; k++) runs.push(await charterColdStart(edition, base + 1 + i * 3 + k));
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b)[1] as number;
  const mem = runs.map((r) => r.memMb).sort((a, b) => a - b)[1] as number;
  report(`tree.${edition}.cold_start_ms`, ms, "ms", { label: "bare node:http server", value: bare.ms, higherIsBetter: false, target: "< 1500 ms" });
  const rss = runs.map((r) => r.rssMb).sort((a, b) => a - b)[1] as number;
  report(`tree.${edition}.idle_memory_pss_mb`, mem, "MB", { label: "one bare node:http process", value: bare.memMb, higherIsBetter: false, target: edition === "serve" ? "< 200 MB" : "< 400 MB" });
  report(`tree.${edition}.idle_memory_rss_sum_mb`, rss, "MB");
}
