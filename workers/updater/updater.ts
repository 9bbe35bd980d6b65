/**
 * @module The updater worker: follows the release channel. It checks the channel (the manifest
 * signed by the configured release key, suitable for this machine, newer than what runs), and
 * installs a release: downloads its files into `DATA/releases/staging/`, checks each against its
 * digest, unpacks it into `DATA/releases/<version>/` (its dependencies, Node 24 included, come with
 * it: nothing is fetched from a registry), then switches:
 *
 * 1. `update.json` says `switching`: the engine and the gateway hold writes (503 `updating`); the
 *    engine answers `update-hold` once every write admitted before has committed;
 * 2. the databases are backed up into `DATA/releases/backups/<version>/` (shared/update/switch.ts);
 * 3. the `current` link moves to the new release, atomically;
 * 4. `update.json` says `trial`, and the supervisor is asked to restart the tree, which the
 *    launcher (cli/launcher.ts) starts from the new release; the new release holds writes until it
 *    answers `/health`, and is put back, with the backup, after 3 failed starts or 180 s without it.
 *
 * A refused release (`unsigned`, `foreign-signed`, `tampered`, `downgrade`, `unsuitable`) is
 * recorded in `update.json`'s history. In `automatic` mode the channel is read every hour (or
 * `CHARTER_UPDATE_POLL_MS`), and a release is installed only inside the night window and only if
 * it was not put back before. The gateway reaches the worker over `DATA/run/updater.sock`
 * (shared/protocol/updater.ts) for the person's routes, and hears each change of its status.
 */
import { mkdir, readFile, readdir, readlink, rename, rm, symlink } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Server } from "node:net";
import { execa } from "execa";
import type { Channel } from "../../shared/channel/channel.ts";
import { listenPrivateChannels } from "../../shared/channel/socket.ts";
import { checkFiles, checkSuitable, compareVersions, readManifest, type ReleaseManifest } from "../../shared/release/manifest.ts";
import type { AvailableRelease, UpdaterActivity, UpdateRefusal, UpdaterNotices, UpdaterRequests, UpdateSettings, UpdateStatus } from "../../shared/protocol/updater.ts";
import { makeDirsSync } from "../../shared/make-dirs.ts";
import { backupDatabases, settleInTree } from "../../shared/update/switch.ts";
import { currentRelease, readUpdateState, setCurrent, type UpdateEvent, updatePaths, type UpdatePaths, updateState, withEvent, writeSynced, writeUpdateState } from "../../shared/update/update-state.ts";
import { dataPaths } from "../../shared/worker/config.ts";
import { EngineLink } from "../../shared/worker/engine-link.ts";
import type { RunningWorker, WorkerContext } from "../../shared/worker/runtime.ts";
import { openChannel } from "./release-channel.ts";
import { changeSettings, inWindow, readSettings } from "./update-settings.ts";

/** What the updater reports while updates are off. */
export const IDLE_STATUS = "idle: updates off";

/** How often automatic mode reads the channel. */
const POLL_MS = Number(process.env.CHARTER_UPDATE_POLL_MS ?? "") > 0 ? Number(process.env.CHARTER_UPDATE_POLL_MS) : 3_600_000;
/** How long the gateway gets to see that writes are held (it looks every 250 ms). */
const GATEWAY_HOLD_MS = 600;
/** Events a status carries. */
const STATUS_EVENTS = 20;

type HostChannel = Channel<UpdaterNotices & Record<string, never>, UpdaterRequests>;
type Outcome = { ok: true; status: UpdateStatus } | { ok: false; refusal: UpdateRefusal; status: UpdateStatus };

/** The release folder this code runs from (null: the installation the node was started from). */
export function runningRelease(paths: UpdatePaths, moduleUrl = import.meta.url): string | null {
  const here = fileURLToPath(moduleUrl);
  const prefix = paths.dir + sep;
  if (!here.startsWith(prefix)) return null;
  return here.slice(prefix.length).split(sep)[0] ?? null;
}

export async function startUpdater(ctx: WorkerContext): Promise<RunningWorker> {
  const updater = new Updater(ctx);
  await updater.start();
  return { drain: () => updater.close() };
}

