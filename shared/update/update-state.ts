/**
 * @module Self-update's state on disk, shared by the updater worker (which stages a release and
 * switches to it), the launcher (which starts whichever release is current, watches a new one on
 * trial and puts the previous one back) and the engine and gateway (which hold writes while a
 * switch or a trial is under way). Everything lives in `DATA/releases/`:
 *
 * ```
 * releases/
 *   <version>/          an installed release, unpacked (bin/charter.js, node_modules/ with Node 24)
 *   current -> <version> the release that runs; absent: the installation that was started (the base)
 *   update.json         the phase (idle, switching, trial), the last 50 events, versions rolled back
 *   settings.json       mode, channel, release key, night window (the updater's; 0600)
 *   backups/<version>/  the databases as they were just before switching to <version>
 *   staging/            downloads in progress
 * ```
 *
 * `update.json` is written whole to a temp file, synced and renamed, so a reader (or a crash) sees
 * the old state or the new one, never half of either. The phase is the switch's write-ahead log:
 * `switching` is written before the backup and the link's switch, `trial` after both, and `idle`
 * (with the outcome as an event) once the new release answered `/health` or was put back.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeDirsSync } from "../make-dirs.ts";

/** The exit code of a tree that drained to be started again from the release now current (the launcher starts it). */
export const RELAUNCH_EXIT = 75;

/** The databases a switch backs up and a rollback puts back (a migration changes only these). */
export const UPDATE_DATABASES = ["charter.db", "accounts.db", "raft.db"] as const;

/** The most events `update.json` keeps, newest first. */
const MAX_EVENTS = 50;

export function updatePaths(dataDir: string) {
  const dir = join(dataDir, "releases");
  return {
    dataDir,
    dir,
    current: join(dir, "current"),
    state: join(dir, "update.json"),
    settings: join(dir, "settings.json"),
    backups: join(dir, "backups"),
    staging: join(dir, "staging"),
    /** An installed release's folder. */
    release: (version: string) => join(dir, version),
  };
}
export type UpdatePaths = ReturnType<typeof updatePaths>;

/** Which installation runs: an installed release (its version names its folder) or the base (null). */
export interface Running {
  readonly version: string;
  /** The release folder's name under `releases/`, or null for the installation the node was started from. */
  readonly release: string | null;
}

/** A switch under way: what it comes from and goes to, and where the databases were backed up. */
export interface SwitchPlan {
  readonly from: Running;
  readonly to: string;
  readonly backup: string;
}

export type UpdatePhase =
  | { readonly phase: "idle" }
  /** Writes held; the databases being backed up, then the link switched. */
  | ({ readonly phase: "switching"; readonly at: number } & SwitchPlan)
  /** The new release is current and on trial: writes held until it answers `/health`. */
  | ({ readonly phase: "trial"; readonly switchedAt: number; readonly failedStarts: number } & SwitchPlan);

export type UpdateEventKind = "available" | "refused" | "staged" | "switching" | "installed" | "rolled-back" | "failed" | "interrupted";

/** One line of the update history (shown on `/api/settings/updates`, `/api/events`, the console). */
export interface UpdateEvent {
  readonly at: string;
  readonly kind: UpdateEventKind;
  readonly version: string;
  /** The version running before (installed, rolled back). */
  readonly from?: string;
  /** A refusal's code (`unsigned`, `foreign-signed`, `tampered`, `downgrade`, `unsuitable`) or a failure's. */
  readonly code?: string;
  readonly reason?: string;
}

export interface UpdateState {
  readonly phase: UpdatePhase;
  /** Newest first, at most 50. */
  readonly history: readonly UpdateEvent[];
  /** Versions put back once: automatic mode never installs them again (the person may, by hand). */
  readonly rolledBack: readonly string[];
}

const IDLE_STATE: UpdateState = { phase: { phase: "idle" }, history: [], rolledBack: [] };

/** The state on disk; a missing or unreadable file is idle (a damaged one is logged by the caller's next write). */
export function readUpdateState(paths: UpdatePaths): UpdateState {
  let raw: string;
  try {
    raw = readFileSync(paths.state, "utf8");
  } catch {
    return IDLE_STATE;
  }
  try {
    const parsed = JSON.parse(raw) as Partial<UpdateState>;
    const phase = parsed.phase;
    if (typeof phase !== "object" || phase === null || !["idle", "switching", "trial"].includes((phase as { phase: string }).phase)) return IDLE_STATE;
    return {
      phase,
      history: Array.isArray(parsed.history) ? parsed.history.slice(0, MAX_EVENTS) : [],
      rolledBack: Array.isArray(parsed.rolledBack) ? parsed.rolledBack.filter((v): v is string => typeof v === "string").slice(-MAX_EVENTS) : [],
    };
  } catch {
    return IDLE_STATE;
  }
}

/** Writes the state whole: temp file, fsync, rename, fsync of the folder. */
export function writeUpdateState(paths: UpdatePaths, state: UpdateState): void {
  makeDirsSync(paths.dir);
  writeSynced(paths.state, `${JSON.stringify({ ...state, history: state.history.slice(0, MAX_EVENTS) }, null, 1)}\n`);
}

/** The state with `event` recorded (newest first) and, when given, a new phase. */
export function withEvent(state: UpdateState, event: Omit<UpdateEvent, "at">, phase?: UpdatePhase, now = Date.now()): UpdateState {
  const rolledBack = event.kind === "rolled-back" && !state.rolledBack.includes(event.version) ? [...state.rolledBack, event.version] : state.rolledBack;
  return { phase: phase ?? state.phase, history: [{ at: new Date(now).toISOString(), ...event }, ...state.history].slice(0, MAX_EVENTS), rolledBack };
}

/** Reads, changes and writes the state (one writer at a time: the updater before a switch, the launcher after). */
export function updateState(paths: UpdatePaths, change: (state: UpdateState) => UpdateState): UpdateState {
  const next = change(readUpdateState(paths));
  writeUpdateState(paths, next);
  return next;
}

/** Whether writes wait: a switch or a trial is under way. */
export function writesHeld(state: UpdateState): boolean {
  return state.phase.phase !== "idle";
}

/** The installed release `current` names, or null (the base runs). A link to a folder that is not there is null too. */
export function currentRelease(paths: UpdatePaths): string | null {
  let target: string;
  try {
    target = readlinkSync(paths.current);
  } catch {
    return null;
  }
  if (!/^\d{1,6}\.\d{1,6}\.\d{1,6}$/.test(target)) return null;
  return existsSync(join(paths.release(target), "bin", "charter.js")) ? target : null;
}

/** Points `current` at `version` (null: no link, the base runs), atomically: a new link renamed over the old. */
export function setCurrent(paths: UpdatePaths, version: string | null): void {
  makeDirsSync(paths.dir);
  if (version === null) {
    rmSync(paths.current, { force: true });
  } else {
    const tmp = `${paths.current}.tmp`;
    rmSync(tmp, { force: true });
    symlinkSync(version, tmp);
    renameSync(tmp, paths.current);
  }
  syncDir(paths.dir);
}

/** Writes a file whole (0600): a temp file, synced, renamed over the old one, the folder synced. */
export function writeSynced(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  const fd = openSync(tmp, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDir(join(path, ".."));
}

function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
