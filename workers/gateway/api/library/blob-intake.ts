/**
 * @module Taking in an upload's bytes without holding them. A socket hands over chunks of at most
 * 64 KiB; they are copied into a few reused slots, and each full slot goes to the sink (written to
 * the file and hashed, off the event loop: blob-writer.ts) and is reused once the sink is done with
 * it. So the disk sees few large writes, and an upload holds its slots and nothing more however long
 * it is: when every slot is busy the source is paused until one is free. The slots are freed as
 * soon as the intake ends.
 *
 * A chunk a socket made for this reader alone (`releaseChunks`) has its memory freed as soon as it is
 * copied. Left to the garbage collector, those chunks pile up: V8 collects them only once they add
 * up to about 64 MB, so an upload would grow the gateway by that much and spend its time in full
 * collections. Freeing each one at once keeps the memory flat, and the same few pages hot.
 */
import type { Readable } from "node:stream";

/** The source stopped before its end (the client went away). */
export class BlobCut extends Error {}

export interface IntakeOptions {
  /** Takes the first `length` bytes of `slot`, in order; answers the slot to fill next (the same memory). */
  readonly sink: (slot: Buffer, length: number) => Promise<Buffer>;
  /** Makes a slot (all of one size, each a whole `ArrayBuffer` of its own: they are freed at the end). */
  readonly slot: () => Buffer;
  /** The most slots at once. */
  readonly slots: number;
  /** Called with the bytes taken so far as each chunk arrives; throws to refuse the upload. */
  readonly check: (size: number) => void;
  /** The source's chunks are this reader's alone: each is freed once copied (see the module comment). */
  readonly releaseChunks: boolean;
  readonly signal?: AbortSignal;
}

/**
 * Reads `source` to its end into the sink; answers how many bytes it took. Rejects with the check's
 * error, a `BlobCut` when the source ends early or fails, the signal's reason, or the sink's error,
 * and only once the sink holds no slot. The source is left open (paused) after a refusal, so the
 * caller can still answer on its connection.
 */
export function intake(source: Readable, options: IntakeOptions): Promise<number> {
  const { sink, check, signal } = options;
  return new Promise((resolve, reject) => {
    const free: Buffer[] = [];
    let made = 0;
    let slot: Buffer | null = null;
    let fill = 0;
    let size = 0;
    let inSink = 0;
    let ended = false;
    let failure: { error: unknown } | null = null;
    let settled = false;
    /** Chunks (or what is left of one) waiting for a slot, oldest first. */
    const waiting: { chunk: Buffer; from: number }[] = [];

    const submit = () => {
      const full = slot as Buffer;
      const length = fill;
      slot = null;
      fill = 0;
      inSink += 1;
      sink(full, length).then(
        (back) => {
          inSink -= 1;
          free.push(back);
          pump();
        },
        (error: unknown) => {
          inSink -= 1;
          fail(error);
        },
      );
    };
    /** Copies what is left of `entry` into slots; false when none is free. */
    const copy = (entry: { chunk: Buffer; from: number }): boolean => {
      while (entry.from < entry.chunk.length) {
        slot ??= free.pop() ?? (made < options.slots ? (made++, options.slot()) : null);
        if (slot === null) return false;
        const n = entry.chunk.copy(slot, fill, entry.from);
        entry.from += n;
        fill += n;
        if (fill === slot.length) submit();
      }
      if (options.releaseChunks) release(entry.chunk, true);
      return true;
    };
    const pump = () => {
      if (failure !== null) return finish();
      while (waiting.length > 0) {
        if (!copy(waiting[0] as { chunk: Buffer; from: number })) return;
        waiting.shift();
      }
      if (!ended) return void source.resume();
      if (fill > 0) submit();
      finish();
    };
    const finish = () => {
      if (settled || inSink > 0) return;
      if (failure === null && !(ended && waiting.length === 0 && fill === 0)) return;
      settled = true;
      stop();
      // The slots go now rather than when the collector gets to them.
      for (const unused of [...free, ...(slot === null ? [] : [slot])]) release(unused, false);
      if (failure === null) resolve(size);
      else reject(failure.error);
    };
    const fail = (error: unknown) => {
      if (failure === null) {
        failure = { error };
        stop();
        waiting.length = 0;
      }
      finish();
    };

    const onData = (chunk: Buffer) => {
      if (failure !== null) return;
      size += chunk.length;
      try {
        check(size);
      } catch (error) {
        return fail(error);
      }
      const entry = { chunk, from: 0 };
      if (waiting.length === 0 && copy(entry)) return;
      waiting.push(entry);
      source.pause();
    };
    const onEnd = () => {
      ended = true;
      pump();
    };
    const onCut = () => {
      if (!ended) fail(new BlobCut("the upload ended before the file did"));
    };
    const onAbort = () => fail(signal?.reason ?? new Error("the upload was given up"));
    const stop = () => {
      source.off("data", onData);
      source.off("end", onEnd);
      source.off("error", onCut);
      source.off("close", onCut);
      signal?.removeEventListener("abort", onAbort);
      if (!ended) source.pause();
    };

    if (signal?.aborted === true) return onAbort();
    source.on("data", onData);
    source.once("end", onEnd);
    source.once("error", onCut);
    source.once("close", onCut);
    signal?.addEventListener("abort", onAbort, { once: true });
    source.resume();
  });
}

/**
 * Frees `bytes`' memory (`later`: once the event that delivered it is over, so every listener saw
 * it whole), when it spans its whole buffer; a part of a larger buffer is left to the collector.
 */
function release(bytes: Buffer, later: boolean): void {
  const memory = bytes.buffer;
  if (!(memory instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== memory.byteLength) return;
  const free = () => {
    try {
      memory.transfer(0);
    } catch {
      // Not detachable (memory the runtime keeps): the collector frees it.
    }
  };
  if (later) queueMicrotask(free);
  else free();
}
