/**
 * Self-update end to end: real releases of this project, built by the test from a copy of the
 * working tree (versions bumped, some patched to fail), signed with a key `release keygen` made,
 * served from channel folders, installed by a running `charter node` through
 * `/api/settings/updates`: in ask mode (the person installs) and in automatic mode (the clock
 * inside the night window); unsigned, foreign-signed, tampered and older releases refused and
 * recorded; a release whose start fails after migrating the store put back after 3 failed starts
 * with the store it had; one whose `/health` never answers put back after the (shortened) wait;
 * the updater killed mid-switch leaves a working node. Every acknowledged write is still there.
 */
import assert from "node:assert/strict";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { execa } from "execa";
import { generateKeyPair, type KeyPair } from "../shared/identity/key-pair.ts";
import { loadKeyFile } from "../shared/identity/key-file.ts";
import { readManifest, signManifest } from "../shared/release/manifest.ts";
import { ApiClient, createAccount, printedSetupCode, stepUp } from "./helpers/api-client.ts";
import { type Charter, cleanup, lockOf, sleep, spawnCharter, tempDataDir, waitFor } from "./helpers/charter-process.ts";
import { freePort } from "./helpers/ports.ts";

const project = new URL("..", import.meta.url).pathname;
const charterCli = (args: string[]) => execa(process.execPath, [join(project, "bin/charter.js"), ...args], { reject: false });
const baseVersion = (JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { version: string }).version;
const [MAJOR, MINOR] = baseVersion.split(".").map(Number) as [number, number];
const v = (n: number) => `${MAJOR}.${MINOR + n}.0`;
const GOOD = v(1);
const NEXT = v(2);
const FAILS = v(3);
const NO_HEALTH = v(4);

const work = mkdtempSync(join(tmpdir(), "charter-update-test-"));
const builds = join(work, "builds");
let did = "";
let releaseKey: KeyPair | null = null;
const keyFile = join(work, "release.jwk");

/** A copy of the working tree as npm packs it, at `version`, with `patches` (file → [from, to]) applied. */
async function buildRelease(version: string, patches: Record<string, [string, string]> = {}): Promise<void> {
  const dir = join(work, `src-${version}`);
  mkdirSync(dir);
  const packed = await execa("npm", ["pack", "--pack-destination", work, "--ignore-scripts", "--loglevel=error"], { cwd: project });
  await execa("tar", ["-xzf", join(work, packed.stdout.trim().split("\n").at(-1) as string), "-C", dir, "--strip-components=1"]);
  copyFileSync(join(project, "package-lock.json"), join(dir, "package-lock.json"));
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "package.json"), JSON.stringify({ ...pkg, version }, null, 2));
  for (const [file, [from, to]] of Object.entries(patches)) {
    const text = readFileSync(join(dir, file), "utf8");
    assert.ok(text.includes(from), `the patch of ${file} finds its place`);
    writeFileSync(join(dir, file), text.replace(from, to));
  }
  const built = await charterCli(["release", "build", "--key", keyFile, "--out", builds, "--notes", `release ${version}`, "--project", dir]);
  assert.equal(built.exitCode, 0, built.stderr);
}

/** A channel folder offering `version` (a link to its build) as its newest, with `latest` the manifest given or the build's own. */
function channelOf(name: string, version: string, latest?: string): string {
  const dir = join(work, `channel-${name}`);
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(builds, version), join(dir, version));
  writeFileSync(join(dir, "latest.jws"), latest ?? readFileSync(join(builds, version, "manifest.jws"), "utf8"));
  return dir;
}

interface Node {
  charter: Charter;
  api: ApiClient;
  cookie: string;
  auth: Awaited<ReturnType<typeof createAccount>>["auth"];
}

/** A base `charter node` (this checkout) on a port of its own, set up, signed in, stepped up. */
async function startNode(env: Record<string, string> = {}): Promise<Node> {
  const dataDir = tempDataDir("charter-update-node-");
  const port = await freePort();
  const c = spawnCharter(["node", "--data", dataDir, "--listen", `127.0.0.1:${port}`, "--hooks-port", "0"], { CHARTER_UPDATE_POLL_MS: "300", ...env }) as Charter;
  (c as { dataDir: string }).dataDir = dataDir;
  await waitFor("the node's URL", () => /listening on (http:\/\/\S+)/.exec(c.stdout)?.[1], 30_000);
  c.url = `http://127.0.0.1:${port}`;
  const api = new ApiClient(c);
  const { cookie, auth } = await createAccount(api, printedSetupCode(c));
  await stepUp(api, auth, cookie);
  await waitFor("std.tasks in the personal tenant", async () => {
    const boot = await api.call("GET", "/api/bootstrap", { cookie });
    return (boot.body.tenant.contracts as { namespace: string }[]).some((x) => x.namespace === "std.tasks") ? true : undefined;
  });
  return { charter: c, api, cookie, auth };
}

