/**
 * @module The key-encryption key that seals the person's private key at rest: 32 random bytes in
 * `DATA/keys/account-kek`, mode 0600, made once (written to a temp file and linked into place, so
 * a crash never leaves half a key and two makers never both win). It is refused when it is a
 * symbolic link, when group or others can read it, or when it is not 32 bytes: a node that cannot
 * trust it stops rather than seal with it.
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, fsyncSync, linkSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { makeDirsSync } from "../../../../shared/make-dirs.ts";
import { AEAD_KEY_BYTES } from "./aead.ts";

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** The key at `path`, made when it does not exist yet. Throws when it cannot be trusted (a broken invariant). */
export function loadOrCreateKek(path: string): Buffer {
  return readKek(path) ?? createKek(path);
}

/** The key at `path`, or null when there is none. */
export function readKek(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw new Error(`refusing ${path}: it is a symbolic link`, { cause: error });
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`refusing ${path}: it is not a regular file`);
    if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) throw new Error(`refusing ${path}: group or others can access it; run \`chmod 600 ${path}\``);
    const key = Buffer.alloc(AEAD_KEY_BYTES + 1);
    const read = readSync(fd, key, 0, key.length, 0);
    if (read !== AEAD_KEY_BYTES) throw new Error(`refusing ${path}: it does not hold a ${AEAD_KEY_BYTES}-byte key`);
    return key.subarray(0, AEAD_KEY_BYTES);
  } finally {
    closeSync(fd);
  }
}

function createKek(path: string): Buffer {
  makeDirsSync(dirname(path), 0o700);
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const key = randomBytes(AEAD_KEY_BYTES);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
  try {
    writeSync(fd, key);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Someone made it first: theirs is the key.
    const theirs = readKek(path);
    if (theirs === null) throw error;
    return theirs;
  } finally {
    unlinkSync(temp);
  }
  return key;
}
