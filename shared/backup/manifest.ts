/**
 * @module A backup's manifest, `backup.json`: when it was taken, by which Charter, the store's
 * schema version and the last history entry it holds, and every file with its size and SHA-256.
 * Reading one checks its shape field by field (it is input: a backup may come from anywhere), and
 * checking a backup's files against it streams each file through SHA-256.
 */
import { createHash } from "node:crypto";
import { createReadStream, lstatSync, readFileSync } from "node:fs";
import { isAbsolute, join, normalize, sep } from "node:path";

/** The manifest's name inside a backup. */
export const MANIFEST = "backup.json";
export const FORMAT = "charter-backup/1";

/** One file of a backup: its path inside the data directory (`/`-separated), size, digest and mode. */
export interface ManifestFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  /** Its permission bits (0600 for every file the node keeps). */
  readonly mode: number;
}

/** One database of a backup and its schema version (`PRAGMA user_version`). */
export interface ManifestDatabase {
  readonly path: string;
  readonly schemaVersion: number;
}

export interface Manifest {
  readonly format: typeof FORMAT;
  /** When the copy of the store began (ISO 8601). */
  readonly createdAt: string;
  readonly charterVersion: string;
  /** The store's (`charter.db`) schema version. */
  readonly schemaVersion: number;
  /** The highest history sequence number in the copied store: every command up to it is in the backup. */
  readonly historySeq: number;
  readonly databases: readonly ManifestDatabase[];
  readonly files: readonly ManifestFile[];
  /** What the data directory held that the backup leaves out, and why. */
  readonly skipped: readonly string[];
  /** What was checked after writing. */
  readonly verified: { readonly integrity: readonly string[]; readonly digests: number; readonly replayed: { readonly subjects: number; readonly entries: number } };
}

/** The largest manifest read (a data directory of a million blobs needs about 150 MB). */
const MANIFEST_MAX_BYTES = 256 * 1024 ** 2;
/** The most files a manifest may list. */
export const MAX_FILES = 2_000_000;

/** A backup that cannot be used: the message says what and where. */
export class BackupError extends Error {}

/** SHA-256 and size of a file, read as a stream (blobs may be gigabytes). */
export function digestFile(path: string): Promise<{ sha256: string; size: number }> {
  return new Promise((resolve, reject) => {
    const h = createHash("sha256");
    let size = 0;
    createReadStream(path)
      .on("data", (chunk) => {
        size += chunk.length;
        h.update(chunk);
      })
      .on("error", reject)
      .on("end", () => resolve({ sha256: h.digest("hex"), size }));
  });
}

/** Whether `path` is a relative path inside the backup: no `..`, not absolute, no empty parts. */
export function safeRelative(path: string): boolean {
  if (path.length === 0 || path.length > 4096 || isAbsolute(path) || path.includes("\\") || path.includes("\0")) return false;
  const parts = path.split("/");
  return parts.every((p) => p !== "" && p !== "." && p !== "..") && normalize(path) === path.split("/").join(sep);
}

/** Reads and checks the manifest of the backup in `dir`. Throws BackupError naming what is wrong. */
export function readManifest(dir: string): Manifest {
  const path = join(dir, MANIFEST);
  let text: string;
  try {
    const stat = lstatSync(path);
    if (!stat.isFile()) throw new BackupError(`${path} is not a file`);
    if (stat.size > MANIFEST_MAX_BYTES) throw new BackupError(`${path} is larger than a manifest can be`);
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${dir} is not a Charter backup: no readable ${MANIFEST} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new BackupError(`${path} is not JSON`);
  }
  const bad = (what: string) => new BackupError(`${path}: ${what}`);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw bad("not an object");
  const m = raw as Record<string, unknown>;
  if (m.format !== FORMAT) throw bad(`format is not ${FORMAT}`);
  for (const key of ["createdAt", "charterVersion"] as const) if (typeof m[key] !== "string") throw bad(`${key} is not a string`);
  for (const key of ["schemaVersion", "historySeq"] as const) if (!Number.isSafeInteger(m[key]) || (m[key] as number) < 0) throw bad(`${key} is not a whole number`);
  if (!Array.isArray(m.files) || m.files.length > MAX_FILES) throw bad("files is not a list of at most 2,000,000 files");
  if (!Array.isArray(m.databases) || m.databases.length > 16) throw bad("databases is not a short list");
  const paths = new Set<string>();
  for (const [i, f] of (m.files as unknown[]).entries()) {
    const file = f as Record<string, unknown> | null;
    if (typeof file !== "object" || file === null) throw bad(`files[${i}] is not an object`);
    if (typeof file.path !== "string" || !safeRelative(file.path) || file.path === MANIFEST) throw bad(`files[${i}].path is not a path inside the backup`);
    if (paths.has(file.path)) throw bad(`files[${i}].path ${file.path} is listed twice`);
    paths.add(file.path);
    if (!Number.isSafeInteger(file.size) || (file.size as number) < 0) throw bad(`files[${i}].size is not a whole number`);
    if (typeof file.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(file.sha256)) throw bad(`files[${i}].sha256 is not a SHA-256`);
    if (!Number.isInteger(file.mode) || (file.mode as number) < 0 || (file.mode as number) > 0o777) throw bad(`files[${i}].mode is not a permission mode`);
  }
  for (const [i, d] of (m.databases as unknown[]).entries()) {
    const db = d as Record<string, unknown> | null;
    if (typeof db !== "object" || db === null || typeof db.path !== "string" || !paths.has(db.path)) throw bad(`databases[${i}] is not one of the files`);
    if (!Number.isSafeInteger(db.schemaVersion)) throw bad(`databases[${i}].schemaVersion is not a whole number`);
  }
  return raw as Manifest;
}

/**
 * Checks every file of `manifest` in the backup at `dir`: present, a regular file (not a link), of
 * its size and digest. Throws BackupError naming the first that is not. Answers how many it checked.
 */
export async function verifyFiles(dir: string, manifest: Manifest): Promise<number> {
  for (const f of manifest.files) {
    const path = join(dir, f.path);
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      throw new BackupError(`${f.path} is missing from the backup ${dir}`);
    }
    if (!stat.isFile()) throw new BackupError(`${f.path} in the backup ${dir} is not a regular file`);
    if (stat.size !== f.size) throw new BackupError(`${f.path} in the backup ${dir} has ${stat.size} bytes, the manifest says ${f.size}: the backup was changed or damaged`);
    const { sha256 } = await digestFile(path);
    if (sha256 !== f.sha256) throw new BackupError(`${f.path} in the backup ${dir} does not match its SHA-256 in the manifest: the backup was changed or damaged`);
  }
  return manifest.files.length;
}
