/**
 * @module The HTTP half shared by the model-provider doubles: a `node:http` server on 127.0.0.1 that
 * answers each request from a queue scripted by the test, records every request it received, and
 * writes a streamed answer frame by frame with the faults a real provider shows (a delay between
 * frames, the socket destroyed halfway, a frame that is not JSON, a stream that stalls). What the
 * frames say is each protocol's business (`openai-double.ts`, `anthropic-double.ts`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How a streamed answer is delivered: the protocol's frames, spoiled as the script says. */
export interface Delivery {
  /** Milliseconds to wait before each frame. */
  delayMs?: number;
  /** Destroy the socket after this many frames (the answer is cut, no end marker). */
  cutAfter?: number;
  /** After this many frames, send one frame whose data is not JSON, then end the response. */
  malformedAfter?: number;
  /** After this many frames, send nothing more and keep the connection open. */
  stallAfter?: number;
  /** Hears the index of each frame just before it is written (a benchmark times the relay from it). */
  onFrame?: (index: number) => void;
}

/** An HTTP error answer: the status, extra headers, and the body (the protocol's error shape by default). */
export interface ErrorReply {
  error: { status: number; headers?: Record<string, string>; body?: unknown; message?: string };
}

/** One request the double received. `closed` settles when its connection closes. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** True when the client closed the connection before the double had finished answering. */
  closedEarly: boolean;
  closed: Promise<void>;
}

/** What a protocol module does with one request: answer it through `res`. */
export type Handler = (req: RecordedRequest, res: ServerResponse, finished: () => void) => void | Promise<void>;

/**
 * A protocol double on its own server: replies queued by the test (`reply`), answered one per
 * request by the protocol's `handle`; `requests` holds what it received.
 */
export abstract class ScriptedDouble<Reply> {
  readonly #server: DoubleServer;
  readonly #queue: Reply[] = [];

  protected constructor(server: DoubleServer) {
    this.#server = server;
  }

  /** Starts a server whose requests go to the double `make` builds on it. */
  protected static async listen<D extends ScriptedDouble<unknown>>(make: (server: DoubleServer) => D): Promise<D> {
    const box: { double?: D } = {};
    const server = await DoubleServer.start((req, res, finished) => box.double!.handle(req, res, finished));
    box.double = make(server);
    return box.double;
  }

  get requests(): RecordedRequest[] {
    return this.#server.requests;
  }

  /** Queues replies, answered in order, one per model request. */
  reply(...replies: Reply[]): this {
    this.#queue.push(...replies);
    return this;
  }

  close(): Promise<void> {
    return this.#server.close();
  }

  /** The server's root URL. */
  protected get serverUrl(): string {
    return this.#server.url;
  }

  /** The next queued reply, or undefined when the test queued none. */
  protected nextReply(): Reply | undefined {
    return this.#queue.shift();
  }

  protected abstract handle(req: RecordedRequest, res: ServerResponse, finished: () => void): void | Promise<void>;
}

/** A running double server. */
export class DoubleServer {
  readonly #server: Server;
  readonly requests: RecordedRequest[] = [];
  url = "";

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Listens on 127.0.0.1 on a free port; `handle` answers every request. */
  static async start(handle: Handler): Promise<DoubleServer> {
    const server = createServer();
    const double = new DoubleServer(server);
    server.on("request", (req, res) => void double.#receive(req, res, handle));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return double;
  }

  async #receive(req: IncomingMessage, res: ServerResponse, handle: Handler): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text; // not JSON: kept as sent, for the test to look at
    }
    let done = false;
    let markClosed = () => {};
    const recorded: RecordedRequest = {
      method: req.method ?? "",
      path: (req.url ?? "").split("?")[0] ?? "",
      headers: req.headers,
      body,
      closedEarly: false,
      closed: new Promise<void>((resolve) => (markClosed = resolve)),
    };
    this.requests.push(recorded);
    res.on("close", () => {
      if (!done) recorded.closedEarly = true;
      markClosed();
    });
    await handle(recorded, res, () => (done = true));
  }

  /** Stops the server and drops every open connection (a stalled stream included). */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Answers `status` with a JSON body. */
export function sendJson(res: ServerResponse, finished: () => void, status: number, body: unknown, headers: Record<string, string> = {}): void {
  finished();
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Writes `frames` (whole SSE events, each ending in a blank line) as an event stream, spoiled as
 * `delivery` says. `malformedFrame` is what a broken frame looks like in this protocol.
 */
export async function sendEventStream(res: ServerResponse, finished: () => void, frames: string[], delivery: Delivery, malformedFrame: string): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  for (let i = 0; i <= frames.length; i++) {
    if (delivery.cutAfter === i) {
      finished();
      res.socket?.destroy();
      return;
    }
    if (delivery.malformedAfter === i) {
      finished();
      res.end(malformedFrame);
      return;
    }
    if (delivery.stallAfter === i) return; // left open: the client gives up, or close() drops it
    const frame = frames[i];
    if (frame === undefined) break;
    if (delivery.delayMs) await new Promise((resolve) => setTimeout(resolve, delivery.delayMs));
    if (res.destroyed) return;
    delivery.onFrame?.(i);
    // Each frame is flushed before the next step, so a cut after N frames has delivered N frames.
    await new Promise<void>((resolve) => res.write(frame, () => resolve()));
  }
  finished();
  res.end();
}

/** One SSE frame: an optional `event:` line, then the data line, then the blank line. */
export function sseFrame(data: string, event?: string): string {
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${data}\n\n`;
}

/** Splits `text` into `parts` nearly equal pieces (at least one character each). */
export function splitInto(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length > 0 ? pieces : [""];
}