async function stopNode(node: Node): Promise<void> {
  if (node.charter.child.exitCode === null) node.charter.child.kill("SIGTERM");
  await node.charter.exited;
  cleanup(node.charter.dataDir);
}

/** The version `/health` reports once it answers 200. */
async function runningVersion(node: Node, want: string, timeoutMs = 120_000): Promise<void> {
  await waitFor(
    `version ${want} answering /health`,
    async () => {
      const res = await fetch(`${node.charter.url}/health`);
      const body = (await res.json()) as { version?: string };
      return res.status === 200 && body.version === want ? true : undefined;
    },
    timeoutMs,
  );
}

const call = (node: Node, method: string, path: string, body?: unknown) => node.api.call(method, path, { cookie: node.cookie, ...(body === undefined ? {} : { body }) });

/** Adds a task; right after an update is recorded, the engine may take up to 250 ms to see that writes go on again. */
async function addTask(node: Node, title: string): Promise<void> {
  for (let tries = 0; ; tries++) {
    const res = await call(node, "POST", "/api/tasks", { title });
    if (res.status === 503 && res.body.code === "updating" && tries < 20) {
      await sleep(100);
      continue;
    }
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return;
  }
}

async function taskTitles(node: Node): Promise<string[]> {
  const res = await call(node, "GET", "/api/tasks?status=all&limit=200");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.items as { title: string }[]).map((t) => t.title);
}

