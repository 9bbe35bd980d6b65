/**
 * @module When unreferenced blobs are removed: a sweep every `intervalMs`, and one a grace period
 * after a file is deleted (so a deleted file's bytes go soon after they may, not at the next
 * interval). Whether a blob is referred to is asked of the records at sweep time; when they cannot
 * be read (the node is not set up, the engine is restarting), every blob counts as referred to.
 */
import type { Logger } from "../../../../shared/log.ts";
import type { BlobStore } from "./blob-store.ts";

export interface BlobSweeperDeps {
  readonly blobs: Pick<BlobStore, "sweep">;
  /** Whether a kept record refers to blob `sha256` (throws when the records cannot be read). */
  readonly referenced: (sha256: string) => boolean;
  readonly graceMs: number;
  readonly intervalMs: number;
  readonly log: Logger;
}

export class BlobSweeper {
  readonly #deps: BlobSweeperDeps;
  #interval: NodeJS.Timeout | null = null;
  #soon: NodeJS.Timeout | null = null;

  constructor(deps: BlobSweeperDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#interval = setInterval(() => this.sweep(), this.#deps.intervalMs);
    this.#interval.unref();
  }

  /** A file was deleted: sweep once its blob's grace period is over. */
  deleted(): void {
    if (this.#soon !== null) clearTimeout(this.#soon);
    this.#soon = setTimeout(() => {
      this.#soon = null;
      this.sweep();
    }, this.#deps.graceMs + 1000);
    this.#soon.unref();
  }

  /** Removes what may go now; answers how many blobs went. */
  sweep(): number {
    let unreadable = false;
    const referenced = (sha256: string) => {
      if (unreadable) return true;
      try {
        return this.#deps.referenced(sha256);
      } catch {
        unreadable = true;
        return true;
      }
    };
    const { removed, bytes } = this.#deps.blobs.sweep(referenced);
    if (removed > 0) this.#deps.log.info("removed blobs no file refers to", { removed, bytes });
    return removed;
  }

  close(): void {
    if (this.#interval !== null) clearInterval(this.#interval);
    if (this.#soon !== null) clearTimeout(this.#soon);
  }
}
