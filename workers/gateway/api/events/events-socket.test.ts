import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { silentLogger } from "../../../../shared/log.ts";
import { problem } from "../../../../shared/problem.ts";
import { hostCheck } from "../../host-check.ts";
import type { SessionRecord } from "../account/account-store.ts";
import { type EventClient, type EventSocketLimits, EventSockets, type EventSource, isEventsTarget, isWebSocketUpgrade, upgradeListener } from "./events-socket.ts";
import { frameJson, wireFrames } from "./frames.ts";

const ORIGIN = "http://localhost:8787";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function session(id: string, scope: SessionRecord["scope"] = "full"): SessionRecord {
  return { id, scope, createdAt: 0, lastSeenAt: 0, userAgent: "", steppedUpUntil: 0, stepUpEvidence: null, endedAt: null };
}

/** A source that keeps its clients and refuses a query with `bad`. */
class TestSource implements EventSource {
  readonly clients: EventClient[] = [];
  closed = false;
  check(query: URLSearchParams) {
    return query.has("bad") ? problem(400, "bad-parameters", "bad is bad") : null;
  }
  open(client: EventClient): void {
    this.clients.push(client);
  }
  close(): void {
    this.closed = true;
  }
}

interface Node {
  readonly server: Server;
  readonly url: string;
  readonly sockets: EventSockets;
  readonly source: TestSource;
  /** token → session; delete one to end it. */
  readonly sessions: Map<string, SessionRecord>;
}

async function startNode(limits: EventSocketLimits = {}, started = true): Promise<Node> {
  const sessions = new Map([
    ["full", session("s-full")],
    ["other", session("s-other")],
    ["recovery", session("s-recovery", "recovery")],
  ]);
  const source = new TestSource();
  const sockets = new EventSockets({ origin: ORIGIN, session: (t) => (t === null ? null : (sessions.get(t) ?? null)), sources: [source], log: silentLogger, ...limits });
  const server = createServer({ shouldUpgradeCallback: isWebSocketUpgrade }, (_req, res) => res.end("plain"));
  server.on("upgrade", upgradeListener({ isOwnHost: hostCheck([]), events: () => (started ? sockets : null), log: silentLogger }));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, sockets, source, sessions };
}

async function stopNode(node: Node): Promise<void> {
  node.sockets.close();
  node.server.closeAllConnections();
  node.server.close();
}

/** Opens a socket; answers the open socket, or the refusal's status, headers and body. */
async function attempt(url: string, headers: Record<string, string> = {}, options: { autoPong?: boolean } = {}) {
  const ws = new WebSocket(url, { headers, ...options });
  return new Promise<{ ws: WebSocket } | { status: number; type: string; body: any; setCookie: string | undefined }>((resolve, reject) => {
    ws.on("open", () => resolve({ ws }));
    ws.on("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body: text === "" ? null : JSON.parse(text), setCookie: res.headers["set-cookie"]?.[0] }));
    });
    ws.on("error", reject);
  });
}

async function opened(url: string, headers: Record<string, string> = { cookie: "charter_session=full" }, options: { autoPong?: boolean } = {}): Promise<WebSocket> {
  const r = await attempt(url, headers, options);
  assert.ok("ws" in r, JSON.stringify(r));
  return r.ws;
}

const closed = (ws: WebSocket) => once(ws, "close").then(([code, reason]) => ({ code: code as number, reason: String(reason) }));