class Updater {
  readonly #ctx: WorkerContext;
  readonly #paths: UpdatePaths;
  readonly #engine: EngineLink;
  readonly #channels = new Set<HostChannel>();
  readonly #running: { version: string; release: string | null };
  #settings: UpdateSettings;
  #activity: UpdaterActivity = "idle";
  #available: { manifest: ReleaseManifest; size: number } | null = null;
  #lastCheck: UpdateStatus["lastCheck"] = null;
  #nextCheckAt: number | null = null;
  #timer: NodeJS.Timeout | null = null;
  #server: Server | null = null;
  #closed = false;

  constructor(ctx: WorkerContext) {
    this.#ctx = ctx;
    this.#paths = updatePaths(ctx.config.dataDir);
    this.#engine = new EngineLink(dataPaths(ctx.config.dataDir).engineSocket);
    this.#running = { version: ctx.config.version, release: runningRelease(this.#paths) };
    this.#settings = readSettings(this.#paths.settings);
  }

  async start(): Promise<void> {
    makeDirsSync(this.#paths.dir);
    // A switch this tree began and a crash of this worker cut short: finished, or undone.
    const settled = settleInTree(this.#paths, this.#running.version);
    if (settled === "relaunch") {
      this.#ctx.log.warn("a switch was cut short after the new release became current; restarting into it");
      this.#relaunch();
    } else if (settled === "undone") {
      this.#ctx.log.warn("a switch was cut short before the new release became current; the running release stays and writes go on");
    }
    this.#server = await listenPrivateChannels<UpdaterNotices & Record<string, never>, UpdaterRequests>(join(dataPaths(this.#ctx.config.dataDir).run, "updater.sock"), (channel) => this.#accept(channel as unknown as HostChannel));
    this.#schedule();
    this.#report(null);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    for (const c of this.#channels) c.close();
    this.#server?.close();
    await this.#engine.close();
  }

  #accept(channel: HostChannel): void {
    this.#channels.add(channel);
    channel.onClose(() => this.#channels.delete(channel));
    channel.handle("update-status", () => this.#status());
    channel.handle("update-settings", ({ change }) => {
      const checked = changeSettings(this.#settings, change);
      if (!checked.ok) return checked;
      this.#settings = checked.value;
      writeSynced(this.#paths.settings, `${JSON.stringify(checked.value, null, 1)}\n`);
      this.#available = null;
      this.#schedule();
      this.#report(null);
      return { ok: true, status: this.#status() };
    });
    channel.handle("update-check", () => this.#checkNow());
    channel.handle("update-install", ({ version }) => this.#install(version));
  }

  #status(): UpdateStatus {
    const state = readUpdateState(this.#paths);
    const available: AvailableRelease | null =
      this.#available === null ? null : { version: this.#available.manifest.version, notes: this.#available.manifest.notes, createdAt: this.#available.manifest.createdAt, size: this.#available.size };
    return {
      settings: this.#settings,
      running: this.#running,
      state: state.phase.phase === "trial" ? "trial" : this.#activity,
      available,
      lastCheck: this.#lastCheck,
      nextCheckAt: this.#nextCheckAt === null ? null : new Date(this.#nextCheckAt).toISOString(),
      history: state.history.slice(0, STATUS_EVENTS),
      rolledBack: state.rolledBack,
    };
  }

  /** Tells the gateway and the console what changed. */
  #report(event: UpdateEvent | null): void {
    const status = this.#status();
    for (const c of this.#channels) {
      (c.notify as (k: string, b: unknown) => void)("update-status", { status, event });
      c.flush();
    }
    this.#ctx.status(statusLine(status));
  }

  #record(event: Omit<UpdateEvent, "at">): UpdateEvent {
    const next = updateState(this.#paths, (s) => withEvent(s, event));
    const recorded = next.history[0] as UpdateEvent;
    this.#ctx.log[event.kind === "refused" || event.kind === "failed" ? "warn" : "info"](`update ${event.kind}`, { version: event.version, ...(event.code ? { code: event.code } : {}), ...(event.reason ? { reason: event.reason } : {}) });
    this.#report(recorded);
    return recorded;
  }

  #refuse(refusal: UpdateRefusal, version: string, record = true): Outcome {
    if (record) this.#record({ kind: refusal.code === "failed" ? "failed" : "refused", version, code: refusal.code, reason: refusal.reason });
    return { ok: false, refusal, status: this.#status() };
  }

  #schedule(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#nextCheckAt = null;
    if (this.#closed || this.#settings.mode !== "automatic") return;
    this.#nextCheckAt = Date.now() + POLL_MS;
    // The first look comes soon after start (or a change of settings), then every POLL_MS.
    this.#timer = setTimeout(() => void this.#automatic(), Math.min(POLL_MS, 2_000));
    this.#timer.unref();
  }

  async #automatic(): Promise<void> {
    this.#timer = null;
    try {
      if (this.#activity === "idle" && readUpdateState(this.#paths).phase.phase === "idle") {
        const checked = await this.#checkNow();
        const offer = this.#available;
        if (checked.ok && offer !== null && inWindow(Date.now(), this.#settings)) {
          if (readUpdateState(this.#paths).rolledBack.includes(offer.manifest.version)) this.#ctx.log.info("not installing a release that was put back before", { version: offer.manifest.version });
          else await this.#install(offer.manifest.version);
        }
      }
    } catch (error) {
      this.#ctx.log.error("automatic update failed", { error: String(error) });
    }
    if (!this.#closed && this.#settings.mode === "automatic" && this.#activity !== "switching") {
      this.#nextCheckAt = Date.now() + POLL_MS;
      this.#timer = setTimeout(() => void this.#automatic(), POLL_MS);
      this.#timer.unref();
      this.#report(null);
    }
  }

  /** Reads the channel's newest manifest; what is available (null: up to date), or why nothing is. */
  async #checkNow(): Promise<Outcome> {
    const { channel, releaseKey } = this.#settings;
    if (channel === null || releaseKey === null) return this.#refuse({ code: "updates-not-configured", reason: "set a channel and a releaseKey first" }, this.#running.version, false);
    if (this.#activity !== "idle") return this.#refuse({ code: "update-in-progress", reason: `the updater is ${this.#activity}` }, this.#running.version, false);
    this.#activity = "checking";
    this.#report(null);
    try {
      const at = new Date().toISOString();
      let jws: string;
      try {
        jws = await openChannel(channel).text("latest.jws");
      } catch (error) {
        this.#lastCheck = { at, ok: false, code: "channel-unreachable", reason: (error as Error).message };
        return this.#refuse({ code: "channel-unreachable", reason: (error as Error).message }, this.#running.version, false);
      }
      const read = readManifest(jws, releaseKey);
      if (!read.ok) {
        this.#lastCheck = { at, ok: false, code: read.error.code, reason: read.error.message };
        this.#available = null;
        return this.#refuse({ code: read.error.code, reason: read.error.message }, "unknown");
      }
      const manifest = read.value;
      if (compareVersions(manifest.version, this.#running.version) === 0) {
        this.#lastCheck = { at, ok: true };
        this.#available = null;
        return { ok: true, status: this.#status() };
      }
      const suitable = checkSuitable(manifest, { version: this.#running.version, nodeMajor: Number(process.versions.node.split(".")[0]), platform: `${process.platform}-${process.arch}` });
      if (!suitable.ok) {
        this.#lastCheck = { at, ok: false, code: suitable.error.code, reason: suitable.error.message };
        this.#available = null;
        return this.#refuse({ code: suitable.error.code, reason: suitable.error.message }, manifest.version);
      }
      const known = this.#available?.manifest.version === manifest.version;
      this.#available = { manifest, size: manifest.files.reduce((n, f) => n + f.size, 0) };
      this.#lastCheck = { at, ok: true };
      if (!known) this.#record({ kind: "available", version: manifest.version, reason: manifest.notes.slice(0, 200) });
      return { ok: true, status: this.#status() };
    } finally {
      this.#activity = "idle";
      this.#report(null);
    }
  }

  async #install(version: string | undefined): Promise<Outcome> {
    if (readUpdateState(this.#paths).phase.phase !== "idle" || this.#activity !== "idle") {
      return this.#refuse({ code: "update-in-progress", reason: "an update is under way" }, version ?? "unknown", false);
    }
    const checked = await this.#checkNow();
    if (!checked.ok) return checked;
    const offer = this.#available;
    if (offer === null) return this.#refuse({ code: "no-update", reason: `${this.#running.version} is the newest release the channel offers` }, version ?? this.#running.version, false);
    const manifest = offer.manifest;
    if (version !== undefined && version !== manifest.version) return this.#refuse({ code: "no-update", reason: `the channel offers ${manifest.version}, not ${version}` }, version, false);
    const channel = openChannel(this.#settings.channel as string);
    const staging = join(this.#paths.staging, manifest.version);
    const target = this.#paths.release(manifest.version);
    try {
      // The dependencies come as one archive, unpacked once into DATA/releases/deps/<its sha256>/
      // and shared by every release that carries the same archive: a release whose dependencies
      // did not change downloads and writes only its own files.
      const deps = manifest.files.find((f) => f.path === DEPENDENCIES_ARCHIVE);
      const depsDir = deps === undefined ? null : join(this.#paths.dir, "deps", deps.sha256);
      const needed = manifest.files.filter((f) => f !== deps || (depsDir !== null && !existsSync(depsDir)));
      // Download and check every file it needs against the signed manifest.
      this.#activity = "downloading";
      this.#report(null);
      const steps: Record<string, number> = {};
      let t = performance.now();
      const step = (name: string) => {
        steps[name] = Math.round(performance.now() - t);
        t = performance.now();
      };
      await rm(staging, { recursive: true, force: true });
      await mkdir(staging, { recursive: true, mode: 0o700 });
      for (const f of needed) {
        await mkdir(join(staging, f.path, ".."), { recursive: true, mode: 0o700 });
        await channel.download(`${manifest.version}/${f.path}`, join(staging, f.path), f.size);
      }
      step("downloadMs");
      const files = await checkFiles(staging, { ...manifest, files: needed });
      if (!files.ok) return this.#refuse({ code: files.error.code, reason: files.error.message }, manifest.version);
      step("checkMs");

      // Unpack: the project, and its dependencies unless they are unpacked already.
      this.#activity = "installing";
      this.#report(null);
      const partial = `${target}.partial`;
      await rm(partial, { recursive: true, force: true });
      await mkdir(partial, { recursive: true, mode: 0o700 });
      for (const f of needed.filter((file) => file.path.endsWith(".tgz") && file !== deps)) await untar(join(staging, f.path), partial);
      step("unpackMs");
      if (deps !== undefined && depsDir !== null) {
        if (needed.includes(deps)) {
          await rm(`${depsDir}.partial`, { recursive: true, force: true });
          await mkdir(`${depsDir}.partial`, { recursive: true, mode: 0o700 });
          await untar(join(staging, deps.path), `${depsDir}.partial`);
          await rename(`${depsDir}.partial`, depsDir);
          step("unpackDependenciesMs");
        }
        await rm(join(partial, "node_modules"), { recursive: true, force: true });
        await symlink(join("..", "deps", deps.sha256, "node_modules"), join(partial, "node_modules"));
      }
      const unpacked = JSON.parse(await readFile(join(partial, "package.json"), "utf8").catch(() => "{}")) as { version?: string };
      if (unpacked.version !== manifest.version || !existsSync(join(partial, "bin", "charter.js")) || !existsSync(join(partial, "node_modules", "node", "bin", "node"))) {
        return this.#refuse({ code: "tampered", reason: `the release's archives do not hold Charter ${manifest.version} with its dependencies` }, manifest.version);
      }
      if (target !== this.#running.release) await rm(target, { recursive: true, force: true });
      await rename(partial, target);
      await rm(staging, { recursive: true, force: true });
      this.#ctx.log.info("release staged", { version: manifest.version, dependencies: needed.includes(deps as never) ? "unpacked" : "shared", ...steps });
      this.#record({ kind: "staged", version: manifest.version });
      return await this.#switch(manifest.version);
    } catch (error) {
      this.#ctx.log.error("installing a release failed", { version: manifest.version, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      return this.#refuse({ code: "failed", reason: (error as Error).message }, manifest.version);
    } finally {
      await rm(staging, { recursive: true, force: true }).catch(() => {});
      await rm(`${target}.partial`, { recursive: true, force: true }).catch(() => {});
      if ((this.#activity as UpdaterActivity) !== "switching") {
        this.#activity = "idle";
        this.#report(null);
      }
    }
  }

  /** Holds writes, backs the databases up, moves the link, puts the new release on trial, restarts the tree. */
  async #switch(to: string): Promise<Outcome> {
    const backup = join(this.#paths.backups, to);
    this.#activity = "switching";
    const plan = { from: this.#running, to, backup };
    writeUpdateState(this.#paths, withEvent(readUpdateState(this.#paths), { kind: "switching", version: to, from: this.#running.version }, { phase: "switching", at: Date.now(), ...plan }));
    this.#report(readUpdateState(this.#paths).history[0] ?? null);
    try {
      // Every write admitted before the hold is committed before the backup begins.
      await this.#engine.request("update-hold", {});
      await new Promise((r) => setTimeout(r, GATEWAY_HOLD_MS));
      faultPoint("backup");
      const started = performance.now();
      await backupDatabases(this.#ctx.config.dataDir, backup);
      this.#ctx.log.info("databases backed up before the switch", { to, ms: Math.round(performance.now() - started) });
      setCurrent(this.#paths, to);
      faultPoint("link");
      updateState(this.#paths, (s) => ({ ...s, phase: { phase: "trial", ...plan, switchedAt: Date.now(), failedStarts: 0 } }));
    } catch (error) {
      // Nothing switched: the running release stays, and writes go on.
      setCurrent(this.#paths, this.#running.release);
      updateState(this.#paths, (s) => withEvent(s, { kind: "failed", version: to, reason: `the switch failed before the new release became current: ${(error as Error).message}` }, { phase: "idle" }));
      this.#activity = "idle";
      this.#report(readUpdateState(this.#paths).history[0] ?? null);
      return { ok: false, refusal: { code: "failed", reason: (error as Error).message }, status: this.#status() };
    }
    await this.#prune(to);
    const status = this.#status();
    this.#report(null);
    this.#relaunch();
    return { ok: true, status };
  }

  /** Keeps the new release, the one running, and the backup of the switch; removes older ones. */
  async #prune(to: string): Promise<void> {
    const keep = new Set([to, this.#running.release ?? ""]);
    for (const entry of await readdir(this.#paths.dir).catch(() => [] as string[])) {
      if (/^\d+\.\d+\.\d+$/.test(entry) && !keep.has(entry)) await rm(this.#paths.release(entry), { recursive: true, force: true });
    }
    for (const entry of await readdir(this.#paths.backups).catch(() => [] as string[])) {
      if (entry !== to) await rm(join(this.#paths.backups, entry), { recursive: true, force: true });
    }
    // Unpacked dependencies no kept release links to.
    const used = new Set<string>();
    for (const version of keep) {
      const link = await readlink(join(this.#paths.release(version), "node_modules")).catch(() => "");
      used.add(link.split("/")[2] ?? "");
    }
    const depsRoot = join(this.#paths.dir, "deps");
    for (const entry of await readdir(depsRoot).catch(() => [] as string[])) {
      if (!used.has(entry)) await rm(join(depsRoot, entry), { recursive: true, force: true });
    }
  }

  #relaunch(): void {
    const to = currentRelease(this.#paths);
    // Sent once the answer to the install request is on its way: the supervisor drains the gateway next.
    setTimeout(() => this.#ctx.control.notify("relaunch", { reason: `switching to release ${to ?? "(the installed one)"}` }), 200);
  }
}

/** The release file holding its dependencies (shared/release/build.ts). */
const DEPENDENCIES_ARCHIVE = "node_modules.tgz";

/** Unpacks a release archive (signed and checked before) into `dir`, owned by this user. */
async function untar(archive: string, dir: string): Promise<void> {
  await execa("tar", ["-xzf", archive, "-C", dir, "--no-same-owner", "--no-overwrite-dir"]);
}

/** The console's line for the updater. */
function statusLine(status: UpdateStatus): string {
  const { settings, available, history } = status;
  const last = history[0];
  const parts = [settings.mode === "off" ? "updates off" : settings.mode === "ask" ? "updates: ask" : `updates: automatic ${settings.window.start}-${settings.window.end}`];
  parts.push(`running ${status.running.version}`);
  if (status.state !== "idle") parts.push(status.state);
  if (available !== null) parts.push(`${available.version} available`);
  if (last !== undefined && (last.kind === "rolled-back" || last.kind === "refused" || last.kind === "installed" || last.kind === "failed")) {
    parts.push(`last: ${last.kind} ${last.version}${last.code ? ` (${last.code})` : ""}`);
  }
  return settings.mode === "off" && available === null && last === undefined ? IDLE_STATUS : parts.join("; ");
}

/**
 * Fault injection for the tests of a crash mid-switch: `CHARTER_UPDATE_CRASH_AT=backup|link` kills
 * this worker at once at that point (before the backup; after the link moved, before the trial).
 */
function faultPoint(point: "backup" | "link"): void {
  if (process.env.CHARTER_UPDATE_CRASH_AT === point) process.kill(process.pid, "SIGKILL");
}
