/**
 * @module Keeping the HTTP server answering under a flood of connections. Every socket counts
 * against `maxConnections`; when a new one would go over, the oldest connection that is not in the
 * middle of a request (one that has sent nothing yet, sends its headers slowly, or sits idle between
 * keep-alive requests) is closed to make room, and only when every connection is busy with a request
 * is the newcomer closed instead. So thousands of slow or silent sockets cannot keep out a client
 * that sends a whole request — `/health` included — and a request in progress is never cut off.
 *
 * The server's own timeouts bound how long any one connection may hold a place: its headers must
 * arrive within `headersTimeout`, and an idle keep-alive connection closes after
 * `keepAliveTimeout`. Its whole request must arrive within `requestTimeout`, kept here rather than
 * by node:http so that one kind of request may take longer: an upload the route has accepted
 * (`allowLongBody`) may stream for as long as it keeps sending, and its route bounds the pauses.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";

export interface ConnectionGuardOptions {
  readonly maxConnections: number;
  /** Called when a connection is closed to make room (for the log; at most once a second). */
  readonly onShed?: (shed: number) => void;
}

/** The server's timeouts, sized so a silent connection holds its place for seconds, not minutes. */
export const SERVER_TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 60_000, keepAliveTimeout: 5_000 } as const;

const LONG_BODY = Symbol("charter.longBody");

/** Lets `req`'s body take longer than `requestTimeout` (an upload its route now reads and bounds). */
export function allowLongBody(req: IncomingMessage): void {
  (req as IncomingMessage & { [LONG_BODY]?: true })[LONG_BODY] = true;
}

/** Applies the timeouts and the connection cap to `server`; call before it listens. */
export function guardConnections(server: Server, options: ConnectionGuardOptions): void {
  server.headersTimeout = SERVER_TIMEOUTS.headersTimeout;
  // Kept by the request listener below instead (see the module comment).
  server.requestTimeout = 0;
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveTimeout;
  // Sockets in insertion order; a Map keeps it, so the first idle one found is the oldest.
  const idle = new Map<Socket, true>();
  const busy = new Set<Socket>();
  let shed = 0;
  let lastReport = 0;
  const report = () => {
    const now = Date.now();
    if (options.onShed !== undefined && now - lastReport >= 1000) {
      lastReport = now;
      options.onShed(shed);
      shed = 0;
    }
  };

  server.on("connection", (socket: Socket) => {
    if (idle.size + busy.size >= options.maxConnections) {
      const oldest = idle.keys().next();
      shed++;
      if (oldest.done === true) {
        socket.destroy();
        report();
        return;
      }
      idle.delete(oldest.value);
      oldest.value.destroy();
      report();
    }
    idle.set(socket, true);
    socket.once("close", () => {
      idle.delete(socket);
      busy.delete(socket);
    });
  });
  // Ahead of the application: a connection whose headers have arrived is busy until its answer is sent.
  server.prependListener("request", (req: IncomingMessage & { [LONG_BODY]?: true }, res) => {
    const hasBody = req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0";
    if (hasBody && !req.complete) {
      // The whole request within requestTimeout, unless its route took it as a long upload.
      const timer = setTimeout(() => {
        if (!req.complete && req[LONG_BODY] !== true) req.socket.destroy();
      }, SERVER_TIMEOUTS.requestTimeout);
      timer.unref();
      const clear = () => clearTimeout(timer);
      req.once("end", clear);
      res.once("close", clear);
    }
    const socket = req.socket;
    if (!idle.delete(socket) && !busy.has(socket)) return;
    busy.add(socket);
    res.once("close", () => {
      if (socket.destroyed || !busy.delete(socket)) return;
      // Idle again, and now the newest: a keep-alive connection goes to the back of the line.
      idle.set(socket, true);
    });
  });
}
