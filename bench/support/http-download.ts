/**
 * @module A download client for the benchmarks that is not their bottleneck: one HTTP/1.1 `GET`
 * over a plain socket, read into one reused 1 MiB buffer and written to a file as it arrives.
 * (`curl -o` writes its output 8 KiB at a time; on a 2-core machine those writes cost more than the
 * node spends sending.) It reads only what the node sends: a status line, headers, and a body of
 * `Content-Length` bytes, on a connection it then closes.
 *
 *   node bench/support/http-download.ts URL FILE ['name: value'…]
 *
 * Prints the status code and the milliseconds from connecting to the last byte written (so the
 * time this process takes to start is not counted); exits 1 when the answer is not 200 or ends
 * early.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { connect } from "node:net";

const [url, path, ...extra] = process.argv.slice(2);
if (url === undefined || path === undefined) throw new Error("usage: http-download.ts URL FILE ['name: value'…]");
const target = new URL(url);
const fd = openSync(path, "w");
const MAX_HEAD = 64 * 1024;
let head = Buffer.alloc(0);
let status = 0;
let left = -1;

function write(bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
  left -= bytes.length;
  if (left === 0) end();
}

function end(): void {
  finished = performance.now();
  closeSync(fd);
  socket.end();
}

/** Reads the status line and headers; answers the body bytes that came with them, or null for more. */
function readHead(bytes: Buffer): Buffer | null {
  head = Buffer.concat([head, bytes]);
  const end = head.indexOf("\r\n\r\n");
  if (end < 0) {
    if (head.length > MAX_HEAD) throw new Error("the answer's headers are too long");
    return null;
  }
  const lines = head.subarray(0, end).toString("latin1").split("\r\n");
  status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "")?.[1] ?? 0);
  const length = lines.find((line) => /^content-length:/i.test(line))?.split(":")[1]?.trim();
  if (length === undefined || !/^\d+$/.test(length)) throw new Error(`no Content-Length in the answer (${lines[0]})`);
  left = Number(length);
  return head.subarray(end + 4);
}

const started = performance.now();
let finished = 0;
const socket = connect({
  host: target.hostname,
  port: Number(target.port || 80),
  onread: {
    buffer: Buffer.allocUnsafe(1024 * 1024),
    callback: (n: number, buffer: Uint8Array): boolean => {
      const bytes = Buffer.from(buffer.buffer, buffer.byteOffset, n);
      if (left >= 0) {
        write(bytes);
        return true;
      }
      const body = readHead(bytes);
      if (body === null) return true;
      if (left === 0) end();
      else if (body.length > 0) write(Buffer.from(body));
      return true;
    },
  },
});
socket.once("connect", () => {
  const headers = [`GET ${target.pathname}${target.search} HTTP/1.1`, `host: ${target.host}`, "connection: close", ...extra];
  socket.write(`${headers.join("\r\n")}\r\n\r\n`);
});
socket.once("close", () => {
  process.stdout.write(`${status} ${(finished - started).toFixed(1)}`);
  if (status !== 200 || left !== 0) process.exitCode = 1;
});
socket.once("error", (error) => {
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
});
