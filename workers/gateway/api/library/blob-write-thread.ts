/**
 * @module The upload thread of the blob store (blob-writer.ts starts it): hashes each slot of an
 * upload with SHA-256 and writes it to the upload's file, off the gateway's event loop, then hands
 * the slot back (its memory moved, never copied, both ways). The messages of one job are answered
 * in order. A write that fails answers the errno code, so the upload can say why (a full disk).
 *
 * The thread runs the source text of `writeThread` as plain JavaScript (the types are stripped
 * before the text exists), not this module: a thread given a `.ts` file loads the type stripper
 * again, which took 90 ms and 19 MB more per thread (125 ms and 40 MB in all, against 35 ms and
 * 21 MB). So the function takes its modules from the process, never from imports.
 */
import type { WriteReply, WriteRequest } from "./blob-writer.ts";

/** The thread's code (see the module comment): answers each request of blob-writer.ts. */
export function writeThread(): void {
  const { createHash } = process.getBuiltinModule("node:crypto");
  const { writeSync } = process.getBuiltinModule("node:fs");
  const { parentPort } = process.getBuiltinModule("node:worker_threads");
  const port = parentPort;
  if (port === null) throw new Error("writeThread runs as a worker thread");
  const hashes = new Map<number, ReturnType<typeof createHash>>();

  port.on("message", (request: WriteRequest) => {
    switch (request.type) {
      case "write": {
        let hash = hashes.get(request.job);
        if (hash === undefined) hashes.set(request.job, (hash = createHash("sha256")));
        const bytes = new Uint8Array(request.bytes, 0, request.length);
        hash.update(bytes);
        try {
          for (let done = 0; done < bytes.length; ) done += writeSync(request.fd, bytes, done, bytes.length - done, request.position + done);
        } catch (error) {
          const { code, message } = error as NodeJS.ErrnoException;
          port.postMessage({ type: "failed", job: request.job, bytes: request.bytes, code: code ?? "EIO", message } satisfies WriteReply, [request.bytes]);
          return;
        }
        port.postMessage({ type: "written", job: request.job, bytes: request.bytes } satisfies WriteReply, [request.bytes]);
        return;
      }
      case "digest": {
        const hash = hashes.get(request.job) ?? createHash("sha256");
        hashes.delete(request.job);
        port.postMessage({ type: "digested", job: request.job, sha256: hash.digest("hex") } satisfies WriteReply);
        return;
      }
      case "drop":
        hashes.delete(request.job);
        return;
      default:
        throw new Error(`unknown request ${(request as { type: string }).type}`);
    }
  });
}
