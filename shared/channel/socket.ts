/**
 * @module Channels over Unix domain sockets: how workers reach each other (the engine listens; the
 * gateway and others connect). Socket paths live in the data directory; a path too long for the
 * kernel's limit falls back to a short one in the temp directory derived from it.
 */
import { createHash } from "node:crypto";
import { chmodSync, rmSync } from "node:fs";
import { makeDirsSync } from "../make-dirs.ts";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Channel } from "./channel.ts";
import type { NoticeMap, RequestMap } from "./messages.ts";
import { socketTransport } from "./transport.ts";

const MAX_SOCKET_PATH = 100;

/** The socket path to use for `wanted`, shortened when the kernel would refuse it. */
export function socketPath(wanted: string): string {
  if (Buffer.byteLength(wanted) <= MAX_SOCKET_PATH) return wanted;
  const digest = createHash("sha256").update(wanted).digest("hex").slice(0, 16);
  return join(tmpdir(), `charter-${digest}.sock`);
}

/** Listens on `path` (replacing a stale socket file) and hands each connection to `accept`. */
export function listenChannels<Out extends RequestMap, In extends RequestMap>(
  path: string,
  accept: (channel: Channel<Out, In>) => void,
): Promise<Server> {
  const where = socketPath(path);
  rmSync(where, { force: true });
  const server = createServer((socket) => accept(new Channel<Out, In>(socketTransport(socket))));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(where, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

/**
 * `listenChannels` for a socket only this user may open: created under a umask that leaves it
 * 0600 from its first moment, then set to 0600 again (a umask is process-wide and brief).
 */
export async function listenPrivateChannels<Out extends RequestMap, In extends RequestMap>(path: string, accept: (channel: Channel<Out, In>) => void): Promise<Server> {
  makeDirsSync(dirname(socketPath(path)));
  // At a node's first start the workers make the data directory's folders side by side: a socket
  // that cannot be bound at once is tried again for a few seconds before the start fails.
  for (let attempt = 0; ; attempt++) {
    const umask = process.umask(0o177);
    let listening: Promise<Server>;
    try {
      listening = listenChannels<Out, In>(path, accept);
    } finally {
      process.umask(umask);
    }
    try {
      const server = await listening;
      chmodSync(socketPath(path), 0o600);
      return server;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt >= 50 || (code !== "EACCES" && code !== "ENOENT")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Connects to a channel socket, retrying while it does not exist yet (its owner is starting). */
export async function connectChannel<Out extends RequestMap, In extends RequestMap, ON extends NoticeMap = NoticeMap, IN extends NoticeMap = NoticeMap>(
  path: string,
  options: { retryForMs?: number } = {},
): Promise<Channel<Out, In, ON, IN>> {
  const where = socketPath(path);
  const deadline = Date.now() + (options.retryForMs ?? 10_000);
  for (;;) {
    try {
      const socket = await new Promise<Socket>((resolve, reject) => {
        const s = createConnection(where, () => {
          s.off("error", reject);
          resolve(s);
        });
        s.once("error", reject);
      });
      return new Channel<Out, In, ON, IN>(socketTransport(socket));
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
