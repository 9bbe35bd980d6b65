/**
 * @module The node's blobs: file contents kept under `DATA/blobs/`, each named by its SHA-256
 * (`blobs/ab/abcdef…`), so the same bytes stored twice are kept once. A blob is written to
 * `blobs/tmp/` while it streams in and is hashed on the way (blob-intake.ts: a few reused slots,
 * each hashed and written off the event loop, blob-writer.ts), fsynced, then renamed into place
 * (and the folder fsynced): a crash at any point leaves either the whole blob or none, and what was
 * left in `tmp/` is removed when the store opens. Nothing is ever buffered whole.
 *
 * Space: a blob that would take the library over its quota (the bytes of every blob together), or
 * leave the disk with less than its reserve free, is refused before it is written when its length
 * is declared, else as soon as it goes over; a disk that fills anyway (ENOSPC) is the same refusal.
 * Each is a `LibraryFull` with the HTTP status 507.
 *
 * Removal: `sweep` removes the blobs nothing refers to any more (the caller says which are
 * referred to), but only once they have been unreferenced for the grace period (a blob's mtime is
 * touched whenever it is stored again), never while a download reads it (`hold`) or an upload has
 * just stored it and not yet recorded it (also `hold`).
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, fsyncSync, mkdirSync, openSync, readdirSync, rmSync, statfsSync, statSync, unlinkSync, utimesSync } from "node:fs";
import { type FileHandle, open, rename, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import type { ProblemCode } from "../../../../shared/problem-catalog.ts";
import { BlobWriter, type WriteJob } from "./blob-writer.ts";
import { intake } from "./blob-intake.ts";

/** A blob id: lower-case hex SHA-256. */
export const BLOB_ID = /^[0-9a-f]{64}$/;

