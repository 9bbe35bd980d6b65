/**
 * @module The benchmarks' HTTP load generator: raw HTTP/1.1 on keep-alive sockets, one per client;
 * each request's bytes are built when it is signed, and an answer is parsed only as far as its
 * status, length and first bytes. node:http's Agent costs ~95 µs of CPU per request here and
 * undici is not installed; this costs a fraction of that, which matters because the generator
 * shares the 2 cores with the server it measures.
 */
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";

/** A whole HTTP/1.1 request, ready to write. */
export interface Req {
  readonly bytes: Buffer;
}

/** A signed command posted to its action's path. */
export function req(path: string, jws: string): Req {
  return httpPost(path, JSON.stringify({ command: jws }));
}

/** Any JSON body posted to `path`. */
export function httpPost(path: string, body: string): Req {
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return { bytes: Buffer.from(head + body, "utf8") };
}

export interface RunResult {
  readonly count: number;
  readonly seconds: number;
  readonly perS: number;
  readonly latencies: number[];
  readonly status2xx: number;
  readonly status422: number;
  readonly bad: number;
  readonly firstBad: string | null;
  /** CPU time per request, µs, by process name (the generator itself is `generator`). */
  readonly cpuUsPerReq: Record<string, number>;
}

/** utime + stime of a process (all its threads), in ms. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

interface Answer {
  readonly status: number;
  /** The first bytes of the body (up to 64). */
  readonly head: Buffer;
  readonly close: boolean;
}

const HEADER_END = Buffer.from("\r\n\r\n");

/** One keep-alive HTTP/1.1 connection that sends pre-built requests one at a time. */
export class Client {
  readonly #port: number;
  #socket: Socket | null = null;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void } | null = null;

  constructor(port: number) {
    this.#port = port;
  }

  send(bytes: Buffer): Promise<Answer> {
    const socket = this.#socket ?? this.#connect();
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      socket.write(bytes);
    });
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = null;
  }

  #connect(): Socket {
    const socket = connect({ host: "127.0.0.1", port: this.#port, noDelay: true });
    socket.on("data", (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#parse();
    });
    const fail = (error: Error) => {
      const w = this.#waiting;
      this.#waiting = null;
      this.#socket = null;
      this.#buffer = Buffer.alloc(0);
      w?.reject(error);
    };
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("the server closed the connection with a request in flight")));
    this.#socket = socket;
    return socket;
  }

  #parse(): void {
    const buf = this.#buffer;
    const end = buf.indexOf(HEADER_END);
    if (end < 0) return;
    const head = buf.toString("latin1", 0, end).toLowerCase();
    const status = Number(head.slice(9, 12));
    const bodyStart = end + 4;
    let bodyEnd: number;
    let first: Buffer;
    const length = /\r\ncontent-length: *(\d+)/.exec(head);
    if (length !== null) {
      bodyEnd = bodyStart + Number(length[1]);
      if (buf.length < bodyEnd) return;
      first = Buffer.from(buf.subarray(bodyStart, Math.min(bodyEnd, bodyStart + 64)));
    } else if (/\r\ntransfer-encoding: *chunked/.test(head)) {
      const parts: Buffer[] = [];
      let at = bodyStart;
      for (;;) {
        const lineEnd = buf.indexOf("\r\n", at);
        if (lineEnd < 0) return;
        const size = parseInt(buf.toString("latin1", at, lineEnd), 16);
        if (buf.length < lineEnd + 2 + size + 2) return;
        if (size === 0) {
          const trailerEnd = buf.indexOf(HEADER_END, lineEnd - 2);
          if (trailerEnd < 0) return;
          bodyEnd = trailerEnd + 4;
          break;
        }
        parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      first = Buffer.concat(parts).subarray(0, 64);
    } else {
      bodyEnd = bodyStart;
      first = Buffer.alloc(0);
    }
    this.#buffer = bodyEnd < buf.length ? buf.subarray(bodyEnd) : Buffer.alloc(0);
    const close = /\r\nconnection: *close/.test(head);
    const w = this.#waiting;
    this.#waiting = null;
    if (close) this.close();
    w?.resolve({ status, head: first, close });
  }
}

const RECEIPT_PREFIX = Buffer.from('{"receipt":');

/**
 * Sends every request with `inFlight` (64) concurrent clients, each on its own keep-alive connection,
 * and times each. `receipts`: every answer must be a 200/422 receipt; otherwise a 2xx suffices.
 */
export async function drive(port: number, reqs: readonly Req[], options: { receipts: boolean; pids?: Record<string, number>; inFlight?: number }): Promise<RunResult> {
  const latencies = new Array<number>(reqs.length);
  let next = 0;
  let status2xx = 0;
  let status422 = 0;
  let bad = 0;
  let firstBad: string | null = null;
  const clients = Array.from({ length: options.inFlight ?? 64 }, () => new Client(port));
  const pids = { ...options.pids, generator: process.pid };
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next < reqs.length) {
        const i = next++;
        const t0 = performance.now();
        const { status, head } = await client.send((reqs[i] as Req).bytes);
        latencies[i] = performance.now() - t0;
        const isReceipt = head.subarray(0, RECEIPT_PREFIX.length).equals(RECEIPT_PREFIX);
        const good = options.receipts ? (status === 200 || status === 422) && isReceipt : status >= 200 && status < 300;
        if (!good) {
          bad++;
          firstBad ??= `HTTP ${status}: ${head.toString("utf8")}…`;
        } else if (status === 422) status422++;
        else status2xx++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuUsPerReq = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ((cpuMs(pid) - (cpuBefore[name] as number)) * 1000) / reqs.length]));
  for (const c of clients) c.close();
  latencies.sort((a, b) => a - b);
  return { count: reqs.length, seconds, perS: reqs.length / seconds, latencies, status2xx, status422, bad, firstBad, cpuUsPerReq };
}

