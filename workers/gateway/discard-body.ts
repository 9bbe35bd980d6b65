/**
 * @module Answering an over-limit body without resetting the connection. A server that answers 413
 * and closes while the client is still sending makes the kernel reset the connection, and the
 * client sees a failed write (EPIPE, ECONNRESET) instead of the problem document. So the rest of a
 * body that is not too far over the limit is read and thrown away first, within a time bound;
 * then the connection can even carry the client's next request.
 */
import type { IncomingMessage } from "node:http";

/** The most bytes of an over-limit body read and thrown away before answering. */
export const DISCARD_MAX_BYTES = 8 * 1024 * 1024;
/** The longest wait for the rest of such a body. */
export const DISCARD_MAX_MS = 5000;

/**
 * Reads the rest of `req`'s body and throws it away; true once it has all arrived, false when it
 * would be more than DISCARD_MAX_BYTES in all (`read` bytes already were), takes longer than
 * DISCARD_MAX_MS, or the client goes away. After false, answer with `Connection: close`.
 */
export function discardBody(req: IncomingMessage, read = 0): Promise<boolean> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number.parseInt(declared, 10) > DISCARD_MAX_BYTES) return Promise.resolve(false);
  if (req.readableEnded) return Promise.resolve(true);
  if (req.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let size = read;
    const done = (complete: boolean) => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("close", onClose);
      if (!complete) req.pause();
      resolve(complete);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > DISCARD_MAX_BYTES) done(false);
    };
    const onEnd = () => done(true);
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), DISCARD_MAX_MS);
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("close", onClose);
    req.resume();
  });
}
