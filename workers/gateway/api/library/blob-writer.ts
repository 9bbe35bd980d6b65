/**
 * @module Writing and hashing an upload off the event loop. SHA-256 runs at about the speed bytes
 * arrive, and writing them to the page cache costs a good part of that again: done in the event
 * loop, they would halve an upload's speed and hold up every other request meanwhile. So one
 * thread (blob-write-thread.ts) does both for every upload of the store: each full slot is moved to
 * it (not copied), hashed, written at its offset, and moved back to be filled again.
 *
 * The thread starts with the first upload that needs it and stops after IDLE_MS without one (an
 * idle node need not keep its memory). An upload declared at most IN_PROCESS_BYTES long is hashed
 * in the event loop and written by libuv's threads, where a thread of its own would cost more than
 * it saves. If the thread dies, every job it held fails (its upload stores nothing) and the next
 * job starts a new thread.
 */
import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import { writeThread } from "./blob-write-thread.ts";

/** What the event loop asks of the thread; each `write` and `digest` gets one reply, in order. */
export type WriteRequest = { type: "write"; job: number; fd: number; position: number; bytes: ArrayBuffer; length: number } | { type: "digest"; job: number } | { type: "drop"; job: number };
/** The thread's replies: a slot's memory moved back, written or not (with the errno code), or a digest. */
export type WriteReply = { type: "written"; job: number; bytes: ArrayBuffer } | { type: "failed"; job: number; bytes: ArrayBuffer; code: string; message: string } | { type: "digested"; job: number; sha256: string };

/** The writing and hashing of one upload, slot after slot. */
export interface WriteJob {
  /**
   * Hashes the first `length` bytes of `slot` and writes them after the previous ones; answers the
   * slot to fill next (the same memory; `slot` itself may be emptied meanwhile). A slot is a whole
   * `ArrayBuffer` of its own.
   */
  write(slot: Buffer, length: number): Promise<Buffer>;
  /** The digest of every byte written, in lower-case hex; ends the job. */
  digest(): Promise<string>;
  /** Ends the job without a digest (its upload was given up). */
  drop(): void;
}

/** Uploads declared at most this long are hashed in the event loop (well under a millisecond). */
export const IN_PROCESS_BYTES = 1024 * 1024;
/** How long the thread is kept without a job. */
const IDLE_MS = 30_000;

interface Waiting {
  readonly resolve: (reply: WriteReply) => void;
  readonly reject: (error: Error) => void;
}

export class BlobWriter {
  #thread: Worker | null = null;
  /** Each job's requests waiting for their reply, oldest first. */
  readonly #jobs = new Map<number, Waiting[]>();
  #next = 0;
  #idle: NodeJS.Timeout | null = null;

  /** A job writing to the file `opened` will be, for an upload of `declared` bytes (null: not declared). */
  job(opened: Promise<FileHandle>, declared: number | null): WriteJob {
    if (declared !== null && declared <= IN_PROCESS_BYTES) return inProcess(opened);
    const thread = this.#start();
    const job = ++this.#next;
    this.#jobs.set(job, []);
    let position = 0;
    const ask = (request: WriteRequest, transfer: ArrayBuffer[] = []) =>
      new Promise<WriteReply>((resolve, reject) => {
        const waiting = this.#jobs.get(job);
        if (waiting === undefined) return reject(new Error("the upload's writing has ended"));
        waiting.push({ resolve, reject });
        thread.postMessage(request, transfer);
      });
    return {
      write: async (slot, length) => {
        const bytes = slot.buffer;
        if (!(bytes instanceof ArrayBuffer) || slot.byteOffset !== 0 || slot.length !== bytes.byteLength) throw new Error("a slot is a whole ArrayBuffer");
        const at = position;
        position += length;
        const { fd } = await opened;
        const reply = await ask({ type: "write", job, fd, position: at, bytes, length }, [bytes]);
        if (reply.type === "failed") throw Object.assign(new Error(reply.message), { code: reply.code });
        if (reply.type !== "written") throw new Error(`unexpected reply ${reply.type}`);
        return Buffer.from(reply.bytes);
      },
      digest: async () => {
        const reply = await ask({ type: "digest", job });
        this.#end(job);
        if (reply.type !== "digested") throw new Error(`unexpected reply ${reply.type}`);
        return reply.sha256;
      },
      drop: () => {
        if (!this.#jobs.has(job)) return;
        this.#end(job, new Error("the upload was given up"));
        thread.postMessage({ type: "drop", job } satisfies WriteRequest);
      },
    };
  }

  /** Stops the thread now (jobs still running fail). */
  async close(): Promise<void> {
    if (this.#idle !== null) clearTimeout(this.#idle);
    const thread = this.#thread;
    this.#stopped(thread, new Error("the blob store closed"));
    await thread?.terminate();
  }

  #start(): Worker {
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#idle = null;
    if (this.#thread !== null) {
      this.#thread.ref();
      return this.#thread;
    }
    const thread = new Worker(`(${writeThread.toString()})();`, { eval: true, name: "blob-write", stdout: false, stderr: false });
    thread.on("message", (reply: WriteReply) => this.#jobs.get(reply.job)?.shift()?.resolve(reply));
    thread.on("error", (error) => this.#stopped(thread, error));
    thread.on("exit", (code) => this.#stopped(thread, new Error(`the upload thread stopped (exit ${code})`)));
    this.#thread = thread;
    return thread;
  }

  /** `thread` is gone: every job it held fails. */
  #stopped(thread: Worker | null, error: Error): void {
    if (thread === null || this.#thread !== thread) return;
    this.#thread = null;
    for (const waiting of this.#jobs.values()) for (const w of waiting.splice(0)) w.reject(error);
    this.#jobs.clear();
  }

  #end(job: number, error?: Error): void {
    for (const w of this.#jobs.get(job)?.splice(0) ?? []) w.reject(error ?? new Error("the upload's writing has ended"));
    this.#jobs.delete(job);
    if (this.#jobs.size > 0 || this.#thread === null) return;
    // Idle: the thread no longer keeps the process alive, and goes if no job comes.
    const thread = this.#thread;
    thread.unref();
    this.#idle = setTimeout(() => {
      this.#idle = null;
      this.#stopped(thread, new Error("the upload thread was idle"));
      void thread.terminate();
    }, IDLE_MS);
    this.#idle.unref();
  }
}

/** A job done from the event loop: hashed here, written by libuv's threads. */
function inProcess(opened: Promise<FileHandle>): WriteJob {
  const hash = createHash("sha256");
  let position = 0;
  return {
    write: async (slot, length) => {
      const at = position;
      position += length;
      hash.update(slot.subarray(0, length));
      const file = await opened;
      for (let done = 0; done < length; ) done += (await file.write(slot, done, length - done, at + done)).bytesWritten;
      return slot;
    },
    digest: () => Promise.resolve(hash.digest("hex")),
    drop: () => {},
  };
}
