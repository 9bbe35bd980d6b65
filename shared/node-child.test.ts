import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { errorLine, runNodeChild } from "./node-child.ts";

const dir = mkdtempSync(join(tmpdir(), "charter-node-child-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A script file with `source` in it. */
function script(name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

/** Whether a process with this id still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

describe("runNodeChild", () => {
  it("gives the child its input and returns its output; it runs under this Node with only the flags given", async () => {
    const echo = script("echo.mjs", `
      import { text } from "node:stream/consumers";
      const input = await text(process.stdin);
      process.stdout.write(JSON.stringify({ input, execPath: process.execPath, execArgv: process.execArgv, pid: process.pid }));
    `);
    const outcome = await runNodeChild(echo, { input: "héllo", timeoutMs: 30_000, nodeOptions: ["--no-warnings"] });
    assert.ok(outcome.ok);
    const seen = JSON.parse(outcome.stdout) as { input: string; execPath: string; execArgv: string[]; pid: number };
    assert.deepEqual(seen, { input: "héllo", execPath: process.execPath, execArgv: ["--no-warnings"], pid: outcome.pid });
    assert.notEqual(outcome.pid, process.pid);
  });

  it("reports a child that throws by its error's line, not its stack", async () => {
    const crash = script("crash.mjs", `const e = new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") }); e.code = "X"; throw e;`);
    const outcome = await runNodeChild(crash, { input: "", timeoutMs: 30_000 });
    assert.deepEqual(outcome, { ok: false, pid: outcome.pid, timedOut: false, error: "exited with code 1: TypeError: fetch failed" });
  });

  it("reports a script that is not there, and a child that says why it failed itself, in one line", async () => {
    const missing = join(dir, "missing.mjs");
    const gone = await runNodeChild(missing, { input: "", timeoutMs: 30_000 });
    assert.ok(!gone.ok);
    assert.equal(gone.error, `exited with code 1: Error: Cannot find module '${missing}'`);
    const tells = script("tells.mjs", `process.stderr.write("warming up\\ncannot reach the node (connect ECONNREFUSED)\\n"); process.exitCode = 3;`);
    assert.deepEqual(await runNodeChild(tells, { input: "", timeoutMs: 30_000 }).then((o) => !o.ok && o.error), "exited with code 3: cannot reach the node (connect ECONNREFUSED)");
    const quiet = script("quiet.mjs", "process.exitCode = 4;");
    assert.deepEqual(await runNodeChild(quiet, { input: "", timeoutMs: 30_000 }).then((o) => !o.ok && o.error), "exited with code 4");
  });

  it("reports a child killed by a signal", async () => {
    const killed = script("killed.mjs", `process.kill(process.pid, "SIGKILL");`);
    const outcome = await runNodeChild(killed, { input: "", timeoutMs: 30_000 });
    assert.deepEqual(outcome, { ok: false, pid: outcome.pid, timedOut: false, error: "was killed by SIGKILL" });
  });

  it("stops a child at its deadline, and kills one that ignores being told to stop", async () => {
    // It ignores SIGTERM and would run forever: only the kill that follows ends it.
    const stubborn = script("stubborn.mjs", `process.on("SIGTERM", () => {}); setInterval(() => {}, 1_000);`);
    const outcome = await runNodeChild(stubborn, { input: "", timeoutMs: 500, killAfterMs: 100 });
    assert.deepEqual(outcome, { ok: false, pid: outcome.pid, timedOut: true, error: "did not finish within 500 ms and was stopped" });
    assert.equal(alive(outcome.pid as number), false, "the child is gone");
  });

  it("stops a child when its cancel signal is aborted", async () => {
    const ready = script("ready.mjs", `process.stderr.write("ready"); setInterval(() => {}, 1_000);`);
    const cancel = new AbortController();
    const running = runNodeChild(ready, { input: "", timeoutMs: 60_000, cancelSignal: cancel.signal });
    cancel.abort();
    const outcome = await running;
    assert.deepEqual(outcome, { ok: false, pid: outcome.pid, timedOut: false, error: "was stopped" });
  });
});

describe("errorLine", () => {
  it("picks the error Node printed out of its stack, or the script's own last line", () => {
    const uncaught = "file:///x.mjs:1\nthrow new Error(\"boom\")\n      ^\n\nError: boom\n    at file:///x.mjs:1:7\n\nNode.js v24.21.0\n";
    assert.equal(errorLine(uncaught), "Error: boom");
    assert.equal(errorLine("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x'\n    at y\n"), "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x'");
    assert.equal(errorLine("\n<--- Last few GCs --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n 1: 0xb8d0a3 node::Abort()\n"), "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory");
    assert.equal(errorLine("node:internal/modules/run_main:107\n    triggerUncaughtException(\n    ^\nstr\n(Use `node --trace-uncaught ...` to show where the exception was thrown)\n\nNode.js v24.21.0\n"), "str");
    assert.equal(errorLine(""), null);
    assert.equal(errorLine(`Error: ${"x".repeat(1000)}`)?.length, 300);
  });
});
