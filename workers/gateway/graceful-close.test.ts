import assert from "node:assert/strict";
import { Agent, createServer, request } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { test } from "node:test";
import { gracefulCloser } from "./graceful-close.ts";

async function start(handler: (url: string) => Promise<void> | void = () => {}) {
  const server = createServer(async (req, res) => {
    await handler(req.url ?? "");
    res.end("ok");
  });
  const closer = gracefulCloser(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, closer, port: (server.address() as AddressInfo).port };
}

function get(port: number, path: string, agent?: Agent): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: agent ?? false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("a connection accepted before the stop whose request arrives after it is answered", async () => {
  const { server, closer, port } = await start();
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((r) => socket.once("connect", () => r()));
  // The server has accepted the connection; no byte of the request has been sent.
  await new Promise((r) => setImmediate(r));
  const closed = closer.close(2000);
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
  const ended = new Promise<void>((r) => socket.once("close", () => r()));
  socket.write("GET /late HTTP/1.1\r\nHost: x\r\n\r\n");
  await ended;
  await closed;
  assert.match(answer, /^HTTP\/1\.1 200 OK/);
  assert.match(answer, /\r\nConnection: close\r\n/i);
  assert.equal(server.listening, false);
});

test("a request in progress finishes with Connection: close; an idle keep-alive connection is closed at once", async () => {
  let release!: () => void;
  const slow = new Promise<void>((r) => (release = r));
  const { closer, port } = await start((url) => (url === "/slow" ? slow : undefined));
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  // One keep-alive connection that has served a request and now sits idle.
  assert.equal((await get(port, "/first", agent)).status, 200);
  const inProgress = get(port, "/slow");
  await new Promise((r) => setTimeout(r, 20));
  let settled = false;
  const closed = closer.close(60_000).then(() => (settled = true));
  // The idle keep-alive connection goes without waiting for the grace; the slow request holds the close.
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(settled, false);
  release();
  assert.deepEqual(await inProgress, { status: 200, connection: "close" });
  await closed;
  agent.destroy();
});

test("a connection that never sends a request is closed when the grace ends", async () => {
  const { closer, port } = await start();
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((r) => socket.once("connect", () => r()));
  await new Promise((r) => setImmediate(r));
  const ended = new Promise<void>((r) => socket.once("close", () => r()));
  await closer.close(50);
  await ended;
});

test("connections still in the kernel's accept queue when the stop comes are taken and answered", async () => {
  const { closer, port } = await start();
  const answers = Array.from(
    { length: 50 },
    () =>
      new Promise<string>((resolve) => {
        const socket = connect(port, "127.0.0.1");
        let answer = "";
        socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
        socket.on("error", (error) => resolve(error.message));
        socket.on("close", () => resolve(answer));
        // Buffered until connected, then sent at once.
        socket.write("GET /queued HTTP/1.1\r\nHost: x\r\n\r\n");
      }),
  );
  // Without turning the event loop: the kernel completes every handshake and queues the connections.
  const until = Date.now() + 150;
  while (Date.now() < until);
  const closed = closer.close(2000);
  const all = await Promise.all(answers);
  await closed;
  assert.deepEqual(
    all.map((a) => a.slice(0, 15)),
    all.map(() => "HTTP/1.1 200 OK"),
  );
});
