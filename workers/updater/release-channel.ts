/**
 * @module Reading a release channel: a folder, or an https URL (plain http only on loopback), that
 * holds `latest.jws` and `<version>/manifest.jws` with the files it names. What is read is bounded:
 * a manifest is at most 256 KiB, a file no larger than its manifest says (a longer body is cut and
 * then fails its digest), every HTTP request has a time limit, and nothing is followed but the
 * channel's own paths.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";

/** The largest manifest read. */
const MAX_MANIFEST = 256 * 1024;
/** How long a manifest's request may take, and a file's without a byte arriving. */
const MANIFEST_TIMEOUT_MS = 30_000;
const DOWNLOAD_TIMEOUT_MS = 30 * 60_000;

export class ChannelError extends Error {}

export interface ReleaseChannel {
  /** A text file of the channel (`latest.jws`, `1.2.3/manifest.jws`), at most 256 KiB. */
  text(path: string): Promise<string>;
  /** A file of the channel written to `dest`, at most `size` bytes. */
  download(path: string, dest: string, size: number): Promise<void>;
}

export function openChannel(channel: string): ReleaseChannel {
  return channel.startsWith("/") ? folderChannel(channel) : urlChannel(channel);
}

function folderChannel(dir: string): ReleaseChannel {
  return {
    async text(path) {
      const file = join(dir, path);
      const st = await stat(file).catch((error: NodeJS.ErrnoException) => {
        throw new ChannelError(`${file}: ${error.code ?? error.message}`);
      });
      if (!st.isFile() || st.size > MAX_MANIFEST) throw new ChannelError(`${file} is not a manifest (${st.size} bytes)`);
      return readFile(file, "utf8");
    },
    async download(path, dest, size) {
      await pipeline(createReadStream(join(dir, path), { end: Math.max(0, size) }), createWriteStream(dest, { mode: 0o600 })).catch((error: NodeJS.ErrnoException) => {
        throw new ChannelError(`${join(dir, path)}: ${error.code ?? error.message}`);
      });
    },
  };
}

function urlChannel(base: string): ReleaseChannel {
  const url = (path: string) => `${base.replace(/\/+$/, "")}/${path}`;
  const get = async (path: string, timeoutMs: number) => {
    const response = await fetch(url(path), { redirect: "error", signal: AbortSignal.timeout(timeoutMs) }).catch((error: Error) => {
      throw new ChannelError(`${url(path)}: ${(error.cause as Error | undefined)?.message ?? error.message}`);
    });
    if (response.status !== 200 || response.body === null) {
      await response.body?.cancel().catch(() => {});
      throw new ChannelError(`${url(path)} answered ${response.status}`);
    }
    return response;
  };
  return {
    async text(path) {
      const response = await get(path, MANIFEST_TIMEOUT_MS);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        if (size > MAX_MANIFEST) throw new ChannelError(`${url(path)} is larger than a manifest`);
        chunks.push(Buffer.from(chunk));
      }
      return Buffer.concat(chunks).toString("utf8");
    },
    async download(path, dest, size) {
      const response = await get(path, DOWNLOAD_TIMEOUT_MS);
      let seen = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          seen += chunk.length;
          if (seen > size) done(new ChannelError(`${url(path)} is larger than its manifest says`));
          else done(null, chunk);
        },
      });
      await pipeline(Readable.fromWeb(response.body as never), cap, createWriteStream(dest, { mode: 0o600 })).catch((error: Error) => {
        throw error instanceof ChannelError ? error : new ChannelError(`${url(path)}: ${error.message}`);
      });
    },
  };
}