describe("the /api/events socket", () => {
  let node: Node;
  before(async () => {
    node = await startNode({ sessionCheckMs: 50 });
  });
  after(() => stopNode(node));

  it("refuses at the upgrade with problem documents: Origin first, then the session, then the query", async () => {
    const url = `${node.url}/api/events`;
    const cases: [string, Record<string, string>, number, string][] = [
      [url, { cookie: "charter_session=full", origin: "https://evil.example" }, 403, "bad-origin"],
      [url, { origin: "https://evil.example" }, 403, "bad-origin"],
      [url, {}, 401, "unauthenticated"],
      [url, { cookie: "charter_session=gone" }, 401, "unauthenticated"],
      [url, { cookie: "charter_session=recovery" }, 403, "limited-session"],
      [`${url}?bad=1`, { cookie: "charter_session=full" }, 400, "bad-parameters"],
      [`${url}?bad=1`, {}, 401, "unauthenticated"],
      [`${node.url}/api/other`, { cookie: "charter_session=full" }, 404, "not-found"],
      [url, { cookie: "charter_session=full", host: "evil.example" }, 421, "misdirected-request"],
    ];
    for (const [target, headers, status, code] of cases) {
      const r = await attempt(target, headers);
      assert.ok("status" in r, `${target} ${JSON.stringify(headers)} opened`);
      assert.deepEqual([r.status, r.body.code, r.body.type, r.body.status], [status, code, `urn:charter:problem:${code}`, status], JSON.stringify(headers));
      assert.equal(r.type, "application/problem+json");
      assert.equal(typeof r.body.title, "string");
      assert.equal(typeof r.body.detail, "string");
    }
    const stale = await attempt(url, { cookie: "charter_session=gone" });
    assert.ok("status" in stale);
    assert.match(String(stale.setCookie), /^charter_session=;.*Max-Age=0/, "a cookie that opens nothing is taken away");
    assert.equal(node.sockets.size, 0);
  });

  it("opens with a live session, with the node's Origin or none, and carries frames as text messages", async () => {
    const a = await opened(`${node.url}/api/events`);
    const b = await opened(`${node.url}/api/events?x=1`, { cookie: "charter_session=full", origin: ORIGIN });
    assert.equal(node.sockets.size, 2);
    const got = Promise.all([a, b].map((ws) => once(ws, "message").then(([data, binary]) => ({ data: String(data), binary }))));
    node.sockets.broadcast(frameJson("text", "t1", { body: "hi" }));
    assert.deepEqual(await got, [
      { data: '{"id":"t1","kind":"text","body":"hi"}', binary: false },
      { data: '{"id":"t1","kind":"text","body":"hi"}', binary: false },
    ]);
    a.close();
    b.close();
    await Promise.all([closed(a), closed(b)]);
  });

  it("a garbage upgrade gets a plain 400 and the server goes on", async () => {
    const port = Number(new URL(node.url).port);
    const raw = (request: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, "127.0.0.1", () => socket.write(request));
        let text = "";
        socket.on("data", (d) => {
          text += d.toString();
          if (text.endsWith("plain")) socket.end();
        });
        socket.on("close", () => resolve(text));
      });
    for (const garbage of [
      "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nCookie: charter_session=full\r\n\r\n",
      "POST /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nCookie: charter_session=full\r\nContent-Length: 5\r\n\r\nhello",
      "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 99\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nCookie: charter_session=full\r\n\r\n",
    ]) {
      assert.match(await raw(garbage), /^HTTP\/1\.1 40[05]/);
    }
    assert.match(await raw("GET /api/events?after=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"), /^HTTP\/1\.1 401/);
    const h2c = await raw("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n");
    assert.match(h2c, /^HTTP\/1\.1 200[^]*plain$/, "an upgrade to anything but a WebSocket is a plain request");
    const ws = await opened(`${node.url}/api/events`);
    ws.close();
    await closed(ws);
  });

  it("closes a socket with 4001 once its session has ended, and closeSession at once", async () => {
    const a = await opened(`${node.url}/api/events`, { cookie: "charter_session=other" });
    const b = await opened(`${node.url}/api/events`);
    const aClosed = closed(a);
    node.sessions.delete("other");
    assert.equal((await aClosed).code, 4001);
    assert.equal(b.readyState, WebSocket.OPEN, "another session's socket stays");
    const bClosed = closed(b);
    node.sockets.closeSession("s-full");
    assert.equal((await bClosed).code, 4001);
  });

  it("ignores what clients send, and closes one that sends over 4 KiB (1009)", async () => {
    const ws = await opened(`${node.url}/api/events`);
    ws.send("hello");
    ws.send(Buffer.alloc(4096));
    await sleep(50);
    assert.equal(ws.readyState, WebSocket.OPEN);
    const done = closed(ws);
    ws.send(Buffer.alloc(4097));
    assert.equal((await done).code, 1009);
  });
});

