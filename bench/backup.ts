/**
 * @module Backup benchmark: `charter backup` of a store of `--records N` records (default 1,000,000,
 * each with its history entry) while `charter serve` takes signed commands from 8 keep-alive
 * clients at a steady `--rate` (400 commands/s: below what the machine takes, so a latency is the
 * engine's, not a queue's). Prints the backup's duration and size, and the engine's command latency
 * (from when the command was due to its receipt) p50, p99 and worst during the backup against the
 * same load without it, measured before and after in the same run (target: p99 ≤ 1.5x, printed as
 * the ratio ≥ 0.67x; no command stalled > 100 ms by the copy). `charter backup` runs at niceness 19. Then the same with
 * the store copied by `VACUUM INTO` instead of the backup API, the alternative
 * shared/backup/copy-database.ts weighs.
 *
 * The store is filled directly (test/helpers/history-store.ts: each Increment run through the
 * contract and recorded as the engine records it), not through HTTP, which would take ~10 minutes
 * for 1M. `/tmp/bench.lock` exists while it runs (others wait for it).
 *
 *   node bench/backup.ts                    # ~3 minutes
 *   node bench/backup.ts --records 200000   # quicker
 */
import { spawn } from "node:child_process";
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { backupDataDir } from "../shared/backup/backup-data-dir.ts";
import { lowerPriority } from "../cli/commands/backup.ts";
import type { CopyMethod } from "../shared/backup/copy-database.ts";
import { charterBin, cleanup, startCharter, stopCharter, tempDataDir } from "../test/helpers/charter-process.ts";
import { signed } from "../test/helpers/client.ts";
import { writeIncrements } from "../test/helpers/history-store.ts";
import { example, seed } from "../test/helpers/seed.ts";
import { percentile, report } from "./lib.ts";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const note = (text: string) => process.stderr.write(`# ${text}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A child run: one backup with the given copy method (the bench's alternative to `charter backup`).
if (process.argv[2] === "--child") {
  const [, , , method, data, dest] = process.argv as [string, string, string, CopyMethod, string, string];
  process.umask(0o077);
  lowerPriority();
  await backupDataDir(data, dest, { version: "bench", method });
  process.exit(0);
}

const RECORDS = Number(option("--records") ?? 1_000_000);
const CLIENTS = 8;
/** Commands a second, all clients together: a steady load below what the machine can take, so a latency is the engine's, not a queue's. */
const RATE = Number(option("--rate") ?? 400);
const QUIET_MS = 12_000;
/** The first seconds of load (connections opening, code warming up) count on neither side. */
const WARM_MS = 3_000;
const LOCK = "/tmp/bench.lock";

interface Sample {
  readonly at: number;
  readonly ms: number;
}

/** Commands from CLIENTS clients until `stop()`; each post's latency, with when it ended. */
function load(url: string, signer: Parameters<typeof signed>[0]): { samples: Sample[]; stop: () => Promise<void> } {
  const samples: Sample[] = [];
  let stopped = false;
  let n = 0;
  const start = performance.now();
  const client = async (c: number) => {
    // Open loop: command k of this client leaves at its time, whether or not the one before is back.
    for (let k = 0; !stopped; k++) {
      const due = start + ((k * CLIENTS + c) * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      // Subjects beyond the loaded ones: each command is a new record's first or a later Increment.
      const body = JSON.stringify({ command: signed(signer, { namespace: "acme.counter", action: "Increment", subject: `live-${n++ % 5000}` }) });
      // From when it was due: a client held up by a slow answer counts the wait too.
      const t = due;
      const r = await fetch(`${url}/v1/acme/acme.counter/actions/Increment`, { method: "POST", headers: { "content-type": "application/json" }, body });
      await r.arrayBuffer();
      const end = performance.now();
      if (r.status !== 200) throw new Error(`a command answered ${r.status}`);
      samples.push({ at: end, ms: end - t });
    }
  };
  const running = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  return {
    samples,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

const stats = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0, n: sorted.length };
};

/** Runs `backup` under load; the latencies before, during and after, and the backup's duration. */
async function underLoad(url: string, signer: Parameters<typeof signed>[0], backup: () => Promise<void>) {
  const l = load(url, signer);
  await sleep(WARM_MS);
  const warm = performance.now();
  await sleep(QUIET_MS);
  const began = performance.now();
  await backup();
  const ended = performance.now();
  await sleep(QUIET_MS);
  await l.stop();
  const quiet = l.samples.filter((s) => (s.at > warm && s.at < began) || s.at > ended + 200).map((s) => s.ms);
  const during = l.samples.filter((s) => s.at >= began && s.at <= ended).map((s) => s.ms);
  return { seconds: (ended - began) / 1000, quiet: stats(quiet), during: stats(during) };
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "inherit", "inherit"] });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${args.slice(0, 2).join(" ")} exited ${code}`))));
  });
}

