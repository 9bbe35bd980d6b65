/**
 * @module A vault's folder on disk, as the vault reads and writes it: only regular `.md` files are
 * notes (symbolic links, hidden entries and files over MAX_NOTE_BYTES are not), nothing is read or
 * written outside the folder (every folder written into, or read from, is checked by its real
 * path), and a note is written whole: a temporary file in the hidden `.charter/tmp/`, fsynced, then
 * renamed into place.
 */
import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, realpathSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { folderOf, notePath } from "./note-path.ts";

/** The largest note kept: a file larger is not a note (nor indexed). */
export const MAX_NOTE_BYTES = 4 * 1024 * 1024;
/** The most files a scan looks at, and the deepest folder. */
const MAX_SCAN_FILES = 200_000;
const MAX_DEPTH = 32;

/** A note's file as read. */
export interface DiskNote {
  readonly bytes: Buffer;
  readonly sha256: string;
  readonly mtimeMs: number;
}

export const sha256Of = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

export class VaultFolder {
  readonly #dir: string;
  readonly #skip: (path: string, why: string) => void;
  /** The folder's real path, once opened. */
  root = "";

  /** `skip` hears a file that is left alone (too large). */
  constructor(dir: string, skip: (path: string, why: string) => void) {
    this.#dir = dir;
    this.#skip = skip;
  }

  /** Makes the folder if missing and clears what a crash left in `.charter/tmp/`. */
  open(): void {
    mkdirSync(join(this.#dir, ".charter", "tmp"), { recursive: true, mode: 0o700 });
    this.root = realpathSync(this.#dir);
    rmSync(join(this.root, ".charter", "tmp"), { recursive: true, force: true });
    mkdirSync(join(this.root, ".charter", "tmp"), { recursive: true, mode: 0o700 });
  }

  /** Whether the file at `path` differs in size or time from what `known` says (or is not a note's file). */
  changed(path: string, known: { size: number; mtimeMs: number }): boolean {
    try {
      const stat = lstatSync(this.file(path));
      return !stat.isFile() || stat.size !== known.size || Math.trunc(stat.mtimeMs) !== known.mtimeMs;
    } catch {
      return true;
    }
  }

  /** Removes note `path`'s file, if any. */
  remove(path: string): void {
    rmSync(this.file(path), { force: true });
  }

  /** Every note file under the folder, by path (iteratively; hidden entries, links and non-notes left out). */
  walk(): Map<string, { size: number; mtimeMs: number }> {
    const files = new Map<string, { size: number; mtimeMs: number }>();
    const folders: { rel: string; depth: number }[] = [{ rel: "", depth: 0 }];
    while (folders.length > 0 && files.size < MAX_SCAN_FILES) {
      const { rel, depth } = folders.pop() as { rel: string; depth: number };
      let entries;
      try {
        entries = readdirSync(rel === "" ? this.root : join(this.root, rel), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (entry.name.startsWith(".")) continue;
        const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
        if (entry.isDirectory()) {
          if (depth < MAX_DEPTH) folders.push({ rel: path, depth: depth + 1 });
        } else if (entry.isFile() && /\.md$/iu.test(entry.name)) {
          if (!notePath(path).ok) continue;
          try {
            const stat = statSync(join(this.root, path));
            if (stat.size > MAX_NOTE_BYTES) {
              this.#skip(path, `larger than ${MAX_NOTE_BYTES} bytes`);
              continue;
            }
            files.set(path, { size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) });
          } catch {
            // Gone since it was listed.
          }
        }
      }
    }
    return files;
  }

  /** The absolute path of note `path`'s file. */
  file(path: string): string {
    return join(this.root, ...path.split("/"));
  }

  /** Whether note `path` has a regular file (a link is not one). */
  exists(path: string): boolean {
    try {
      return lstatSync(this.file(path)).isFile();
    } catch {
      return false;
    }
  }

  /** The real path of the folder `path` is in, when it is inside the vault (else null); `make`: made if missing. */
  #realFolder(path: string, make: boolean): string | null {
    const folder = folderOf(path);
    const abs = folder === "" ? this.root : join(this.root, ...folder.split("/"));
    if (make) mkdirSync(abs, { recursive: true, mode: 0o700 });
    const real = realpathSync(abs);
    return real === this.root || real.startsWith(this.root + sep) ? real : null;
  }

  /** The folder of `path`, made if missing; `400` when it leads outside the vault (a link). */
  #folder(path: string): string {
    const real = this.#realFolder(path, true);
    if (real === null) throw new HttpProblem(problem(400, "bad-parameters", "that folder of the vault leads outside it", [{ pointer: "#/args/path", detail: "outside the vault" }]));
    return real;
  }

  /** Note `path`'s file: null when absent, not a regular file (a link), outside the vault or too large. */
  read(path: string): DiskNote | null {
    let fd: number;
    try {
      const real = this.#realFolder(path, false);
      if (real === null) return null;
      fd = openSync(join(real, path.slice(path.lastIndexOf("/") + 1)), constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      return null;
    }
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) return null;
      if (stat.size > MAX_NOTE_BYTES) {
        this.#skip(path, `larger than ${MAX_NOTE_BYTES} bytes`);
        return null;
      }
      const bytes = Buffer.allocUnsafe(stat.size);
      let read = 0;
      while (read < stat.size) {
        const n = readSync(fd, bytes, read, stat.size - read, read);
        if (n === 0) break;
        read += n;
      }
      const kept = read === stat.size ? bytes : bytes.subarray(0, read);
      return { bytes: kept, sha256: sha256Of(kept), mtimeMs: Math.trunc(stat.mtimeMs) };
    } finally {
      closeSync(fd);
    }
  }

  /** Writes note `path`'s file whole: a temporary file fsynced, then renamed into place. */
  write(path: string, bytes: Buffer): { mtimeMs: number } {
    const folder = this.#folder(path);
    const tmp = join(this.root, ".charter", "tmp", `${randomBytes(12).toString("hex")}.part`);
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const target = join(folder, path.slice(path.lastIndexOf("/") + 1));
    try {
      renameSync(tmp, target);
    } catch (error) {
      rmSync(tmp, { force: true });
      throw error;
    }
    fsyncFolder(folder);
    return { mtimeMs: Math.trunc(statSync(target).mtimeMs) };
  }

  rename(from: string, to: string): void {
    const folder = this.#folder(to);
    renameSync(this.file(from), join(folder, to.slice(to.lastIndexOf("/") + 1)));
    fsyncFolder(folder);
    fsyncFolder(dirname(this.file(from)));
  }
}

function fsyncFolder(path: string): void {
  try {
    const fd = openSync(path, constants.O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // A folder that cannot be opened for an fsync (some file systems): the rename stands regardless.
  }
}

