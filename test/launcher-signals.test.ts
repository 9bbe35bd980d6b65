/**
 * Issue 17 #1: SIGTERM to the process a user or a process manager holds stops Charter. Run through
 * the launcher with the machine's own Node when it is older than 24 (the re-exec path, as on CI),
 * the launcher forwards the signal and exits with its child's code; no process of the tree is left
 * and the lock is free.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn, type SpawnOptions } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { charterBin, cleanup, processState, sleep, tempDataDir, waitFor } from "./helpers/charter-process.ts";

/** A Node older than 24 on the machine's PATH (outside node_modules), or null. */
function machineNode(): string | null {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const candidate = join(dir, "node");
    if (dir.includes("node_modules") || !existsSync(candidate)) continue;
    try {
      const major = Number(execFileSync(candidate, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).trim());
      if (major < 24) return candidate;
    } catch {
      // not runnable: keep looking
    }
  }
  return null;
}

const older = machineNode();

test("issue 17 #1: SIGTERM to the launcher (re-exec under the project's Node) stops the whole tree and frees the lock", { skip: older === null ? "no Node older than 24 on this machine's PATH: the re-exec path is not taken here" : false }, async () => {
  const dataDir = tempDataDir();
  const launcher = spawn(older as string, [charterBin, "serve", "--data", dataDir, "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CHARTER_REEXEC: "" } });
  let out = "";
  launcher.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => launcher.on("exit", (code) => resolve(code)));
  try {
    await waitFor("the node's URL", () => (/listening on http/.test(out) ? true : undefined), 20_000);
    const lock = JSON.parse(readFileSync(join(dataDir, "charter.lock"), "utf8")) as { pid: number; workers: Record<string, number> };
    const tree = [lock.pid, ...Object.values(lock.workers)];
    assert.notEqual(lock.pid, launcher.pid, "the supervisor runs in a child of the launcher");
    launcher.kill("SIGTERM");
    assert.equal(await exited, 0, "the launcher exits with the tree's code");
    await waitFor("every process of the tree gone", () => (tree.every((pid) => processState(pid) === null || processState(pid) === "Z") ? true : undefined), 15_000);
    await waitFor("the lock free", () => (!existsSync(join(dataDir, "charter.lock")) || readFileSync(join(dataDir, "charter.lock"), "utf8").trim() === "" ? true : undefined), 5_000).catch(async () => {
      // A lock file may stay behind as long as no live process holds it: a new start takes it.
      const again = spawn(process.execPath, [charterBin, "serve", "--data", dataDir, "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "pipe"] });
      let o = "";
      again.stdout?.on("data", (d: Buffer) => (o += d.toString()));
      await waitFor("a new start on the same directory", () => (/listening on http/.test(o) ? true : undefined), 20_000);
      again.kill("SIGTERM");
      await new Promise((r) => again.on("exit", r));
    });
  } finally {
    if (launcher.exitCode === null) launcher.kill("SIGKILL");
    await sleep(50);
    cleanup(dataDir);
  }
});

/** Starts `argv` as a tree, keeping what it prints (stdout and stderr, and both together). */
function startTree(command: string, argv: readonly string[], options: SpawnOptions = {}) {
  const child = spawn(command, argv, { stdio: ["ignore", "pipe", "pipe"], ...options });
  const printed = { out: "", err: "", all: "" };
  child.stdout?.on("data", (d: Buffer) => ((printed.out += d.toString()), (printed.all += d.toString())));
  child.stderr?.on("data", (d: Buffer) => ((printed.err += d.toString()), (printed.all += d.toString())));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const listening = () => waitFor("the node's URL", () => (/listening on http/.test(printed.out) ? true : undefined), 20_000);
  return { child, printed, exited, listening };
}

test("SIGTERM to the launcher's whole process group (a terminal's Ctrl-C, kill -- -PGID, timeout) still drains: the copy passed on is the same stop", { skip: older === null ? "no Node older than 24 on this machine's PATH: the re-exec path is not taken here" : false }, async () => {
  const dataDir = tempDataDir();
  // Its own process group, so that the group can be signalled as a terminal or `timeout` does.
  const launcher = startTree(older as string, [charterBin, "serve", "--data", dataDir, "--listen", "127.0.0.1:0"], { detached: true, env: { ...process.env, CHARTER_REEXEC: "" } });
  const group = -(launcher.child.pid as number);
  try {
    await launcher.listening();
    const lock = JSON.parse(readFileSync(join(dataDir, "charter.lock"), "utf8")) as { pid: number };
    assert.notEqual(lock.pid, launcher.child.pid, "the supervisor runs in a child of the launcher");
    process.kill(group, "SIGTERM");
    assert.equal(await launcher.exited, 0, `drained and exited 0 (stderr: ${launcher.printed.err.slice(-300)})`);
    assert.doesNotMatch(launcher.printed.err, /without draining/);
    assert.match(launcher.printed.all, /SIGTERM received; draining/);
  } finally {
    if (launcher.child.exitCode === null) process.kill(group, "SIGKILL");
    await sleep(50);
    cleanup(dataDir);
  }
});

test("SIGHUP (the terminal it runs in closing) drains the tree like SIGTERM, and it exits 0", async () => {
  const dataDir = tempDataDir();
  const tree = startTree(process.execPath, [charterBin, "serve", "--data", dataDir, "--listen", "127.0.0.1:0"]);
  try {
    await tree.listening();
    const lock = JSON.parse(readFileSync(join(dataDir, "charter.lock"), "utf8")) as { pid: number; workers: Record<string, number> };
    // As a terminal hangs up: the whole foreground group hears it, workers too.
    for (const pid of [lock.pid, ...Object.values(lock.workers)]) process.kill(pid, "SIGHUP");
    assert.equal(await tree.exited, 0, tree.printed.all.slice(-400));
    assert.match(tree.printed.all, /SIGHUP received; draining/);
    assert.doesNotMatch(tree.printed.all, /signal=SIGHUP|worker exited|did not drain/, "every worker drained: none died of the signal");
  } finally {
    if (tree.child.exitCode === null) tree.child.kill("SIGKILL");
    await sleep(50);
    cleanup(dataDir);
  }
});
