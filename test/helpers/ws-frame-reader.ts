/**
 * @module Reading a server's unmasked WebSocket frames back out of a byte stream, without a
 * WebSocket library: for the tests and the benchmark's clients, which must read a thousand
 * sockets' frames on the same cores as the node they measure.
 */

/** One frame: its first byte (FIN and opcode: 0x81 a whole text message, 0x88 a close) and its payload. */
export interface ReadFrame {
  readonly op: number;
  readonly payload: Buffer;
}

/** Reads whole frames from `bytes`; `rest` is the start of an incomplete one (keep it for the next chunk). */
export function readFrames(bytes: Buffer): { frames: ReadFrame[]; rest: Buffer } {
  const frames: ReadFrame[] = [];
  let at = 0;
  for (;;) {
    if (bytes.length - at < 2) break;
    const op = bytes[at] as number;
    let length = (bytes[at + 1] as number) & 0x7f;
    let start = at + 2;
    if (length === 126) {
      if (bytes.length - at < 4) break;
      length = bytes.readUInt16BE(at + 2);
      start = at + 4;
    } else if (length === 127) {
      if (bytes.length - at < 10) break;
      length = Number(bytes.readBigUInt64BE(at + 2));
      start = at + 10;
    }
    if (bytes.length < start + length) break;
    frames.push({ op, payload: bytes.subarray(start, start + length) });
    at = start + length;
  }
  return { frames, rest: bytes.subarray(at) };
}
