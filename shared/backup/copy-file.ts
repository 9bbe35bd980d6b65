/**
 * @module Copying one file for a backup or a restore: never through a link, into a new 0600 file,
 * hashed on the way, and synced every 8 MiB — a blob may be gigabytes, and a sync of that much
 * at once holds up the engine's own fsyncs behind it in the filesystem's journal (copy-database.ts).
 */
import { createHash } from "node:crypto";
import { constants, createReadStream, openSync } from "node:fs";
import { open } from "node:fs/promises";

/** Bytes written between two syncs. */
const SYNC_EVERY = 8 * 1024 ** 2;

/** Copies `source` to the new file `target`; its size and SHA-256. Throws ENOENT when `source` is gone. */
export async function copyFileSynced(source: string, target: string): Promise<{ size: number; sha256: string }> {
  const fd = openSync(source, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  const input = createReadStream("", { fd, autoClose: true, highWaterMark: 1024 ** 2 });
  const out = await open(target, "wx", 0o600);
  const h = createHash("sha256");
  let size = 0;
  let unsynced = 0;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      h.update(chunk);
      await out.write(chunk);
      size += chunk.length;
      unsynced += chunk.length;
      if (unsynced >= SYNC_EVERY) {
        await out.datasync();
        unsynced = 0;
      }
    }
    await out.sync();
  } finally {
    input.destroy();
    await out.close();
  }
  return { size, sha256: h.digest("hex") };
}
