/**
 * @module `mkdir -p`, one level at a time. Not `mkdir({recursive: true})`: Node 24's recursive mkdir
 * spins forever at full CPU where mkdir answers ENOENT under an existing parent (e.g. `/proc/x/y`).
 */
import { mkdirSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";

const errno = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Creates `path` and any missing parents with `mode`; whether `path` itself was created. */
export function makeDirsSync(path: string, mode = 0o700): boolean {
  try {
    mkdirSync(path, { mode });
    return true;
  } catch (error) {
    if (errno(error) === "EEXIST") return false;
    if (errno(error) !== "ENOENT" || dirname(path) === path) throw error;
  }
  makeDirsSync(dirname(path), mode);
  try {
    mkdirSync(path, { mode });
    return true;
  } catch (error) {
    if (errno(error) === "EEXIST") return false; // a racing process made it first
    throw error;
  }
}

/** The asynchronous form of `makeDirsSync`. */
export async function makeDirs(path: string, mode = 0o700): Promise<boolean> {
  try {
    await mkdir(path, { mode });
    return true;
  } catch (error) {
    if (errno(error) === "EEXIST") return false;
    if (errno(error) !== "ENOENT" || dirname(path) === path) throw error;
  }
  await makeDirs(dirname(path), mode);
  try {
    await mkdir(path, { mode });
    return true;
  } catch (error) {
    if (errno(error) === "EEXIST") return false;
    throw error;
  }
}
