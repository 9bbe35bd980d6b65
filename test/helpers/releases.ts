/**
 * @module Self-update from a test's or a bench's side: real releases of this checkout built into a
 * build folder (a copy of the working tree as npm packs it, its version bumped, patches applied),
 * channel folders offering one of them, and a base `charter node` set up, signed in and stepped up,
 * with the calls the update tests make of it.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { loadKeyFile } from "../../shared/identity/key-file.ts";
import type { KeyPair } from "../../shared/identity/key-pair.ts";
import { ApiClient, createAccount, printedSetupCode, stepUp } from "./api-client.ts";
import { type Charter, cleanup, sleep, spawnCharter, tempDataDir, waitFor } from "./charter-process.ts";
import { freePort } from "./ports.ts";

const project = new URL("../..", import.meta.url).pathname;
const charterCli = (args: string[]) => execa(process.execPath, [join(project, "bin/charter.js"), ...args], { reject: false });
export const baseVersion = (JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { version: string }).version;

/** The version `n` minor versions after this checkout's. */
export function laterVersion(n: number): string {
  const [major, minor] = baseVersion.split(".").map(Number) as [number, number];
  return `${major}.${minor + n}.0`;
}

/** Releases built into one folder, signed with one key `release keygen` made. */
export class ReleaseBuilder {
  readonly work = mkdtempSync(join(tmpdir(), "charter-releases-"));
  readonly builds = join(this.work, "builds");
  readonly keyFile = join(this.work, "release.jwk");
  did = "";
  key: KeyPair | null = null;

  async init(): Promise<void> {
    const keygen = await charterCli(["release", "keygen", "--out", this.keyFile]);
    assert.equal(keygen.exitCode, 0, keygen.stderr);
    this.did = keygen.stdout.trim();
    const loaded = await loadKeyFile(this.keyFile);
    assert.ok(loaded.ok);
    this.key = loaded.value;
  }

  /** Builds `version` from a copy of the working tree with `patches` (file → [from, to]) applied. */
  async build(version: string, patches: Record<string, [string, string]> = {}): Promise<void> {
    const dir = join(this.work, `src-${version}`);
    mkdirSync(dir);
    const packed = await execa("npm", ["pack", "--pack-destination", this.work, "--ignore-scripts", "--loglevel=error"], { cwd: project });
    await execa("tar", ["-xzf", join(this.work, packed.stdout.trim().split("\n").at(-1) as string), "-C", dir, "--strip-components=1"]);
    copyFileSync(join(project, "package-lock.json"), join(dir, "package-lock.json"));
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(dir, "package.json"), JSON.stringify({ ...pkg, version }, null, 2));
    for (const [file, [from, to]] of Object.entries(patches)) {
      const text = readFileSync(join(dir, file), "utf8");
      assert.ok(text.includes(from), `the patch of ${file} finds its place`);
      writeFileSync(join(dir, file), text.replace(from, to));
    }
    const built = await charterCli(["release", "build", "--key", this.keyFile, "--out", this.builds, "--notes", `release ${version}`, "--project", dir]);
    assert.equal(built.exitCode, 0, built.stderr);
    rmSync(dir, { recursive: true, force: true });
  }

  /** A channel folder offering `version` (a link to its build) as its newest; `latest` the manifest given, or the build's own. */
  channel(name: string, version: string, latest?: string): string {
    const dir = join(this.work, `channel-${name}`);
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(this.builds, version), join(dir, version));
    writeFileSync(join(dir, "latest.jws"), latest ?? readFileSync(join(this.builds, version, "manifest.jws"), "utf8"));
    return dir;
  }

  close(): void {
    rmSync(this.work, { recursive: true, force: true });
  }
}

/** Patches that make a release migrate the store (a new table) and then fail to start. */
export const FAILS_AFTER_MIGRATING: Record<string, [string, string]> = {
  "shared/store/migrations.ts": ["\n];", '\n  { version: 99, name: "release-test", sql: "CREATE TABLE release_test (x INTEGER);" },\n];'],
  "workers/engine/engine.ts": ['if (applied.length > 0) ctx.log.info("store migrated", { versions: applied });', 'if (applied.length > 0) ctx.log.info("store migrated", { versions: applied });\n  throw new FatalError("this release fails after migrating the store");'],
};

/** Patches that make a release start but never answer /health with 200. */
export const NO_HEALTH: Record<string, [string, string]> = {
  "workers/gateway/routes/health.ts": ['app.get("/health", async function health(c) {', 'app.get("/health", async function health(c) {\n    if (Date.now() > 0) return c.json({ status: "broken" }, 503);'],
};

export interface UpdateNode {
  readonly charter: Charter;
  readonly api: ApiClient;
  readonly cookie: string;
  readonly auth: Awaited<ReturnType<typeof createAccount>>["auth"];
}

/** A base `charter node` (this checkout) on a port of its own, set up, signed in, stepped up, with std.tasks. */
export async function startUpdateNode(env: Record<string, string> = {}): Promise<UpdateNode> {
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

export async function stopUpdateNode(node: UpdateNode): Promise<void> {
  if (node.charter.child.exitCode === null) node.charter.child.kill("SIGTERM");
  await node.charter.exited;
  cleanup(node.charter.dataDir);
}

/** Resolves once `/health` answers 200 for version `want` and the launcher has seen it (no release on trial: writes go on). */
export async function healthVersion(node: UpdateNode, want: string, timeoutMs = 120_000): Promise<void> {
  await waitFor(
    `version ${want} answering /health`,
    async () => {
      const res = await fetch(`${node.charter.url}/health`);
      const body = (await res.json()) as { version?: string };
      if (res.status !== 200 || body.version !== want) return undefined;
      const status = await call(node, "GET", "/api/settings/updates");
      return status.status === 200 && status.body.state !== "trial" ? true : undefined;
    },
    timeoutMs,
  );
}

export const call = (node: UpdateNode, method: string, path: string, body?: unknown) => node.api.call(method, path, { cookie: node.cookie, ...(body === undefined ? {} : { body }) });

/** Adds a task; one refused while a new release is still on trial (503 updating) is tried again for a moment. */
export async function addTask(node: UpdateNode, title: string): Promise<void> {
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

export async function taskTitles(node: UpdateNode): Promise<string[]> {
  const res = await call(node, "GET", "/api/tasks?status=all&limit=200");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body.items as { title: string }[]).map((t) => t.title);
}

/** Sets the node's update settings (the session is stepped up). */
export async function configureUpdates(node: UpdateNode, settings: Record<string, unknown>): Promise<void> {
  const res = await call(node, "PUT", "/api/settings/updates", settings);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

export interface SeenEvent {
  kind: string;
  version: string;
  from?: string;
  code?: string;
  reason?: string;
}

/** Waits for the newest history event of `kind` (and `version`, when given). */
export async function updateEvent(node: UpdateNode, kind: string, version?: string, timeoutMs = 120_000): Promise<SeenEvent> {
  return waitFor(
    `an update event ${kind}`,
    async () => {
      const res = await call(node, "GET", "/api/settings/updates");
      return res.status === 200 ? (res.body.history as SeenEvent[]).find((x) => x.kind === kind && (version === undefined || x.version === version)) : undefined;
    },
    timeoutMs,
  );
}
