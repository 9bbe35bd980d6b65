/**
 * @module Taking a backup of a data directory, while its node runs or while it is stopped: every
 * database copied online (copy-database.ts), then the files — the node key, the tenants' keys, the
 * blobs (after the store, so every blob the copied store refers to is there: a blob nothing refers
 * to any more is kept an hour before it is swept), the vaults — into `DEST.partial`, checked
 * (integrity of each database, every file's digest read back, a sample of history replayed) and
 * only then renamed to DEST, with its manifest. A backup is never half there.
 *
 * Left out: `run/`, `logs/`, `charter.lock`, `admin.sock` (the running tree's), `knowledge/`
 * (index.db is derived from the vaults and made again when missing), `tool-servers/` (the stdio tool
 * servers' scratch folders), `blobs/tmp/` and the vaults' `.charter/tmp/` (writes in progress).
 *
 * A stopped node's directory is locked for the backup's duration (the node cannot start behind
 * it), and the `-wal`/`-shm` files that reading its databases makes are removed afterwards.
 */
import { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { DataLock, LockHeldError } from "../store/lock.ts";
import { openDatabase } from "../store/open.ts";
import { copyDatabase, type CopyMethod, integrityProblem, syncFile } from "./copy-database.ts";
import { copyFileSynced } from "./copy-file.ts";
import { BackupError, digestFile, FORMAT, MANIFEST, type Manifest, type ManifestDatabase, type ManifestFile, verifyFiles } from "./manifest.ts";
import { DEFAULT_REPLAY_LIMITS, replayCheck, type ReplayLimits } from "./replay-check.ts";

export { BackupError } from "./manifest.ts";

/** The databases of a data directory, in the order they are copied; the store must be there. */
export const DATABASES = ["charter.db", "accounts.db", "raft.db"] as const;
/** What a backup may hold: its top-level names in the data directory. */
export const BACKED_UP = new Set<string>([...DATABASES, "node-key.jwk", "keys", "blobs", "vaults"]);
/** The folders copied after the databases, and what inside them is left out. */
const FOLDERS: readonly { readonly name: string; readonly skip: (parts: readonly string[]) => boolean }[] = [
  { name: "keys", skip: () => false },
  { name: "blobs", skip: (parts) => parts[0] === "tmp" },
  { name: "vaults", skip: (parts) => parts[1] === ".charter" && parts[2] === "tmp" },
];
const LEFT_OUT = [
  "run/, logs/, charter.lock, admin.sock: the running tree's own",
  "knowledge/index.db: derived from the vaults, made again when missing",
  "tool-servers/: the stdio tool servers' scratch folders",
  "blobs/tmp/, vaults/*/.charter/tmp/: writes in progress",
];

export interface BackupOptions {
  /** The Charter version taking the backup (recorded in the manifest). */
  readonly version: string;
  readonly method?: CopyMethod;
  readonly replay?: ReplayLimits;
  readonly now?: () => Date;
}

export interface BackupResult {
  readonly manifest: Manifest;
  /** Bytes of all files. */
  readonly bytes: number;
  /** Whether the node was running (the copy was online). */
  readonly online: boolean;
}

/** Backs `dataDir` up into `dest` (new or empty). Throws BackupError with a one-line reason. */
export async function backupDataDir(dataDir: string, dest: string, options: BackupOptions): Promise<BackupResult> {
  const data = resolve(dataDir);
  const target = resolve(dest);
  const partial = `${target}.partial`;
  if (!existsSync(join(data, "charter.db"))) throw new BackupError(`${data} holds no store (charter.db): nothing to back up`);
  if (inside(target, data) || inside(data, target)) throw new BackupError(`the backup ${target} cannot be inside the data directory ${data}, nor hold it`);
  checkEmpty(target);
  if (existsSync(partial)) throw new BackupError(`${partial} exists (left by a backup that was stopped?); remove it and try again`);

  const lock = lockIfStopped(data);
  const made = lock === null ? [] : DATABASES.flatMap((db) => [`${db}-wal`, `${db}-shm`]).filter((f) => !existsSync(join(data, f)));
  try {
    mkdirSync(partial, { mode: 0o700 });
    const createdAt = (options.now ?? (() => new Date()))().toISOString();
    const files: ManifestFile[] = [];
    const databases: ManifestDatabase[] = [];
    for (const name of DATABASES) {
      const source = join(data, name);
      if (!existsSync(source)) continue;
      const { schemaVersion } = await copyDatabase(source, join(partial, name), options.method);
      databases.push({ path: name, schemaVersion });
      files.push({ path: name, ...(await digestOf(join(partial, name))), mode: 0o600 });
    }
    const historySeq = historyOf(join(partial, "charter.db"));
    // After the store: blobs it refers to were stored before it was copied.
    if (existsSync(join(data, "node-key.jwk"))) files.push(await copyFile(data, partial, "node-key.jwk"));
    for (const folder of FOLDERS) files.push(...(await copyFolder(data, partial, folder.name, folder.skip)));

    // Read back what was written.
    const integrity = databases.map((d) => {
      const problem = integrityProblem(join(partial, d.path));
      if (problem !== null) throw new BackupError(`the copy of ${d.path} fails SQLite's integrity check: ${problem}`);
      return d.path;
    });
    const draft: Manifest = {
      format: FORMAT,
      createdAt,
      charterVersion: options.version,
      schemaVersion: databases.find((d) => d.path === "charter.db")?.schemaVersion ?? 0,
      historySeq,
      databases,
      files,
      skipped: LEFT_OUT,
      verified: { integrity, digests: 0, replayed: { subjects: 0, entries: 0 } },
    };
    const digests = await verifyFiles(partial, draft);
    const store = openDatabase(join(partial, "charter.db"), { readOnly: true });
    let replay;
    try {
      replay = replayCheck(store, options.replay ?? DEFAULT_REPLAY_LIMITS);
    } finally {
      store.close();
    }
    if (!replay.ok) throw new BackupError(`replaying the copied history fails: ${replay.message}`);
    const manifest: Manifest = { ...draft, verified: { integrity, digests, replayed: { subjects: replay.subjects, entries: replay.entries } } };
    writeFileSync(join(partial, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600, flag: "wx" });
    syncFile(join(partial, MANIFEST));
    syncTree(partial);
    // An empty DEST is replaced by the rename; a DEST that appeared meanwhile with files is not.
    renameSync(partial, target);
    syncFile(dirname(target));
    return { manifest, bytes: files.reduce((n, f) => n + f.size, 0), online: lock === null };
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`the backup failed: ${(error as Error).message}`);
  } finally {
    // Made by this process's read connections (a reader never writes to the WAL), under its lock.
    for (const f of made) rmSync(join(data, f), { force: true });
    lock?.release();
  }
}

