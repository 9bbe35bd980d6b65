/**
 * @module The launcher of `charter node`: the part of self-update that never changes with a release.
 * It is the code of the installation that was started (the base: a checkout, the systemd unit's
 * ExecStart), and it decides which release runs:
 *
 * - Nothing installed (no `DATA/releases/current`, no update under way): the tree runs in this
 *   process, as it always did. When the updater switches to a new release, the tree drains and
 *   exits with RELAUNCH_EXIT, and this process becomes the launcher.
 * - Otherwise the launcher starts the current release's own `bin/charter.js node` (with the
 *   release's Node 24) as a child, passes it the arguments and the signals, and watches it:
 *   - exit RELAUNCH_EXIT: the updater switched again; the new current release is started;
 *   - on trial (a release just switched to): `/health` must answer 200 within the health wait
 *     (180 s from the switch; `CHARTER_UPDATE_HEALTH_WAIT_MS`), and the release may fail to start
 *     at most 3 times (`CHARTER_UPDATE_FAILED_STARTS`); once `/health` answers, the update is
 *     recorded as installed and the release takes writes; otherwise the previous release and the
 *     databases backed up just before the switch are put back (shared/update/switch.ts), and the
 *     previous release is started;
 *   - any other exit: the launcher exits the same way (systemd's Restart= takes it from there).
 *
 * Before each start the state a crash may have left is settled (`settle`). Every install and
 * rollback is recorded in `DATA/releases/update.json` and logged to stderr.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { rollBack, settle } from "../shared/update/switch.ts";
import { currentRelease, readUpdateState, RELAUNCH_EXIT, type UpdatePaths, updatePaths, updateState, withEvent } from "../shared/update/update-state.ts";
import { parseTreeOptions } from "./options.ts";
import { runTree } from "./run-tree.ts";

/** Set in a child the launcher starts: it runs the tree itself. */
const LAUNCHED = "CHARTER_LAUNCHED";
const HEALTH_WAIT_MS = positive(process.env.CHARTER_UPDATE_HEALTH_WAIT_MS) ?? 180_000;
const FAILED_STARTS = positive(process.env.CHARTER_UPDATE_FAILED_STARTS) ?? 3;
/** How long a child asked to stop may drain before it is killed. */
const STOP_GRACE_MS = 15_000;

function positive(raw: string | undefined): number | null {
  const n = Number(raw);
  return raw !== undefined && Number.isFinite(n) && n > 0 ? n : null;
}

/** `charter node`: the tree here, or the launcher of the current release. */
export async function runNode(args: string[]): Promise<number> {
  if (process.env[LAUNCHED] === "1") return runTree("node", args);
  let dataDir: string;
  try {
    const options = parseTreeOptions(args);
    if (options.help) return runTree("node", args);
    dataDir = options.dataDir;
  } catch {
    // A usage error: runTree says what is wrong.
    return runTree("node", args);
  }
  const paths = updatePaths(dataDir);
  if (existsSync(paths.dir)) settle(paths);
  if (currentRelease(paths) === null && readUpdateState(paths).phase.phase === "idle") {
    const code = await runTree("node", args);
    if (code !== RELAUNCH_EXIT) return code;
  }
  return new Launcher(paths, args).run();
}

class Launcher {
  readonly #paths: UpdatePaths;
  readonly #args: string[];
  #child: ChildProcess | null = null;
  #stopping = false;

  constructor(paths: UpdatePaths, args: string[]) {
    this.#paths = paths;
    this.#args = args;
  }