while (existsSync(LOCK)) {
  note(`${LOCK} exists: another benchmark runs; waiting`);
  await sleep(30_000);
}
writeFileSync(LOCK, `bench/backup.ts ${process.pid}\n`);
const removeLock = () => rmSync(LOCK, { force: true });
process.on("exit", removeLock);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));

const dir = tempDataDir("charter-bench-backup-");
try {
  const data = join(dir, "data");
  const s = await seed(data, { contracts: [example("counter.charter.md")], members: 1 });
  const signer = s.members[0] as Parameters<typeof signed>[0];
  const t0 = performance.now();
  writeIncrements(data, { artifact: s.artifacts["acme.counter"] as string, signer: signer.did, count: RECORDS, subjects: RECORDS, batch: 100_000 });
  note(`loaded ${RECORDS} records in ${((performance.now() - t0) / 1000).toFixed(1)} s; store ${(statSync(join(data, "charter.db")).size / 1024 ** 2).toFixed(0)} MiB`);

  const node = await startCharter({ dataDir: data, timeoutMs: 60_000 });
  try {
    const dest = join(dir, "backup");
    const api = await underLoad(node.url, signer, () => run(process.execPath, [charterBin, "backup", dest, "--data", data]));
    const size = statSync(join(dest, "charter.db")).size;
    report("backup.duration_s", api.seconds, "s", undefined);
    process.stdout.write(`backup.store_mib ${(size / 1024 ** 2).toFixed(0)} MiB (${RECORDS} records and their history; ${CLIENTS} clients writing)\n`);
    report("backup.command_p99_ms", api.during.p99, "ms", { label: "without a backup", value: api.quiet.p99, higherIsBetter: false, target: "≥ 0.67x: p99 ≤ 1.5x without" });
    report("backup.command_max_ms", api.during.max, "ms", { label: "without a backup", value: api.quiet.max, higherIsBetter: false, target: "no stall > 100 ms" });
    report("backup.command_p50_ms", api.during.p50, "ms", { label: "without a backup", value: api.quiet.p50, higherIsBetter: false });
    process.stdout.write(`backup.commands ${api.during.n} during the backup, ${api.quiet.n} around it\n`);

    const vdest = join(dir, "backup-vacuum");
    const vacuum = await underLoad(node.url, signer, () => run(process.execPath, ["--disable-warning=ExperimentalWarning", new URL(import.meta.url).pathname, "--child", "vacuum-into", data, vdest]));
    report("backup.vacuum_into.duration_s", vacuum.seconds, "s", { label: "backup API", value: api.seconds, higherIsBetter: false });
    report("backup.vacuum_into.command_p99_ms", vacuum.during.p99, "ms", { label: "without a backup", value: vacuum.quiet.p99, higherIsBetter: false, target: "≥ 0.67x" });
    report("backup.vacuum_into.command_max_ms", vacuum.during.max, "ms", { label: "without a backup", value: vacuum.quiet.max, higherIsBetter: false });
  } finally {
    await stopCharter(node);
  }
} finally {
  cleanup(dir);
  removeLock();
}
