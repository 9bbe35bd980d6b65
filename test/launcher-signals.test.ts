/**
 * Issue 17 #1: SIGTERM to the process a user or a process manager holds stops Charter. Run through
 * the launcher with the machine's own Node when it is older than 24 (the re-exec path, as on CI),
 * the launcher forwards the signal and exits with its child's code; no process of the tree is left
 * and the lock is free.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
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
    const started = Date.now();
    launcher.kill("SIGTERM");
    assert.equal(await exited, 0, "the launcher exits with the tree's code");
    await waitFor("every process of the tree gone", () => (tree.every((pid) => processState(pid) === null || processState(pid) === "Z") ? true : undefined), 5_000);
    assert.ok(Date.now() - started < 5_000);
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