  async run(): Promise<number> {
    const onSignal = (signal: NodeJS.Signals) => {
      this.#stopping = true;
      this.#child?.kill(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    process.on("SIGHUP", onSignal);
    try {
      for (;;) {
        const state = settle(this.#paths);
        const release = currentRelease(this.#paths);
        const trial = state.phase.phase === "trial" ? state.phase : null;
        const outcome = await this.#start(release, trial === null ? null : trial.switchedAt);
        if (this.#stopping) return outcome.code;
        const now = readUpdateState(this.#paths).phase;
        if (now.phase === "trial") {
          // Still on trial: it never answered /health.
          if (outcome.healthTimedOut) {
            this.#rollBack(now, `/health did not answer 200 within ${Math.round(HEALTH_WAIT_MS / 1000)} s of the switch`);
            continue;
          }
          const failed = now.failedStarts + 1;
          if (failed >= FAILED_STARTS) {
            this.#rollBack(now, `release ${now.to} failed to start ${failed} times (last exit: ${outcome.code})`);
            continue;
          }
          updateState(this.#paths, (s) => ({ ...s, phase: { ...now, failedStarts: failed } }));
          say(`release ${now.to} failed to start (${failed} of ${FAILED_STARTS}); starting it again`);
          await new Promise((r) => setTimeout(r, 1000));
          continue;
        }
        if (outcome.code === RELAUNCH_EXIT) continue;
        return outcome.code;
      }
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      process.off("SIGHUP", onSignal);
    }
  }

  #rollBack(trial: Parameters<typeof rollBack>[1], reason: string): void {
    const started = performance.now();
    rollBack(this.#paths, trial, reason);
    say(`rolled back release ${trial.to} to ${trial.from.version} (${reason}) in ${Math.round(performance.now() - started)} ms`);
  }

  /** Runs the release (null: the base) until it exits; on trial, watches `/health` until the deadline. */
  #start(release: string | null, switchedAt: number | null): Promise<{ code: number; healthTimedOut: boolean }> {
    const dir = release === null ? null : this.#paths.release(release);
    const bundled = dir === null ? null : join(dir, "node_modules", "node", "bin", "node");
    const node = bundled !== null && existsSync(bundled) ? bundled : process.execPath;
    const bin = dir === null ? fileURLToPath(new URL("../bin/charter.js", import.meta.url)) : join(dir, "bin", "charter.js");
    say(`starting ${release === null ? "the installed Charter" : `release ${release}`}${switchedAt === null ? "" : " (on trial)"}`);
    const child = spawn(node, [bin, "node", ...this.#args], { env: { ...process.env, [LAUNCHED]: "1" }, stdio: ["ignore", "pipe", "inherit"] });
    this.#child = child;
    let url: string | null = null;
    let healthTimedOut = false;
    let watcher: NodeJS.Timeout | null = null;
    let killer: NodeJS.Timeout | null = null;
    // The child's stdout is the node's own (its URL, the set-up code): passed on, and read for the URL.
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      process.stdout.write(`${line}\n`);
      url ??= / listening on (http:\/\/\S+)/.exec(line)?.[1] ?? null;
    });
    if (switchedAt !== null) {
      const deadline = switchedAt + HEALTH_WAIT_MS;
      const look = async () => {
        watcher = null;
        if (child.exitCode !== null || child.signalCode !== null) return;
        if (url !== null && (await healthy(url))) {
          this.#commit();
          return;
        }
        if (Date.now() >= deadline) {
          healthTimedOut = true;
          child.kill("SIGTERM");
          killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
          return;
        }
        watcher = setTimeout(() => void look(), 250);
      };
      watcher = setTimeout(() => void look(), 250);
    }
    return new Promise((resolve) => {
      child.on("error", (error) => say(`cannot start ${node}: ${error.message}`));
      child.on("close", (code, signal) => {
        if (watcher !== null) clearTimeout(watcher);
        if (killer !== null) clearTimeout(killer);
        this.#child = null;
        resolve({ code: code ?? (signal === null ? 1 : 128), healthTimedOut });
      });
    });
  }

  /** The release on trial answered `/health`: recorded as installed; its engine and gateway let writes through. */
  #commit(): void {
    const state = readUpdateState(this.#paths);
    const trial = state.phase;
    if (trial.phase !== "trial") return;
    updateState(this.#paths, (s) => withEvent(s, { kind: "installed", version: trial.to, from: trial.from.version, reason: `answered /health ${Math.round((Date.now() - trial.switchedAt) / 1000)} s after the switch` }, { phase: "idle" }));
    say(`release ${trial.to} answers /health: installed (was ${trial.from.version})`);
  }
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel().catch(() => {});
    return response.status === 200;
  } catch {
    return false;
  }
}

function say(line: string): void {
  process.stderr.write(`charter launcher: ${line}\n`);
}
