/**
 * @module The two halves of a switch that must agree with each other: the databases backed up just
 * before the `current` link moves to a new release, and — when the new release does not come up —
 * those same databases put back with the previous release. A new release may migrate the store,
 * and an older Charter refuses a newer store by design, so a rollback without the backup could not
 * start the old release at all. Writes are held from before the backup until the new release has
 * answered `/health` (update-state.ts `writesHeld`), so the backup holds every acknowledged write
 * and putting it back loses none.
 */
import { copyFileSync, existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { copyDatabase, syncFile } from "../backup/copy-database.ts";
import { makeDirsSync } from "../make-dirs.ts";
import { currentRelease, readUpdateState, setCurrent, type SwitchPlan, UPDATE_DATABASES, type UpdatePaths, type UpdateState, withEvent, writeUpdateState } from "./update-state.ts";

/** Copies every database of the data directory into `dest` (made anew), each one consistent snapshot. */
export async function backupDatabases(dataDir: string, dest: string): Promise<string[]> {
  const partial = `${dest}.partial`;
  rmSync(partial, { recursive: true, force: true });
  rmSync(dest, { recursive: true, force: true });
  makeDirsSync(partial);
  const copied: string[] = [];
  for (const name of UPDATE_DATABASES) {
    const source = join(dataDir, name);
    if (!existsSync(source)) continue;
    await copyDatabase(source, join(partial, name));
    copied.push(name);
  }
  renameSync(partial, dest);
  syncFile(join(dest, ".."));
  return copied;
}

/** Puts the databases of `backup` back in the data directory; a database the backup has not is removed (the new release made it). */
export function restoreDatabases(dataDir: string, backup: string): void {
  for (const name of UPDATE_DATABASES) {
    const target = join(dataDir, name);
    for (const file of [target, `${target}-wal`, `${target}-shm`, `${target}-journal`]) rmSync(file, { force: true });
    const saved = join(backup, name);
    if (!existsSync(saved)) continue;
    const tmp = `${target}.restore`;
    copyFileSync(saved, tmp);
    syncFile(tmp);
    renameSync(tmp, target);
  }
  syncFile(dataDir);
}

/** Whether a backup folder is whole: it is renamed into place only once every database is copied. */
const backupReady = (backup: string): boolean => existsSync(backup);

/**
 * Puts the previous release back: its databases, then its link, then the state (idle, with the
 * event). Each step can be done again: a crash in the middle is finished by the next start.
 */
export function rollBack(paths: UpdatePaths, plan: SwitchPlan, reason: string): UpdateState {
  if (backupReady(plan.backup)) restoreDatabases(paths.dataDir, plan.backup);
  setCurrent(paths, plan.from.release);
  const next = withEvent(readUpdateState(paths), { kind: "rolled-back", version: plan.to, from: plan.from.version, reason }, { phase: "idle" });
  writeUpdateState(paths, next);
  return next;
}

/**
 * Brings a state a crash left behind to one the launcher can act on, before anything starts:
 * - `switching` with the link still on the old release: the switch never happened; idle again
 *   (the writes it held are let through), recorded as interrupted;
 * - `switching` with the link on the new release: the backup was whole before the link moved, so
 *   the switch is finished: the new release goes on trial;
 * - `trial` with the link no longer on the new release: a rollback was under way; it is finished.
 */
export function settle(paths: UpdatePaths, now = Date.now()): UpdateState {
  const state = readUpdateState(paths);
  const phase = state.phase;
  if (phase.phase === "switching") {
    if (currentRelease(paths) === phase.to && backupReady(phase.backup)) {
      const next: UpdateState = { ...state, phase: { phase: "trial", from: phase.from, to: phase.to, backup: phase.backup, switchedAt: now, failedStarts: 0 } };
      writeUpdateState(paths, next);
      return next;
    }
    setCurrent(paths, phase.from.release);
    const next = withEvent(state, { kind: "interrupted", version: phase.to, from: phase.from.version, reason: "the switch was interrupted before the new release became current; the running release stays" }, { phase: "idle" }, now);
    writeUpdateState(paths, next);
    return next;
  }
  if (phase.phase === "trial" && currentRelease(paths) !== phase.to) return rollBack(paths, phase, "a rollback was interrupted; finished at the next start");
  return state;
}

/**
 * What the updater of a running tree does with a switch its own crash cut short (the launcher
 * settles the rest before a start): `relaunch` when the new release is current and the tree must
 * restart into it, `undone` when the switch was taken back, `none` when there was nothing to do.
 */
export function settleInTree(paths: UpdatePaths, runningVersion: string): "none" | "relaunch" | "undone" {
  const before = readUpdateState(paths).phase.phase;
  if (before === "idle") return "none";
  const after = settle(paths).phase;
  if (after.phase === "trial") return after.to === runningVersion ? "none" : "relaunch";
  return before === "switching" ? "undone" : "none";
}