describe("the /api/events socket's limits", () => {
  it("closes a client that stops reading with 4008, while another keeps receiving", async () => {
    const node = await startNode({ maxBehindBytes: 256 * 1024 });
    try {
      const slow = await opened(`${node.url}/api/events`);
      const fast = await opened(`${node.url}/api/events`);
      (slow as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
      let received = 0;
      fast.on("message", () => received++);
      const chunk = wireFrames(Array.from({ length: 64 }, (_, i) => frameJson("text", String(i), { body: "x".repeat(1000) })));
      const [slowClient, fastClient] = node.source.clients as [EventClient, EventClient];
      let sent = 0;
      while (!slowClient.closed && sent < 20_000) {
        for (const c of [slowClient, fastClient]) c.send(chunk);
        sent += 64;
        // The reading client reads; the other's buffers fill.
        await sleep(1);
      }
      assert.ok(slowClient.closed, "the slow client was closed");
      assert.equal(fastClient.closed, false);
      for (let i = 0; i < 200 && received < sent; i++) await sleep(10);
      assert.equal(received, sent, "the reading client got every frame");
      const slowClosed = closed(slow);
      (slow as unknown as { _socket: { resume(): void } })._socket.resume();
      const { code, reason } = await slowClosed;
      assert.equal(code, 4008);
      assert.match(reason, /reconnect with \?after=/);
      fast.close();
    } finally {
      await stopNode(node);
    }
  });

  it("over the cap of sockets answers 503; a client that does not answer pings is cut off", async () => {
    const node = await startNode({ maxClients: 1, pingMs: 40 });
    try {
      const quiet = await opened(`${node.url}/api/events`, undefined, { autoPong: false });
      const over = await attempt(`${node.url}/api/events`, { cookie: "charter_session=full" });
      assert.ok("status" in over);
      assert.deepEqual([over.status, over.body.code], [503, "unavailable"]);
      assert.equal((await closed(quiet)).code, 1006);
      const pongs = await opened(`${node.url}/api/events`);
      await sleep(200);
      assert.equal(pongs.readyState, WebSocket.OPEN, "a client that pongs stays");
      pongs.close();
      await closed(pongs);
    } finally {
      await stopNode(node);
    }
  });

  it("before the node is started answers 503; closing closes every socket with 1001 and refuses new ones", async () => {
    const starting = await startNode({}, false);
    const early = await attempt(`${starting.url}/api/events`, { cookie: "charter_session=full" });
    assert.ok("status" in early);
    assert.deepEqual([early.status, early.body.code], [503, "unavailable"]);
    await stopNode(starting);

    const node = await startNode();
    try {
      const ws = await opened(`${node.url}/api/events`);
      const done = closed(ws);
      node.sockets.close();
      assert.equal((await done).code, 1001);
      assert.equal(node.source.closed, true);
      const late = await attempt(`${node.url}/api/events`, { cookie: "charter_session=full" });
      assert.ok("status" in late);
      assert.equal(late.status, 503);
    } finally {
      await stopNode(node);
    }
  });
});

it("an edition without event sockets answers every WebSocket upgrade with 404", async () => {
  const server = createServer({ shouldUpgradeCallback: isWebSocketUpgrade }, (_req, res) => res.end("plain"));
  server.on("upgrade", upgradeListener({ isOwnHost: hostCheck([]), log: silentLogger }));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const r = await attempt(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/api/events`, { cookie: "charter_session=full" });
    assert.ok("status" in r);
    assert.deepEqual([r.status, r.body.code], [404, "not-found"]);
  } finally {
    server.close();
  }
});

it("recognises /api/events in origin form and absolute form, with any query", () => {
  for (const yes of ["/api/events", "/api/events?after=1", "http://localhost/api/events?x#y"]) assert.equal(isEventsTarget(yes), true, yes);
  for (const no of [undefined, "/api/events/", "/api/eventsx", "/api", "/api/event", "*"]) assert.equal(isEventsTarget(no), false, String(no));
});
