/**
 * @module Restoring a backup onto a stopped, empty (or missing) data directory: the manifest and
 * every file's digest are checked before anything is written; the directory is locked for the
 * restore (a node cannot start on it half-made); the files are copied into a staging folder inside
 * it, each checked again as it is copied, then moved into place — the store last — with the data
 * directory's modes (folders 0700, files 0600). A restore that fails leaves the directory empty.
 */
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { makeDirsSync } from "../make-dirs.ts";
import { DataLock, LockHeldError } from "../store/lock.ts";
import { migrations } from "../store/migrations.ts";
import { syncFile } from "./copy-database.ts";
import { copyFileSynced } from "./copy-file.ts";
import { BACKED_UP } from "./backup-data-dir.ts";
import { BackupError, type Manifest, readManifest, verifyFiles } from "./manifest.ts";

/** The staging folder inside the data directory while a restore copies. */
const STAGING = ".restore-partial";
/** What an empty data directory may still hold: a lock left by a stopped node, a stopped restore's staging. */
const IGNORED = new Set(["charter.lock", STAGING]);

export interface RestoreResult {
  readonly manifest: Manifest;
  readonly bytes: number;
}

/** Restores the backup in `src` onto `dataDir`. Throws BackupError with a one-line reason. */
export async function restoreDataDir(src: string, dataDir: string): Promise<RestoreResult> {
  const from = resolve(src);
  const data = resolve(dataDir);
  const manifest = readManifest(from);
  const newest = migrations.at(-1)?.version ?? 0;
  if (manifest.schemaVersion > newest) {
    throw new BackupError(`the backup's store has schema version ${manifest.schemaVersion}, newer than this Charter knows (${newest}): restore it with the Charter that took it (${manifest.charterVersion}) or a newer one`);
  }
  if (!manifest.files.some((f) => f.path === "charter.db")) throw new BackupError(`${from} holds no store (charter.db)`);
  const stray = manifest.files.find((f) => !BACKED_UP.has(f.path.split("/")[0] as string) || (f.path.includes("/") && !["keys", "blobs", "vaults"].includes(f.path.split("/")[0] as string)));
  if (stray !== undefined) throw new BackupError(`${from}'s manifest lists ${stray.path}, which is no part of a backup`);
  await verifyFiles(from, manifest);

  try {
    makeDirsSync(data, 0o700);
  } catch (error) {
    throw new BackupError(`cannot create the data directory ${data}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!lstatSync(data).isDirectory()) throw new BackupError(`${data} is not a directory`);
  let lock: DataLock;
  try {
    lock = DataLock.acquire(join(data, "charter.lock"));
  } catch (error) {
    if (error instanceof LockHeldError) throw new BackupError(`a node is running on ${data} (pid ${error.pid}); stop it, and restore onto an empty directory`);
    throw new BackupError(`cannot lock ${data}: ${(error as Error).message}`);
  }
  const staging = join(data, STAGING);
  const moved: string[] = [];
  try {
    const present = readdirSync(data).filter((name) => !IGNORED.has(name));
    if (present.length > 0) throw new BackupError(`${data} is not empty (it holds ${present.slice(0, 3).join(", ")}${present.length > 3 ? ", …" : ""}); restore onto an empty or new directory`);
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { mode: 0o700 });
    let bytes = 0;
    for (const f of manifest.files) {
      const target = join(staging, ...f.path.split("/"));
      makeDirsSync(dirname(target), 0o700);
      const { sha256 } = await copyFileSynced(join(from, ...f.path.split("/")), target);
      if (sha256 !== f.sha256) throw new BackupError(`${f.path} changed in ${from} while it was restored`);
      bytes += f.size;
    }
    // The store last: a directory with a store in it is a whole one.
    const names = readdirSync(staging).sort((a, b) => Number(a === "charter.db") - Number(b === "charter.db"));
    for (const name of names) {
      renameSync(join(staging, name), join(data, name));
      moved.push(name);
    }
    rmSync(staging, { recursive: true, force: true });
    syncFile(data);
    return { manifest, bytes };
  } catch (error) {
    for (const name of moved) rmSync(join(data, name), { recursive: true, force: true });
    rmSync(staging, { recursive: true, force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`the restore failed: ${(error as Error).message}`);
  } finally {
    lock.release();
  }
}
