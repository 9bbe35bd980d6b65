/**
 * @module The engine's admin socket, `DATA/admin.sock` (mode 0600: only the user running the node
 * may connect): operators' `charter tenant|install|contracts` commands and the gateway's tenant
 * routes reach the only writer through it. A stale socket file from a killed node is replaced.
 */
import { chmodSync } from "node:fs";
import type { Server, Socket } from "node:net";
import type { Channel } from "../../shared/channel/channel.ts";
import { listenChannels, socketPath } from "../../shared/channel/socket.ts";
import type { AdminRequests } from "../../shared/protocol/admin.ts";
import { adminHandlers, type AdminDeps, type AdminHandlers } from "./admin-ops.ts";

export type AdminChannel = Channel<Record<string, never>, AdminRequests>;

/** Registers every admin request handler (see `adminHandlers`) on a newly connected channel. */
export function serveAdmin(channel: AdminChannel, handlers: AdminHandlers): void {
  channel.handleAll(handlers);
}

/** A listening admin socket; `close` stops accepting, sends the replies already made, and ends the open connections. */
export interface AdminServer {
  readonly server: Server;
  close(): Promise<void>;
}

/** Listens on `path` with mode 0600 and serves the admin operations over `deps`. */
/** `handlers` replaces the plain ones (a replicated voter sends the writes through its log). */
export async function startAdminSocket(path: string, deps: AdminDeps, handlers: AdminHandlers = adminHandlers(deps)): Promise<AdminServer> {
  const channels = new Set<AdminChannel>();
  // The socket is created by bind() with the umask's mode; narrow it for that instant, then chmod to be sure.
  const umask = process.umask(0o177);
  let listening: Promise<Server>;
  try {
    listening = listenChannels<Record<string, never>, AdminRequests>(path, (channel) => {
      channels.add(channel);
      channel.onClose(() => channels.delete(channel));
      serveAdmin(channel, handlers);
    });
  } finally {
    process.umask(umask);
  }
  const server = await listening;
  chmodSync(socketPath(path), 0o600);
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return {
    server,
    async close() {
      server.close();
      await new Promise((r) => setImmediate(r));
      for (const c of channels) c.flush();
      for (const s of sockets) s.end();
    },
  };
}