/** Whether `path` is `dir` or inside it. */
function inside(path: string, dir: string): boolean {
  const r = relative(dir, path);
  return r === "" || (!r.startsWith(`..${sep}`) && r !== ".." && !r.startsWith(sep));
}

/** DEST must not exist, or be an empty directory. */
function checkEmpty(target: string): void {
  let stat;
  try {
    stat = lstatSync(target);
  } catch {
    return;
  }
  if (!stat.isDirectory()) throw new BackupError(`${target} exists and is not a directory; a backup goes into a new or empty directory`);
  if (readdirSync(target).length > 0) throw new BackupError(`${target} is not empty; a backup goes into a new or empty directory`);
}

/** Takes the data directory's lock when no node holds it (null: a node runs, the copy is online). */
function lockIfStopped(data: string): DataLock | null {
  try {
    return DataLock.acquire(join(data, "charter.lock"));
  } catch (error) {
    if (error instanceof LockHeldError) return null;
    throw new BackupError(`cannot lock ${data} while backing it up: ${(error as Error).message}`);
  }
}

/** The highest history sequence number of a copied store. */
function historyOf(path: string): number {
  const db = openDatabase(path, { readOnly: true });
  try {
    const hasHistory = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history'").get() !== undefined;
    return hasHistory ? Number((db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM history").get() as { seq: number }).seq) : 0;
  } finally {
    db.close();
  }
}

async function digestOf(path: string): Promise<{ size: number; sha256: string }> {
  const { sha256, size } = await digestFile(path);
  return { size, sha256 };
}

/** Copies `from/rel` to `to/rel`, keeping its mode in the manifest. Null when it vanished meanwhile. */
async function copyOne(from: string, to: string, rel: string): Promise<ManifestFile | null> {
  const source = join(from, rel);
  let mode: number;
  let copied: { size: number; sha256: string };
  try {
    mode = lstatSync(source).mode & 0o777;
    copied = await copyFileSynced(source, join(to, rel));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  return { path: rel.split(sep).join("/"), ...copied, mode };
}

async function copyFile(from: string, to: string, rel: string): Promise<ManifestFile> {
  const copied = await copyOne(from, to, rel);
  if (copied === null) throw new BackupError(`${join(from, rel)} vanished while it was copied`);
  return copied;
}

/**
 * Copies the folder `name` of `from` into `to`: regular files only (links, sockets and FIFOs are
 * not the node's and are left out), folders made 0700, without recursion (a stack of folders).
 */
async function copyFolder(from: string, to: string, name: string, skip: (parts: readonly string[]) => boolean): Promise<ManifestFile[]> {
  const files: ManifestFile[] = [];
  if (!existsSync(join(from, name)) || !lstatSync(join(from, name)).isDirectory()) return files;
  const stack: string[] = [name];
  while (stack.length > 0) {
    const rel = stack.pop() as string;
    mkdirSync(join(to, rel), { mode: 0o700 });
    let entries;
    try {
      entries = readdirSync(join(from, rel), { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = join(rel, entry.name);
      if (skip(child.split(sep).slice(1))) continue;
      if (entry.isDirectory()) stack.push(child);
      else if (entry.isFile()) {
        const copied = await copyOne(from, to, child);
        if (copied !== null) files.push(copied);
      }
    }
  }
  return files;
}

/** fsync of every folder of the tree (the files were synced as they were written). */
function syncTree(root: string): void {
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) stack.push(join(dir, entry.name));
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
