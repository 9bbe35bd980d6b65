/**
 * @module Draining an HTTP server without dropping a request that is already on its way.
 *
 * `http.Server.close()` stops listening and at once destroys every connection that has no request
 * in progress — including one the kernel accepted whose request bytes the server has not parsed
 * yet. Its client sees ECONNRESET for a request it sent before the stop. Here, instead:
 * - connections waiting in the kernel's accept queue are taken, then the listening socket closes;
 * - a request in progress finishes, and its response carries `Connection: close`;
 * - an idle keep-alive connection that has already carried a request is closed at once (a client
 *   reusing such a connection handles a close, as it must for any keep-alive timeout);
 * - a connection that has not yet carried a request gets up to `graceMs` for one to arrive;
 * - the promise settles when every connection is gone.
 */
import type { Server } from "node:http";
import { Server as NetServer, type Socket } from "node:net";

interface Tracked {
  active: number;
  served: boolean;
}

export interface GracefulCloser {
  /** Stops accepting and resolves once every connection has ended. */
  close(graceMs?: number): Promise<void>;
}

const SWEEP_MS = 25;
/** At most this long taking connections from the accept queue once draining starts. */
const ACCEPT_MS = 500;

/** Start tracking `server`'s connections; call before it listens. */
export function gracefulCloser(server: Server): GracefulCloser {
  const sockets = new Map<Socket, Tracked>();
  let draining = false;
  let accepted = 0;

  server.on("connection", (socket: Socket) => {
    accepted += 1;
    sockets.set(socket, { active: 0, served: false });
    socket.once("close", () => sockets.delete(socket));
  });
  // Runs before the application's handler, so the header is set before it writes its response.
  server.prependListener("request", (req, res) => {
    const tracked = sockets.get(req.socket);
    if (tracked === undefined) return;
    tracked.active += 1;
    tracked.served = true;
    if (draining) res.setHeader("connection", "close");
    res.once("close", () => {
      tracked.active -= 1;
    });
  });

  const sweep = (all: boolean): void => {
    for (const [socket, tracked] of sockets) {
      if (tracked.active === 0 && (tracked.served || all)) socket.destroy();
    }
  };

  return {
    async close(graceMs = 1000) {
      draining = true;
      // A connection whose handshake completed waits in the kernel's accept queue until the event
      // loop takes it, about one per turn; closing the listening socket first would reset those
      // (their clients see ECONNRESET). So turn the loop while connections keep coming.
      const deadline = Date.now() + ACCEPT_MS;
      for (let seen = -1; seen !== accepted && Date.now() < deadline; ) {
        seen = accepted;
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setImmediate(resolve));
      }
      // net.Server's close: stop listening, but leave open connections to us (http's would destroy idle ones).
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      const started = Date.now();
      sweep(false);
      const timer = setInterval(() => sweep(Date.now() - started >= graceMs), SWEEP_MS);
      try {
        await closed;
      } finally {
        clearInterval(timer);
      }
    },
  };
}
