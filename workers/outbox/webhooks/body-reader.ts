/**
 * @module Reading a webhook's body whole, within a size limit and a deadline: a body announced or
 * found larger than the limit stops being read at once (413), one that has not arrived in time is
 * given up (408), and a sender that goes away frees what was read.
 */
import type { IncomingMessage } from "node:http";

/** What reading came to: the bytes, or the status to answer with. */
export type BodyRead = { readonly ok: true; readonly body: Buffer } | { readonly ok: false; readonly status: 408 | 413 | 400 };

/** Reads `req`'s body: at most `limit` bytes, all of it within `deadlineMs`. */
export function readBody(req: IncomingMessage, limit: number, deadlineMs: number): Promise<BodyRead> {
  const announced = req.headers["content-length"];
  if (announced !== undefined && Number(announced) > limit) return Promise.resolve({ ok: false, status: 413 });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: BodyRead) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onError);
      if (!result.ok) {
        // Nothing more is wanted from this request: what is buffered goes, and the rest is not read.
        chunks.length = 0;
        req.pause();
      }
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return finish({ ok: false, status: 413 });
      chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, status: 400 });
    const timer = setTimeout(() => finish({ ok: false, status: 408 }), deadlineMs);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onError);
  });
}
