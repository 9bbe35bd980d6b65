/**
 * @module Transports carry batches of channel messages between two processes: a Unix socket with
 * length-prefixed JSON frames, or the parent/child IPC pipe of a forked worker.
 */
import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import type { WireMessage } from "./messages.ts";

/** Moves whole batches; a batch is delivered in order and all at once, or the transport closes. */
export interface Transport {
  send(batch: readonly WireMessage[]): void;
  onBatch(listener: (batch: readonly WireMessage[]) => void): void;
  onClose(listener: () => void): void;
  close(): void;
}

/** Frames batches as 4-byte big-endian length + UTF-8 JSON over a stream socket. */
export function socketTransport(socket: Socket): Transport {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let deliver: (batch: readonly WireMessage[]) => void = () => {};
  socket.setNoDelay(true);
  socket.on("data", (chunk: Buffer) => {
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (pendingBytes < 4) return;
    let buffer = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingBytes);
    let offset = 0;
    while (buffer.length - offset >= 4) {
      const size = buffer.readUInt32BE(offset);
      if (buffer.length - offset - 4 < size) break;
      const json = buffer.toString("utf8", offset + 4, offset + 4 + size);
      offset += 4 + size;
      deliver(JSON.parse(json) as WireMessage[]);
    }
    buffer = buffer.subarray(offset);
    pending = buffer.length > 0 ? [buffer] : [];
    pendingBytes = buffer.length;
  });
  socket.on("error", () => socket.destroy());
  return {
    send(batch) {
      if (socket.destroyed) return;
      // One buffer, written once: the length, then the JSON encoded straight into it.
      const json = JSON.stringify(batch);
      const size = Buffer.byteLength(json, "utf8");
      const frame = Buffer.allocUnsafe(4 + size);
      frame.writeUInt32BE(size, 0);
      frame.write(json, 4, "utf8");
      socket.write(frame);
    },
    onBatch(listener) {
      deliver = listener;
    },
    onClose(listener) {
      socket.on("close", listener);
    },
    close() {
      socket.end();
      socket.destroySoon?.();
    },
  };
}

/** The IPC pipe between a supervisor and a forked worker, seen from either end. */
function ignoreSendError(): void {}

export function ipcTransport(end: ChildProcess | NodeJS.Process): Transport {
  return {
    send(batch) {
      // With a callback, a send that fails (the other end exited while it was under way: EPIPE) is
      // reported there instead of as an 'error' event, which nobody listens to and which would take
      // this process down; the lost batch is the channel's `onClose` to handle.
      if (end.connected && end.send) (end.send as (message: unknown, callback: (error: Error | null) => void) => boolean)(batch, ignoreSendError);
    },
    onBatch(listener) {
      end.on("message", (message: unknown) => {
        if (Array.isArray(message)) listener(message as WireMessage[]);
      });
    },
    onClose(listener) {
      end.on("disconnect", listener);
    },
    close() {
      if (end.connected && "disconnect" in end && typeof end.disconnect === "function") end.disconnect();
    },
  };
}