/** Why a blob was not stored: the HTTP status and problem code it answers with. */
export class BlobRefused extends Error {
  readonly status: 413 | 507;
  readonly code: Extract<ProblemCode, "body-too-large" | "library-full">;
  constructor(status: 413 | 507, code: Extract<ProblemCode, "body-too-large" | "library-full">, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export { BlobCut } from "./blob-intake.ts";

export interface BlobStoreOptions {
  /** The folder of blobs (`DATA/blobs`). */
  readonly dir: string;
  /** The most bytes all blobs together may take (0: no quota). */
  readonly quotaBytes: number;
  /** The free disk space kept: a blob that would leave less is refused (0: none). */
  readonly reserveBytes: number;
  /** How long a blob nothing refers to is kept before a sweep removes it. */
  readonly graceMs: number;
  readonly now?: () => number;
}

/** A stored blob. */
export interface StoredBlob {
  readonly sha256: string;
  readonly size: number;
  /** False when the same bytes were stored already. */
  readonly created: boolean;
}

/** How far apart the free-space checks of a blob of undeclared length are. */
const SPACE_CHECK_BYTES = 64 * 1024 * 1024;
/**
 * An upload's slots (blob-intake.ts): their size and how many at once. Measured (bench/library and
 * variants, 1 GiB on 2 cores): 256 KiB slots stay in the upload thread's cache between hashing and
 * writing, and took 1.4 s where 1 MiB slots took 2 to 3.6 s (the copy into the page cache reading
 * from memory); 4 MiB were slower still.
 */
const SLOT_BYTES = 256 * 1024;
const SLOTS = 16;
/** How much an upload writes between the fdatasyncs started while it streams in (without them, the fsync at the end took 0.4 s of a 1.8 s upload of 1 GiB; with them, 25 ms of 1.45 s). */
const SYNC_BYTES = 64 * 1024 * 1024;

export class BlobStore {
  readonly #options: BlobStoreOptions;
  readonly #tmp: string;
  readonly #holds = new Map<string, number>();
  readonly #writer = new BlobWriter();
  /** The bytes of every stored blob, counted once at the first need, then kept up to date. */
  #used: number | null = null;
  /** Bytes being written now (counted against the quota while they stream in). */
  #pending = 0;

  constructor(options: BlobStoreOptions) {
    this.#options = options;
    this.#tmp = join(options.dir, "tmp");
    // What a crash left half written: never a blob, never referred to.
    rmSync(this.#tmp, { recursive: true, force: true });
    mkdirSync(this.#tmp, { recursive: true, mode: 0o700 });
  }

  /** The path of blob `sha256`, whether or not it exists. */
  path(sha256: string): string {
    if (!BLOB_ID.test(sha256)) throw new Error(`not a blob id: ${sha256.slice(0, 80)}`);
    return join(this.#options.dir, sha256.slice(0, 2), sha256);
  }

  /** The size of blob `sha256`, or null when it is not stored. */
  size(sha256: string): number | null {
    try {
      return statSync(this.path(sha256)).size;
    } catch {
      return null;
    }
  }

  /** Keeps blob `sha256` from being swept until the answer is called. */
  hold(sha256: string): () => void {
    this.#holds.set(sha256, (this.#holds.get(sha256) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.#holds.get(sha256) ?? 1) - 1;
      if (n <= 0) this.#holds.delete(sha256);
      else this.#holds.set(sha256, n);
    };
  }

  /** The bytes all blobs take now. */
  usedBytes(): number {
    this.#used ??= this.#count();
    return this.#used;
  }

  /**
   * Stores what `source` streams (at most `maxBytes`; `declared` when its length is known up
   * front), and holds the blob: call `release` once what refers to it is recorded. With
   * `releaseChunks`, the source's chunks are this store's alone and each is freed once copied
   * (blob-intake.ts): pass it only for a source no one else reads, such as a request.
   */
  async put(source: Readable, limits: { maxBytes: number; declared: number | null; signal?: AbortSignal; releaseChunks?: boolean }): Promise<StoredBlob & { release: () => void }> {
    const { maxBytes, declared } = limits;
    if (declared !== null && declared > maxBytes) throw new BlobRefused(413, "body-too-large", `the file is over the upload limit of ${maxBytes} bytes`);
    const expected = declared ?? 0;
    this.#checkSpace(expected, 0);
    const tmp = join(this.#tmp, `${randomBytes(12).toString("hex")}.part`);
    // The intake reads from now on (so no byte and no error of the source goes unheard); its
    // first write waits for the file to be open.
    const opened = open(tmp, "wx", 0o600);
    opened.catch(() => undefined);
    const job = this.#writer.job(opened, declared);
    const file = syncedFile(opened, job);
    let closed = false;
    this.#pending += expected;
    try {
      const size = await intake(source, {
        sink: file.write,
        slot: () => Buffer.allocUnsafeSlow(declared === null ? SLOT_BYTES : Math.max(1, Math.min(declared, SLOT_BYTES))),
        slots: SLOTS,
        check: this.#limiter(maxBytes, declared),
        releaseChunks: limits.releaseChunks === true,
        ...(limits.signal === undefined ? {} : { signal: limits.signal }),
      });
      if (declared !== null && size !== declared) throw new BlobRefused(413, "body-too-large", "the file ended before its declared length");
      // On disk before it is renamed into place.
      await file.sync();
      closed = true;
      await (await opened).close();
      const sha256 = await job.digest();
      const release = this.hold(sha256);
      const target = this.path(sha256);
      let created = false;
      if (this.size(sha256) === null) {
        const used = this.usedBytes();
        mkdirSync(join(this.#options.dir, sha256.slice(0, 2)), { recursive: true, mode: 0o700 });
        await rename(tmp, target);
        fsyncDir(join(this.#options.dir, sha256.slice(0, 2)));
        created = true;
        this.#used = used + size;
      } else {
        // Off the event loop: freeing a large file's pages takes a while.
        await unlink(tmp);
        // Stored again: its grace period starts over, so a sweep does not take what is just being recorded.
        const now = new Date(this.#now());
        utimesSync(target, now, now);
      }
      return { sha256, size, created, release };
    } catch (error) {
      job.drop();
      if (!closed) await opened.then((file) => file.close()).catch(() => undefined);
      await rm(tmp, { force: true });
      if ((error as NodeJS.ErrnoException).code === "ENOSPC") throw new BlobRefused(507, "library-full", "the disk is full: the file was not stored");
      throw error;
    } finally {
      this.#pending -= expected;
    }
  }

  /** Stops the upload thread (uploads still running fail). */
  close(): Promise<void> {
    return this.#writer.close();
  }

  /** The check of an upload's running length: the limit, the declared length, and space every SPACE_CHECK_BYTES past what was declared. */
  #limiter(maxBytes: number, declared: number | null): (size: number) => void {
    const expected = declared ?? 0;
    let nextCheck = SPACE_CHECK_BYTES;
    return (size) => {
      if (size > maxBytes) throw new BlobRefused(413, "body-too-large", `the file is over the upload limit of ${maxBytes} bytes`);
      if (declared !== null && size > declared) throw new BlobRefused(413, "body-too-large", "the file is longer than its declared length");
      if (size > expected && size >= nextCheck) {
        nextCheck = size + SPACE_CHECK_BYTES;
        this.#checkSpace(size - expected, expected);
      }
    };
  }

  /**
   * Removes the blobs `referenced` says nothing refers to, unreferenced for the grace period and
   * not held; answers how many it removed and their bytes.
   */
  sweep(referenced: (sha256: string) => boolean): { removed: number; bytes: number } {
    const cutoff = this.#now() - this.#options.graceMs;
    let removed = 0;
    let bytes = 0;
    for (const { sha256, path, size, mtimeMs } of this.#blobs()) {
      if (mtimeMs > cutoff || this.#holds.has(sha256) || referenced(sha256)) continue;
      try {
        unlinkSync(path);
      } catch {
        continue;
      }
      removed += 1;
      bytes += size;
    }
    if (this.#used !== null) this.#used = Math.max(0, this.#used - bytes);
    return { removed, bytes };
  }

  /** Refuses `more` bytes (beyond `counted` already allowed for) that the quota or the disk cannot take. */
  #checkSpace(more: number, counted: number): void {
    const { quotaBytes, reserveBytes } = this.#options;
    if (quotaBytes > 0 && this.usedBytes() + this.#pending + more > quotaBytes) {
      throw new BlobRefused(507, "library-full", `the library is over its quota of ${quotaBytes} bytes`);
    }
    if (reserveBytes > 0) {
      const fs = statfsSync(this.#options.dir);
      const free = fs.bavail * fs.bsize;
      if (free - more - (this.#pending - counted) < reserveBytes) throw new BlobRefused(507, "library-full", "the disk is too full to store the file");
    }
  }

  #count(): number {
    let total = 0;
    for (const blob of this.#blobs()) total += blob.size;
    return total;
  }

  *#blobs(): Generator<{ sha256: string; path: string; size: number; mtimeMs: number }> {
    for (const prefix of safeReaddir(this.#options.dir)) {
      if (!/^[0-9a-f]{2}$/.test(prefix)) continue;
      for (const name of safeReaddir(join(this.#options.dir, prefix))) {
        if (!BLOB_ID.test(name) || !name.startsWith(prefix)) continue;
        const path = join(this.#options.dir, prefix, name);
        try {
          const s = statSync(path);
          yield { sha256: name, path, size: s.size, mtimeMs: s.mtimeMs };
        } catch {
          // Removed meanwhile.
        }
      }
    }
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }
}

/**
 * The writing of an upload's file: its slots go to the job (written and hashed), and every
 * SYNC_BYTES an fdatasync is started in the background, so the disk takes the bytes while more
 * arrive and the fsync before the rename has little left to do. `sync` waits for that one and
 * fails if it failed (a failed fdatasync may not be reported twice).
 */
function syncedFile(opened: Promise<FileHandle>, job: WriteJob): { write: (slot: Buffer, length: number) => Promise<Buffer>; sync: () => Promise<void> } {
  let unsynced = 0;
  let syncing: Promise<void> | null = null;
  let failure: { error: unknown } | null = null;
  return {
    write: async (slot, length) => {
      const next = await job.write(slot, length);
      unsynced += length;
      if (unsynced >= SYNC_BYTES && syncing === null) {
        unsynced = 0;
        const file = await opened;
        syncing = file.datasync().then(
          () => void (syncing = null),
          (error: unknown) => {
            failure ??= { error };
            syncing = null;
          },
        );
      }
      return next;
    },
    sync: async () => {
      const file = await opened;
      await syncing;
      if (failure !== null) throw failure.error;
      await file.sync();
    },
  };
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
