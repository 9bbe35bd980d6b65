/**
 * @module Starting a real `charter` process tree for a test: its own temp data directory, a free
 * port (port 0), the URL read from its first stdout line, and a clean stop.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { fileURLToPath } from "node:url";

export const charterBin = fileURLToPath(new URL("../../bin/charter.js", import.meta.url));

export interface Charter {
  readonly child: ChildProcess;
  readonly dataDir: string;
  url: string;
  stdout: string;
  stderr: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Every temp directory this test file made: what no `cleanup` removed goes when the file's process exits. */
const made = new Set<string>();
process.on("exit", () => {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // A worker still exiting may write into it meanwhile: what is left is only a temp folder.
    }
  }
});

/** A fresh temp data directory, removed by `cleanup` (or when the test file's process exits). */
export function tempDataDir(prefix = "charter-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Every charter a test started; any still running after the file's last test is killed. */
const started = new Set<ChildProcess>();
// A failed test may never reach its stop, and a live child would keep the test file from ending:
// after the file's tests, kill what is left (the supervisor; its workers see it go and stop).
after(() => {
  for (const child of started) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Spawns `charter ARGS` and collects its output. */
export function spawnCharter(args: string[], env: Record<string, string> = {}): Omit<Charter, "url" | "dataDir"> & { dataDir: string } {
  const child = spawn(process.execPath, [charterBin, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  started.add(child);
  child.on("exit", () => started.delete(child));
  const c = {
    child,
    dataDir: "",
    stdout: "",
    stderr: "",
    exited: new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal }))),
  };
  child.stdout?.on("data", (d: Buffer) => (c.stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (c.stderr += d.toString()));
  return c;
}

/** Starts `charter EDITION` on `dataDir` and resolves once it prints its URL. */
export async function startCharter(
  options: { edition?: "node" | "serve"; dataDir?: string; args?: string[]; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<Charter> {
  const dataDir = options.dataDir ?? tempDataDir();
  const c = spawnCharter([options.edition ?? "serve", "--data", dataDir, "--listen", "127.0.0.1:0", ...(options.args ?? [])], options.env) as Charter;
  (c as { dataDir: string }).dataDir = dataDir;
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const match = /listening on (http:\/\/\S+)/.exec(c.stdout);
    if (match?.[1]) {
      c.url = match[1];
      return c;
    }
    if (c.child.exitCode !== null || Date.now() > deadline) {
      c.child.kill("SIGKILL");
      throw new Error(`charter did not start (exit ${c.child.exitCode}):\n${c.stderr}`);
    }
    await sleep(20);
  }
}

/** Sends SIGTERM and waits for the exit. */
export async function stopCharter(c: Charter): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (c.child.exitCode === null) c.child.kill("SIGTERM");
  return c.exited;
}

/** The pids the lock file records. */
export function lockOf(dataDir: string): { pid: number; workers: Record<string, number> } {
  return JSON.parse(readFileSync(join(dataDir, "charter.lock"), "utf8")) as { pid: number; workers: Record<string, number> };
}

/** Polls `check` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch {
      // Not yet.
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** A process's state letter from /proc (`R`, `S`, `T` when stopped, `Z`…), or null when it is gone. */
export function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return null;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function cleanup(dir: string): void {
  // Retried: a worker of a node that was just stopped may still be writing its last files.
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  made.delete(dir);
}
