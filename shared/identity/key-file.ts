/**
 * @module Key files: a private JWK on disk, mode 0600, written atomically (temp file + link or
 * rename, so a reader never sees half a key), and refused when group or others can access it, or
 * when it is a symbolic link (nothing inside the data directory is reached through a link;
 * the mode check would be of the link's target). The node's own key lives at `DATA/node-key.jwk`.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { chmod, link, lstat, open, rename, unlink } from "node:fs/promises";
import { makeDirs } from "../make-dirs.ts";
import { basename, dirname, join } from "node:path";
import { fromPrivateJwk, generateKeyPair, toPrivateJwk, type KeyPair } from "./key-pair.ts";
import { fail, ok, type Result } from "../result.ts";

/** Why a key file could not be read or written. */
export interface KeyFileError {
  readonly code:
    | "key_file_missing" //    no such file
    | "key_file_exists" //     refusing to overwrite without `overwrite: true`
    | "key_file_insecure" //   group or others have some access (mode & 0o077)
    | "key_file_unreadable" // an I/O error, or not JSON
    | "key_file_unwritable" // an I/O error while writing
    | "bad_jwk"; //            JSON, but not a private Ed25519 JWK
  readonly message: string;
  readonly path: string;
}

/** The node key's file name inside a data directory. */
export const NODE_KEY_FILE = "node-key.jwk";

/** Read a private JWK file, refusing one that group or others can access. */
export async function loadKeyFile(path: string): Promise<Result<KeyPair, KeyFileError>> {
  let mode: number;
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return fail({ code: "key_file_insecure", message: `key file ${path} is a symbolic link; refusing to follow it — put the key file itself there`, path });
    mode = info.mode;
  } catch (error) {
    if (errno(error) === "ENOENT") return fail({ code: "key_file_missing", message: `key file ${path} does not exist`, path });
    return fail({ code: "key_file_unreadable", message: `cannot read key file ${path}: ${describe(error)}`, path });
  }
  // POSIX permissions do not exist on Windows; there the directory's ACL is what protects the key.
  if (process.platform !== "win32" && (mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, "0");
    return fail({ code: "key_file_insecure", message: `key file ${path} is accessible to group or others (mode ${octal}); run \`chmod 600 ${path}\``, path });
  }
  let json: unknown;
  try {
    // O_NOFOLLOW as well: a link swapped in after the lstat is not followed either.
    const file = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      json = JSON.parse(await file.readFile("utf8"));
    } finally {
      await file.close();
    }
  } catch (error) {
    return fail({ code: "key_file_unreadable", message: `cannot read key file ${path}: ${describe(error)}`, path });
  }
  const keyPair = fromPrivateJwk(json);
  if (!keyPair.ok) return fail({ code: "bad_jwk", message: `key file ${path}: ${keyPair.error.message}`, path });
  return keyPair;
}

/** Write a key pair as a private JWK with mode 0600; without `overwrite`, an existing file is left alone. */
export async function saveKeyFile(path: string, keyPair: KeyPair, options: { overwrite?: boolean } = {}): Promise<Result<void, KeyFileError>> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const file = await open(temp, "wx", 0o600);
    try {
      await file.chmod(0o600); // the umask may have narrowed it further; make it exactly 0600
      await file.writeFile(`${JSON.stringify(toPrivateJwk(keyPair))}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    if (options.overwrite === true) {
      await rename(temp, path);
    } else {
      // link() fails with EEXIST instead of replacing: no-clobber and atomic, even against a racing writer.
      await link(temp, path);
      await unlink(temp);
    }
    await syncDirectory(dirname(path));
    return ok(undefined);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    if (errno(error) === "EEXIST") return fail({ code: "key_file_exists", message: `${path} already exists (use --force to overwrite it)`, path });
    return fail({ code: "key_file_unwritable", message: `cannot write key file ${path}: ${describe(error)}`, path });
  }
}

/** The node's own key from `DATA/node-key.jwk`, created (with DATA, mode 0700) on first use. */
export async function loadOrCreateNodeKey(dataDir: string): Promise<Result<KeyPair, KeyFileError>> {
  const path = join(dataDir, NODE_KEY_FILE);
  const existing = await loadKeyFile(path);
  if (existing.ok || existing.error.code !== "key_file_missing") return existing;
  try {
    if (await makeDirs(dataDir)) await chmod(dataDir, 0o700);
  } catch (error) {
    return fail({ code: "key_file_unwritable", message: `cannot create data directory ${dataDir}: ${describe(error)}`, path });
  }
  const keyPair = generateKeyPair();
  const saved = await saveKeyFile(path, keyPair);
  if (saved.ok) return ok(keyPair);
  // Another process created the key between our read and our write: use theirs, there is one node identity.
  if (saved.error.code === "key_file_exists") return loadKeyFile(path);
  return saved;
}

async function syncDirectory(path: string): Promise<void> {
  if (process.platform === "win32") return; // directories cannot be opened for fsync there
  const dir = await open(path, "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

function errno(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
