/**
 * @module Disk use for the Overview: the bytes the data directory's files take (symlinks not
 * followed) and the free and total space of the filesystem holding it.
 */
import { lstatSync, readdirSync, statfsSync } from "node:fs";
import { join } from "node:path";

export interface DiskUse {
  /** Bytes of every file under the data directory. */
  readonly used: number;
  readonly files: number;
  /** Bytes available to this user on the data directory's filesystem, and its size; null if unknown. */
  readonly free: number | null;
  readonly total: number | null;
}

export function readDiskUse(dataDir: string): DiskUse {
  let used = 0;
  let files = 0;
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        const s = lstatSync(path);
        if (s.isDirectory()) walk(path);
        else if (s.isFile()) {
          used += s.size;
          files++;
        }
      } catch {
        // Removed while walking (a rotated log, a socket): skip it.
      }
    }
  };
  walk(dataDir);
  try {
    const fs = statfsSync(dataDir);
    return { used, files, free: fs.bavail * fs.bsize, total: fs.blocks * fs.bsize };
  } catch {
    return { used, files, free: null, total: null };
  }
}
