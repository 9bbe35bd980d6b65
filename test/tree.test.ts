/** Issue 2: the `charter` executable and its process tree, end to end. */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { DatabaseSync } from "node:sqlite";
import { charterBin, cleanup, lockOf, spawnCharter, startCharter, stopCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

// How fast it starts (target < 1.5 s) and stops is measured by bench/tree.ts; a test asserts what happens.
test("`npm start`-style start answers /health with 200; SIGTERM drains in-flight requests and exits 0", async () => {
  const dataDir = tempDataDir();
  const c = await startCharter({ edition: "node", dataDir });
  const health = await fetch(`${c.url}/health`);
  assert.equal(health.status, 200);
  // The tree answers once its required workers run; the idle ones (test/node-tree.test.ts) may still be starting.
  const body = await waitFor("every worker running", async () => {
    const b = (await (await fetch(`${c.url}/health`)).json()) as { status: string; version: string; uptime: number; workers: Record<string, string> };
    return Object.values(b.workers).every((state) => state === "running") ? b : undefined;
  });
  assert.equal(body.status, "ok");
  assert.deepEqual(body.workers, { engine: "running", gateway: "running", assistant: "running", outbox: "running", sync: "running", updater: "running" });

  // Requests on established connections when SIGTERM arrives are all answered.
  const url = new URL(`${c.url}/health`);
  const connected: Promise<void>[] = [];
  const inFlight = Array.from(
    { length: 50 },
    () =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, path: "/health", agent: false }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        connected.push(new Promise<void>((r) => req.once("socket", (socket) => socket.once("connect", () => r()))));
        req.on("error", reject);
        req.end();
      }),
  );
  // Every connection is established (the request is written on connect) before the signal.
  await Promise.all(connected);
  const exit = stopCharter(c);
  const statuses = await Promise.all(inFlight);
  assert.ok(statuses.every((s) => s === 200), `statuses: ${statuses.join(",")}`);
  assert.deepEqual(await exit, { code: 0, signal: null });
  cleanup(dataDir);
});

test("errors are problem documents: unknown route 404, oversized body 413", async () => {
  const c = await startCharter({ args: ["--body-limit", "1000"] });
  const missing = await fetch(`${c.url}/no/such/route`);
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get("content-type"), "application/problem+json");
  assert.deepEqual(await missing.json(), { type: "urn:charter:problem:not-found", title: "Not Found", status: 404, detail: "no route for GET /no/such/route", code: "not-found" });
  const big = await fetch(`${c.url}/health`, { method: "POST", body: "x".repeat(5000) });
  assert.equal(big.status, 413);
  assert.equal(((await big.json()) as { status: number }).status, 413);
  await stopCharter(c);
  cleanup(c.dataDir);
});

test("a second charter on the same data directory refuses, naming the first one's pid", async () => {
  const c = await startCharter();
  const second = spawnCharter(["serve", "--data", c.dataDir, "--listen", "127.0.0.1:0"]);
  const { code } = await second.exited;
  assert.equal(code, 1);
  assert.match(second.stderr, new RegExp(`in use by another charter \\(pid ${c.child.pid}`));
  await stopCharter(c);
  cleanup(c.dataDir);
});

test("a port in use is a one-line error and a non-zero exit", async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
  const port = (blocker.address() as { port: number }).port;
  const dataDir = tempDataDir();
  const c = spawnCharter(["serve", "--data", dataDir, "--listen", `127.0.0.1:${port}`]);
  const { code } = await c.exited;
  blocker.close();
  assert.equal(code, 1);
  assert.match(c.stderr, new RegExp(`port 127\\.0\\.0\\.1:${port} is in use`));
  cleanup(dataDir);
});

test("bad options, an unknown command and an unwritable data directory are clear errors", async () => {
  const bad = spawnCharter(["serve", "--nope"]);
  assert.equal((await bad.exited).code, 2);
  assert.match(bad.stderr, /^charter: Unknown option '--nope'/);
  const listen = spawnCharter(["serve", "--listen", "nowhere"]);
  assert.equal((await listen.exited).code, 2);
  assert.match(listen.stderr, /--listen expects HOST:PORT/);
  const unknown = spawnCharter(["frobnicate"]);
  assert.equal((await unknown.exited).code, 2);
  assert.match(unknown.stderr, /unknown command 'frobnicate'/);
  const dir = tempDataDir();
  writeFileSync(join(dir, "file"), "");
  const unwritable = spawnCharter(["serve", "--data", join(dir, "file", "data")]);
  assert.equal((await unwritable.exited).code, 2);
  assert.match(unwritable.stderr, /the data directory .* is not writable \(/);
  cleanup(dir);
});

test("--help and --version", () => {
  const help = execFileSync(process.execPath, [charterBin, "--help"], { encoding: "utf8" });
  assert.match(help, /charter <command>/);
  assert.match(help, /serve/);
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  assert.equal(execFileSync(process.execPath, [charterBin, "--version"], { encoding: "utf8" }), `charter ${pkg.version}\n`);
  assert.match(execFileSync(process.execPath, [charterBin, "serve", "--help"], { encoding: "utf8" }), /--listen HOST:PORT/);
});

test("a store written by a newer Charter is refused and left untouched", async () => {
  const dataDir = tempDataDir();
  mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(join(dataDir, "charter.db"));
  db.exec("CREATE TABLE future (x); PRAGMA user_version = 999");
  db.close();
  const before = readFileSync(join(dataDir, "charter.db"));
  const c = spawnCharter(["serve", "--data", dataDir, "--listen", "127.0.0.1:0"]);
  const { code } = await c.exited;
  assert.equal(code, 1);
  assert.match(c.stderr, /written by a newer Charter \(schema version 999/);
  assert.deepEqual(readFileSync(join(dataDir, "charter.db")), before);
  cleanup(dataDir);
});

test("the lock file names the supervisor and its workers", async () => {
  const c = await startCharter();
  const lock = lockOf(c.dataDir);
  assert.equal(lock.pid, c.child.pid);
  assert.deepEqual(Object.keys(lock.workers).sort(), ["engine", "gateway"]);
  await stopCharter(c);
  cleanup(c.dataDir);
});