async function configure(node: Node, channel: string, mode = "ask", extra: Record<string, unknown> = {}): Promise<void> {
  const res = await call(node, "PUT", "/api/settings/updates", { mode, channel, releaseKey: did, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** Waits for the newest history event of `kind`. */
async function event(node: Node, kind: string, version?: string, timeoutMs = 120_000): Promise<{ kind: string; version: string; from?: string; code?: string; reason?: string }> {
  return waitFor(
    `an update event ${kind}`,
    async () => {
      const res = await call(node, "GET", "/api/settings/updates");
      const e = res.status === 200 ? (res.body.history as { kind: string; version: string }[]).find((x) => x.kind === kind && (version === undefined || x.version === version)) : undefined;
      return e as never;
    },
    timeoutMs,
  );
}

describe("self-update", { timeout: 900_000 }, () => {
  before(async () => {
    const keygen = await charterCli(["release", "keygen", "--out", keyFile]);
    assert.equal(keygen.exitCode, 0, keygen.stderr);
    did = keygen.stdout.trim();
    const loaded = await loadKeyFile(keyFile);
    assert.ok(loaded.ok);
    releaseKey = loaded.value;
    await buildRelease(GOOD);
    await buildRelease(NEXT);
    // Migrates the store (a new table, schema version +1), then fails to start.
    await buildRelease(FAILS, {
      "shared/store/migrations.ts": ["\n];", '\n  { version: 99, name: "release-test", sql: "CREATE TABLE release_test (x INTEGER);" },\n];'],
      "workers/engine/engine.ts": ['if (applied.length > 0) ctx.log.info("store migrated", { versions: applied });', 'if (applied.length > 0) ctx.log.info("store migrated", { versions: applied });\n  throw new FatalError("this release fails after migrating the store");'],
    });
    // Starts, but its /health never answers 200.
    await buildRelease(NO_HEALTH, { "workers/gateway/routes/health.ts": ['app.get("/health", async function health(c) {', 'app.get("/health", async function health(c) {\n    if (Date.now() > 0) return c.json({ status: "broken" }, 503);'] });
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it("ask mode: the check finds the release, the person installs it, the node restarts into it; then automatic mode in the night window takes the next", async () => {
    const node = await startNode();
    try {
      await addTask(node, "before the update");
      const status = await call(node, "GET", "/api/settings/updates");
      assert.equal(status.status, 200);
      assert.equal(status.body.settings.mode, "off");
      assert.deepEqual(status.body.running, { version: baseVersion, release: null });

      // Changing the channel needs a step-up: a fresh session without one is refused.
      await configure(node, channelOf("good", GOOD));
      const checked = await call(node, "POST", "/api/settings/updates/check");
      assert.equal(checked.status, 200, JSON.stringify(checked.body));
      assert.equal(checked.body.available.version, GOOD);
      const boot = await call(node, "GET", "/api/bootstrap");
      assert.equal(boot.body.node.update.mode, "ask");
      assert.equal(boot.body.node.update.available.version, GOOD);

      const started = Date.now();
      const install = await call(node, "POST", "/api/settings/updates/install", { version: GOOD });
      assert.equal(install.status, 202, JSON.stringify(install.body));
      await runningVersion(node, GOOD);
      const installed = await event(node, "installed");
      assert.equal(installed.version, GOOD);
      assert.equal(installed.from, baseVersion);
      process.stderr.write(`install to /health: ${Date.now() - started} ms\n`);
      assert.equal(readlinkSync(join(node.charter.dataDir, "releases", "current")), GOOD);
      // The session, the data and writes carry over.
      assert.deepEqual(await taskTitles(node), ["before the update"]);
      await addTask(node, "after the update");
      const now = await call(node, "GET", "/api/settings/updates");
      assert.deepEqual(now.body.running, { version: GOOD, release: GOOD });
      assert.equal(now.body.state, "idle");

      // Automatic: a window around the present moment (UTC), a channel that offers the next release.
      const hour = new Date().getUTCHours();
      const hh = (h: number) => `${String((h + 24) % 24).padStart(2, "0")}:00`;
      await stepUp(node.api, node.auth, node.cookie);
      await configure(node, channelOf("next", NEXT), "automatic", { window: { start: hh(hour - 1), end: hh(hour + 1) }, timeZone: "UTC" });
      await runningVersion(node, NEXT);
      const second = await event(node, "installed", NEXT);
      assert.equal(second.version, NEXT);
      assert.equal(second.from, GOOD);
      assert.deepEqual((await taskTitles(node)).sort(), ["after the update", "before the update"]);
      // The previous release is kept; the one before it is not.
      assert.equal(readlinkSync(join(node.charter.dataDir, "releases", "current")), NEXT);
      assert.ok(readFileSync(join(node.charter.dataDir, "releases", GOOD, "package.json"), "utf8").includes(GOOD));
    } finally {
      await stopNode(node);
    }
  });

  it("refuses an unsigned, a foreign-signed, a tampered and an older release, records each, and keeps running", async () => {
    const node = await startNode();
    try {
      const manifest = readFileSync(join(builds, GOOD, "manifest.jws"), "utf8").trim();
      const read = readManifest(manifest, did);
      assert.ok(read.ok);
      const [header, payload] = manifest.split(".");
      const cases: [string, string, string][] = [
        ["unsigned", channelOf("unsigned", GOOD, `${header}.${payload}.`), "unsigned"],
        ["foreign", channelOf("foreign", GOOD, signManifest(generateKeyPair(), read.value)), "foreign-signed"],
        ["older", channelOf("older", GOOD, signManifest(releaseKey as KeyPair, { ...read.value, version: `${MAJOR}.${MINOR}.0` === baseVersion && MINOR > 0 ? `${MAJOR}.${MINOR - 1}.0` : "0.0.0" })), "downgrade"],
      ];
      for (const [, channel, code] of cases) {
        await configure(node, channel);
        const res = await call(node, "POST", "/api/settings/updates/check");
        assert.equal(res.status, 409, JSON.stringify(res.body));
        assert.equal(res.body.code, "update-refused");
        assert.equal(res.body.reason, code);
        assert.equal((await event(node, "refused")).code, code);
      }
      // Tampered: the manifest is right, one byte of an archive is not.
      const tampered = join(work, "channel-tampered");
      mkdirSync(tampered);
      cpSync(join(builds, GOOD), join(tampered, GOOD), { recursive: true });
      const archive = join(tampered, GOOD, `charter-${GOOD}.tgz`);
      const bytes = readFileSync(archive);
      bytes.writeUInt8((bytes.at(-1) as number) ^ 1, bytes.length - 1);
      writeFileSync(archive, bytes);
      writeFileSync(join(tampered, "latest.jws"), manifest);
      await configure(node, tampered);
      const install = await call(node, "POST", "/api/settings/updates/install");
      assert.equal(install.status, 409, JSON.stringify(install.body));
      assert.equal(install.body.reason, "tampered");
      assert.equal((await event(node, "refused")).code, "tampered");
      // Installing needs a step-up: a new session without one is refused.
      const health = (await (await fetch(`${node.charter.url}/health`)).json()) as { version: string };
      assert.equal(health.version, baseVersion);
      await addTask(node, "still writing");
    } finally {
      await stopNode(node);
    }
  });

  it("a release that migrates the store and then fails to start is put back after 3 failed starts, with the store it had", async () => {
    const node = await startNode();
    try {
      for (let i = 0; i < 5; i++) await addTask(node, `task ${i}`);
      const schemaBefore = userVersion(node.charter.dataDir);
      await configure(node, channelOf("fails", FAILS));
      const install = await call(node, "POST", "/api/settings/updates/install");
      assert.equal(install.status, 202, JSON.stringify(install.body));
      const decided = await waitFor("the rollback", () => (/rolled back release/.test(node.charter.stderr) ? Date.now() : undefined), 180_000);
      await runningVersion(node, baseVersion);
      process.stderr.write(`rollback decision to /health: ${Date.now() - decided} ms\n`);
      const rolled = await event(node, "rolled-back");
      assert.equal(rolled.version, FAILS);
      assert.match(rolled.reason ?? "", /failed to start 3 times/);
      assert.match(node.charter.stderr, /this release fails after migrating the store/);
      assert.equal(userVersion(node.charter.dataDir), schemaBefore);
      assert.deepEqual((await taskTitles(node)).sort(), ["task 0", "task 1", "task 2", "task 3", "task 4"]);
      await addTask(node, "after the rollback");
      // Automatic mode never takes a release that was put back.
      const status = await call(node, "GET", "/api/settings/updates");
      assert.deepEqual(status.body.rolledBack, [FAILS]);
    } finally {
      await stopNode(node);
    }
  });

  it("a release whose /health never answers holds writes while on trial and is put back after the wait", async () => {
    const node = await startNode({ CHARTER_UPDATE_HEALTH_WAIT_MS: "12000" });
    try {
      await addTask(node, "kept");
      await configure(node, channelOf("no-health", NO_HEALTH));
      const install = await call(node, "POST", "/api/settings/updates/install");
      assert.equal(install.status, 202, JSON.stringify(install.body));
      // On trial: the new release serves, but takes no write.
      const held = await waitFor(
        "a write refused while on trial",
        async () => {
          const res = await call(node, "POST", "/api/tasks", { title: "during the trial" });
          return res.status === 503 ? res : undefined;
        },
        60_000,
      );
      assert.equal(held.body.code, "updating");
      await event(node, "rolled-back", NO_HEALTH).then((e) => assert.match(e.reason ?? "", /did not answer 200 within 12 s/));
      await runningVersion(node, baseVersion);
      assert.deepEqual(await taskTitles(node), ["kept"]);
    } finally {
      await stopNode(node);
    }
  });

  it("the updater killed mid-switch leaves a working node: before the link moved, the running release stays; after, the new one is taken", async () => {
    const before = await startNode({ CHARTER_UPDATE_CRASH_AT: "backup" });
    try {
      await addTask(before, "one");
      await configure(before, channelOf("crash-backup", GOOD));
      const updater = lockOf(before.charter.dataDir).workers.updater;
      const install = await call(before, "POST", "/api/settings/updates/install");
      assert.equal(install.status, 503, JSON.stringify(install.body));
      await waitFor("a new updater", () => (lockOf(before.charter.dataDir).workers.updater !== updater ? true : undefined), 30_000);
      assert.equal((await event(before, "interrupted")).version, GOOD);
      await waitFor("writes accepted again", async () => ((await call(before, "POST", "/api/tasks", { title: "two" })).status === 201 ? true : undefined), 30_000);
      assert.deepEqual((await taskTitles(before)).sort(), ["one", "two"]);
      const health = (await (await fetch(`${before.charter.url}/health`)).json()) as { version: string };
      assert.equal(health.version, baseVersion);
    } finally {
      await stopNode(before);
    }
    const linked = await startNode({ CHARTER_UPDATE_CRASH_AT: "link" });
    try {
      await addTask(linked, "one");
      await configure(linked, channelOf("crash-link", GOOD));
      await call(linked, "POST", "/api/settings/updates/install");
      await runningVersion(linked, GOOD);
      assert.equal((await event(linked, "installed", GOOD)).from, baseVersion);
      assert.deepEqual(await taskTitles(linked), ["one"]);
    } finally {
      await stopNode(linked);
    }
  });
});

function userVersion(dataDir: string): number {
  const db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
  try {
    return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  } finally {
    db.close();
  }
}
