/**
 * Issue 16: the data directory of a real started tree. #8 — it and everything in it are its owner's
 * alone, however it was found, and links in it are refused at start. #11 — a data directory that
 * becomes read-only stops the tree cleanly at the next worker restart, with one clear line.
 */
import assert from "node:assert/strict";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { connectChannel } from "../shared/channel/socket.ts";
import { generateKeyPair } from "../shared/identity/index.ts";
import type { AdminRequests } from "../shared/protocol/admin.ts";
import { processAlive } from "../shared/store/lock.ts";
import { cleanup, lockOf, spawnCharter, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";

const posix = { skip: process.platform === "win32" ? "POSIX modes" : false };
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Every path under `dir` (itself excluded), depth first. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return lstatSync(path).isDirectory() ? [path, ...walk(path)] : [path];
  });
}

/** Runs `fn` with the process umask at `mask`: the tree inherits it. */
async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(previous);
  }
}

test("issue 16 #8: a tree started on an existing 0755 data directory makes it 0700, says so, and keeps every file in it private", posix, async () => {
  const dataDir = tempDataDir();
  chmodSync(dataDir, 0o755);
  const c = await withUmask(0o022, () => startCharter({ dataDir }));
  try {
    assert.match(c.stderr, new RegExp(`the data directory ${escape(dataDir)} was accessible to other users \\(mode 0755\\); it is now 0700`));
    const admin = await connectChannel<AdminRequests, Record<string, never>>(join(dataDir, "admin.sock"));
    assert.ok((await admin.request("tenant-create", { handle: "acme", owners: [generateKeyPair().did], by: null })).ok);
    admin.close();
    const paths = walk(dataDir);
    for (const name of ["charter.db", "charter.db-wal", "charter.db-shm", "charter.lock", "node-key.jwk", "admin.sock", join("logs", "charter.log"), join("keys", "tenant-acme.jwk")]) {
      assert.ok(paths.includes(join(dataDir, name)), `${name} exists`);
    }
    assert.equal(lstatSync(dataDir).mode & 0o777, 0o700);
    for (const path of paths) {
      const stat = lstatSync(path);
      assert.ok(!stat.isSymbolicLink(), path);
      assert.equal(stat.mode & 0o077, 0, `${path} is mode ${(stat.mode & 0o777).toString(8)}: group and others must have no access`);
    }
  } finally {
    await stopCharter(c);
    cleanup(dataDir);
  }
});

test(
  "issue 16 #8: refuses a data directory others can write that another user owns: exit 2, naming it and why",
  { skip: process.platform === "win32" ? "POSIX modes" : process.getuid?.() === 0 ? false : "making a directory owned by another user needs root" },
  async () => {
    const dataDir = tempDataDir();
    chownSync(dataDir, 65534, 65534);
    chmodSync(dataDir, 0o777);
    const c = spawnCharter(["serve", "--data", dataDir, "--listen", "127.0.0.1:0"]);
    const exit = await c.exited;
    assert.deepEqual(exit, { code: 2, signal: null });
    assert.match(c.stderr, new RegExp(`^charter: refusing the data directory ${escape(dataDir)}: other users can write in it \\(mode 0777\\) and it belongs to uid 65534`));
    assert.equal(lstatSync(dataDir).mode & 0o777, 0o777, "nothing was changed");
    assert.deepEqual(readdirSync(dataDir), [], "nothing was written in it");
    cleanup(dataDir);
  },
);

test("issue 16 #8: refuses to start when the log file is a link (it would append to any file): exit 2, the target untouched", posix, async () => {
  const dataDir = tempDataDir();
  const victim = join(tempDataDir(), "victim");
  writeFileSync(victim, "precious\n");
  mkdirSync(join(dataDir, "logs"), { mode: 0o700 });
  symlinkSync(victim, join(dataDir, "logs", "charter.log"));
  const c = spawnCharter(["serve", "--data", dataDir, "--listen", "127.0.0.1:0"]);
  assert.deepEqual(await c.exited, { code: 2, signal: null });
  assert.match(c.stderr, /logs\/charter\.log is a symbolic link; refusing to follow links inside the data directory/);
  assert.equal(readFileSync(victim, "utf8"), "precious\n");
  assert.ok(!existsSync(join(dataDir, "charter.lock")), "no lock is left behind");
  cleanup(dataDir);
  cleanup(join(victim, ".."));
});

/** Pids of live processes whose environment names `dataDir` (a charter tree's workers carry it in their config). */
function treeProcesses(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").includes(dataDir) && processAlive(Number(entry))) pids.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}

test(
  "issue 16 #11: a data directory that became read-only stops the tree at the next restart: one clear line, exit 1, every worker stopped",
  { skip: process.platform === "linux" ? false : "reads /proc" },
  async () => {
    // As root, chmod does not stop any write: the preload makes the supervisor meet EACCES as anyone else would.
    const preload = pathToFileURL(new URL("./helpers/read-only-as-root.ts", import.meta.url).pathname).href;
    const c = await startCharter({ env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${preload}`.trim() } });
    const lock = join(c.dataDir, "charter.lock");
    const before = lockOf(c.dataDir);
    chmodSync(c.dataDir, 0o500);
    try {
      process.kill(before.workers.engine as number, "SIGKILL");
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([c.exited, new Promise((resolve) => (timer = setTimeout(resolve, 30_000, "still running")))]);
      clearTimeout(timer);
      assert.deepEqual(exit, { code: 1, signal: null }, c.stderr);
      assert.match(c.stderr, new RegExp(`cannot write the lock file ${escape(lock)}: permission denied`));
      assert.doesNotMatch(c.stderr, /^\s+at /m, "no stack trace");
      assert.doesNotMatch(c.stderr, /Uncaught|node:internal/);
      await waitFor("every worker of the tree stopped", () => (treeProcesses(c.dataDir).length === 0 ? true : undefined), 10_000);
      assert.ok(!processAlive(before.workers.gateway as number));
      assert.ok(existsSync(lock), "the lock could not be removed from a read-only directory");
    } finally {
      chmodSync(c.dataDir, 0o700);
    }
    // The lock it had to leave is stale: the next start takes it over.
    const again = await startCharter({ dataDir: c.dataDir });
    assert.equal(lockOf(c.dataDir).pid, again.child.pid);
    assert.deepEqual(await stopCharter(again), { code: 0, signal: null });
    cleanup(c.dataDir);
  },
);
