import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, describe, it } from "node:test";
import { generateKeyPair, type KeyPair } from "../../../shared/identity/key-pair.ts";
import { kxKeyPair, randomBytes as sodiumRandom } from "./peer-crypto.ts";
import { FrameReader, handshakeFrame, type PeerRecord, SEALED_FRAME_LIMIT } from "./peer-frames.ts";
import { dialerHello, HANDSHAKE_NONCE_BYTES, type HandshakeSelf, type KnownPeer, listenerHandshake } from "./peer-handshake.ts";
import { type LinkEnd, PeerLink } from "./peer-link.ts";
import { startPeerTransport, type PeerTransport, type PeerTransportOptions } from "./peer-transport.ts";
import { parsePeers, type PeerAddress } from "../../../shared/worker/peers.ts";
import { freePort } from "../../../test/helpers/ports.ts";

const HOST = "127.0.0.1";

interface Received {
  readonly from: string;
  readonly body: unknown;
  readonly attachment: Uint8Array | null;
}

/** A started transport with what it received and logged. */
interface Voter {
  readonly transport: PeerTransport;
  readonly address: PeerAddress;
  readonly key: KeyPair;
  readonly received: Received[];
  readonly warnings: string[];
}

const started: PeerTransport[] = [];
const servers: Server[] = [];
const sockets: Socket[] = [];
after(async () => {
  await Promise.all(started.map((t) => t.close()));
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

function identity(id: string, port: number, key = generateKeyPair()): { address: PeerAddress; key: KeyPair } {
  return { address: { id, did: key.did, host: HOST, port }, key };
}

const handshakeSelf = (id: string, key: KeyPair, secretKey = key.secretKey): HandshakeSelf => ({ id, did: key.did, secretKey });
const knownPeer = (id: string, key: KeyPair): KnownPeer => ({ id, did: key.did, publicKey: key.publicKey });
const fresh = () => ({ ephemeral: kxKeyPair(), nonce: sodiumRandom(HANDSHAKE_NONCE_BYTES) });

async function start(
  self: { address: PeerAddress; key: KeyPair },
  peers: readonly PeerAddress[],
  overrides: Partial<PeerTransportOptions> = {},
): Promise<Voter> {
  const received: Received[] = [];
  const warnings: string[] = [];
  const transport = await startPeerTransport({
    self: self.address,
    peers,
    key: self.key,
    onMessage: (from, body, attachment) => received.push({ from, body, attachment }),
    onRequest: async (from, body) => ({ from, echo: body }),
    log: { info() {}, warn: (msg, fields) => warnings.push(`${msg} ${JSON.stringify(fields ?? {})}`) },
    ...overrides,
  });
  started.push(transport);
  return { transport, address: { ...self.address, port: transport.port }, key: self.key, received, warnings };
}

/** Polls until `condition` holds; fails with `what` after a generous deadline. */
async function waitFor(what: string, condition: () => boolean, deadlineMs = 10_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function listenOn(server: Server, port: number): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, HOST, () => resolve()));
  return (server.address() as { port: number }).port;
}

/** A raw TCP connection to `port` that records when it closes. */
function rawSocket(port: number): { socket: Socket; closedAt: Promise<number> } {
  const socket = connect({ host: HOST, port });
  sockets.push(socket);
  socket.on("error", () => {});
  socket.resume(); // read (and drop) what arrives, or a close after unread data would go unnoticed
  return { socket, closedAt: new Promise((resolve) => socket.on("close", () => resolve(Date.now()))) };
}

/** A link that dials `port` and runs the real handshake as `me` (whose secret key may be forged). */
function fakeDialer(port: number, me: HandshakeSelf, server: KnownPeer): { link: PeerLink; opened: Promise<boolean>; ended: Promise<LinkEnd> } {
  const { state, message } = dialerHello(me, server, fresh());
  let opened!: (ok: boolean) => void;
  let ended!: (end: LinkEnd) => void;
  const result = { opened: new Promise<boolean>((r) => (opened = r)), ended: new Promise<LinkEnd>((r) => (ended = r)) };
  const socket = connect({ host: HOST, port });
  sockets.push(socket);
  const link = new PeerLink({
    socket, handshake: state, hello: message, maxRecordBytes: 1 << 20, handshakeTimeoutMs: 5_000,
    onOpen: () => opened(true), onRecord() {}, onEnd: (_l, end) => (opened(false), ended(end)),
  });
  return { link, ...result };
}

/** A server at `port` that runs the real handshake as `me` (whose secret key may be forged), then ignores everything. */
async function fakeListener(port: number, me: HandshakeSelf, peers: readonly KnownPeer[]): Promise<{ connections: number; opened: number; records: PeerRecord[] }> {
  const seen = { connections: 0, opened: 0, records: [] as PeerRecord[] };
  const server = createServer((socket) => {
    seen.connections++;
    sockets.push(socket);
    new PeerLink({
      socket, handshake: listenerHandshake(me, new Map(peers.map((p) => [p.did, p])), fresh()), hello: null, maxRecordBytes: 1 << 20, handshakeTimeoutMs: 5_000,
      onOpen: () => seen.opened++, onRecord: (_l, record) => seen.records.push(record), onEnd() {},
    });
  });
  await listenOn(server, port);
  return seen;
}

/**
 * A man in the middle between dialers and the listener at `target`: it cuts what dialers send into
 * frames and forwards what `tamper(connection, index, frame)` returns (frames without their length
 * prefix), and keeps every byte that passes either way.
 */
async function frameProxy(target: number, tamper: (connection: number, index: number, frame: Buffer) => Buffer[]): Promise<{ port: number; connections: () => number; seen: Buffer[] }> {
  const seen: Buffer[] = [];
  let connections = 0;
  const server = createServer((inbound) => {
    const connection = connections++;
    const outbound = connect({ host: HOST, port: target });
    sockets.push(inbound, outbound);
    for (const s of [inbound, outbound]) s.on("error", () => {});
    inbound.on("close", () => outbound.destroy());
    outbound.on("close", () => inbound.destroy());
    outbound.on("data", (data: Buffer) => {
      seen.push(Buffer.from(data));
      inbound.write(data);
    });
    const reader = new FrameReader(SEALED_FRAME_LIMIT);
    let index = 0;
    inbound.on("data", (data: Buffer) => {
      seen.push(Buffer.from(data));
      reader.feed(data, (frame) => {
        for (const out of tamper(connection, index++, Buffer.from(frame))) outbound.write(handshakeFrame(out));
        return true;
      });
    });
  });
  const port = await listenOn(server, 0);
  return { port, connections: () => connections, seen };
}

describe("peer transport", () => {
  it("connects three voters that exchange messages both ways, in order, and answer requests", async () => {
    const [pa, pb, pc] = await Promise.all([freePort(HOST), freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const c = identity("c", pc);
    const onRequest = (_from: string, body: unknown): Promise<unknown> => {
      const { op } = body as { op: string };
      if (op === "throw-sync") throw new Error("thrown at once"); // not even a promise
      if (op === "reject") return Promise.reject(new Error("rejected"));
      return (async () => {
        if (op === "throw") throw new Error("no such thing");
        if (op === "nothing") return undefined;
        return { echo: op };
      })();
    };
    const voters = await Promise.all([
      start(a, [b.address, c.address], { onRequest }),
      start(b, [a.address, c.address], { onRequest }),
      start(c, [a.address, b.address], { onRequest }),
    ]);
    const [va, vb, vc] = voters as [Voter, Voter, Voter];
    await waitFor("every voter connected to both others", () => voters.every((v) => v.transport.connected().length === 2));
    assert.deepEqual([...va.transport.connected()].sort(), ["b", "c"]);

    for (let i = 0; i < 200; i++) {
      assert.equal(va.transport.send("b", { seq: i }), true);
      assert.equal(va.transport.send("c", { seq: i }), true);
      assert.equal(vb.transport.send("a", { seq: i, text: "héllo ✓" }), true);
    }
    assert.equal(vc.transport.send("c", {}), false, "self is not a peer");
    assert.equal(vc.transport.send("nobody", {}), false);
    await waitFor("all messages", () => vb.received.length === 200 && vc.received.length === 200 && va.received.length === 200);
    assert.deepEqual(vb.received.map((m) => (m.body as { seq: number }).seq), [...Array(200).keys()]);
    assert.deepEqual(vc.received.map((m) => (m.body as { seq: number }).seq), [...Array(200).keys()]);
    assert.ok(vb.received.every((m) => m.from === "a" && m.attachment === null));
    assert.ok(va.received.every((m) => m.from === "b"));
    assert.deepEqual(va.received[7]?.body, { seq: 7, text: "héllo ✓" });

    assert.deepEqual(await va.transport.request("b", { op: "ping" }, 5_000), { ok: true, value: { echo: "ping" } });
    assert.deepEqual(await vc.transport.request("a", { op: "ping" }, 5_000), { ok: true, value: { echo: "ping" } });
    assert.deepEqual(await va.transport.request("c", { op: "throw" }, 5_000), { ok: false, error: "no such thing" });
    assert.deepEqual(await va.transport.request("c", { op: "throw-sync" }, 5_000), { ok: false, error: "thrown at once" });
    assert.deepEqual(await vb.transport.request("c", { op: "reject" }, 5_000), { ok: false, error: "rejected" });
    assert.deepEqual(await vb.transport.request("a", { op: "nothing" }, 5_000), { ok: true, value: null });
    assert.deepEqual(await vb.transport.request("zed", { op: "ping" }, 5_000), { ok: false, error: "no peer zed is configured" });
    const many = await Promise.all([...Array(50).keys()].map((i) => va.transport.request(i % 2 === 0 ? "b" : "c", { op: `n${i}` }, 5_000)));
    assert.deepEqual(many, [...Array(50).keys()].map((i) => ({ ok: true, value: { echo: `n${i}` } })));

    const contact = va.transport.lastContact("b");
    assert.ok(contact !== null && contact <= Date.now());
    assert.equal(va.transport.lastContact("zed"), null);
    assert.deepEqual([va, vb, vc].flatMap((v) => v.warnings), []);
    await Promise.all(voters.map((v) => v.transport.close()));
    assert.deepEqual(va.transport.connected(), []);
    assert.deepEqual(await va.transport.request("b", { op: "ping" }, 5_000), { ok: false, error: "peer b is not connected" });
  });

  it("carries a multi-megabyte attachment intact, with its body, in order with other messages", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const [va, vb] = await Promise.all([start(a, [b.address]), start(b, [a.address])]);
    await waitFor("a linked to b", () => va.transport.connected().includes("b"));
    const image = randomBytes(5 * 1024 * 1024 + 17);
    assert.equal(va.transport.send("b", { type: "before" }), true);
    assert.equal(va.transport.send("b", { type: "install-snapshot", index: 42 }, image), true);
    assert.equal(va.transport.send("b", { type: "after" }), true);
    assert.equal(va.transport.send("b", { type: "small" }, new Uint8Array([1, 2, 3])), true);
    await waitFor("four messages", () => vb.received.length === 4);
    assert.deepEqual(vb.received.map((m) => m.body), [{ type: "before" }, { type: "install-snapshot", index: 42 }, { type: "after" }, { type: "small" }]);
    assert.equal(vb.received[0]?.attachment, null);
    const got = vb.received[1]?.attachment;
    assert.ok(got instanceof Uint8Array);
    assert.equal(got.byteLength, image.byteLength);
    assert.ok(Buffer.from(got.buffer, got.byteOffset, got.byteLength).equals(image));
    assert.deepEqual([...(vb.received[3]?.attachment ?? [])], [1, 2, 3]);
    await Promise.all([va.transport.close(), vb.transport.close()]);
  });

  it("issue 16 #6: refuses a dialer whose did:key is not configured, and one that cannot sign for the did it claims", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const va = await start(a, [b.address]);
    const stranger = await start(identity("b", 0), [a.address]); // right id, wrong key
    await waitFor("a warning naming the stranger's did", () => va.warnings.some((w) => w.includes(stranger.key.did) && w.includes("not a configured peer")));
    await waitFor("the stranger told it was refused", () => stranger.warnings.some((w) => w.includes("refused us")));
    assert.deepEqual(stranger.transport.connected(), []);
    assert.equal(stranger.transport.send("a", { type: "sneak" }), false);

    // Claims to be b (id and did) but signs with another key; it believes the link is open and sends at once.
    const forger = fakeDialer(va.transport.port, handshakeSelf("b", b.key, generateKeyPair().secretKey), knownPeer("a", a.key));
    assert.equal(await forger.opened, true);
    forger.link.send({ type: "message", json: JSON.stringify({ type: "sneak" }), attachment: null });
    assert.equal((await forger.ended).kind, "closed");
    await waitFor("a warning about the bad signature", () => va.warnings.some((w) => w.includes("bad signature") && w.includes(b.key.did)));
    assert.deepEqual(va.received, []);
    assert.deepEqual(va.transport.connected(), []);
    await Promise.all([va.transport.close(), stranger.transport.close()]);
  });

  it("issue 16 #6: refuses a server that is not the peer configured at its address", async () => {
    const [pa, pb, pc] = await Promise.all([freePort(HOST), freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const c = identity("c", pc);
    // b's address is held by a voter with another key; c's by a server that claims c's did but cannot sign for it.
    const impostor = await start(identity("b", pb), [a.address]);
    const fake = await fakeListener(pc, handshakeSelf("c", c.key, generateKeyPair().secretKey), [knownPeer("a", a.key)]);
    const va = await start(a, [b.address, c.address]);
    await waitFor("a refusing the impostor", () => va.warnings.some((w) => w.includes(`answered as ${impostor.key.did}`)));
    await waitFor("a refusing the forger", () => va.warnings.some((w) => w.includes("bad signature") && w.includes(c.key.did)));
    assert.deepEqual(va.transport.connected(), []);
    assert.equal(va.transport.send("b", { type: "secret" }), false);
    assert.equal(va.transport.send("c", { type: "secret" }), false);
    assert.deepEqual((await va.transport.request("c", {}, 5_000)).ok, false);
    await sleep(50);
    assert.ok(fake.connections > 0);
    assert.equal(fake.opened, 0, "the forger never got a proof, so nothing sealed either");
    assert.deepEqual(impostor.received, []);
    await Promise.all([va.transport.close(), impostor.transport.close()]);
  });

  it("connects to a peer that starts late, reconnects after it restarts, and fails requests to it promptly while it is away", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const va = await start(a, [b.address]);
    assert.deepEqual(va.transport.connected(), []);
    assert.equal(va.transport.send("b", { type: "lost" }), false);
    assert.deepEqual(await va.transport.request("b", {}, 60_000), { ok: false, error: "peer b is not connected" });

    const hang = () => new Promise<never>(() => {});
    let vb = await start(b, [a.address], { onRequest: async (_from, body) => ((body as { hang?: boolean }).hang === true ? hang() : { up: 1 }) });
    await waitFor("a linked to the late b", () => va.transport.connected().includes("b") && vb.transport.connected().includes("a"));
    assert.equal(va.transport.send("b", { type: "hello" }), true);
    await waitFor("b got the message", () => vb.received.length === 1);
    assert.deepEqual(await va.transport.request("b", {}, 5_000), { ok: true, value: { up: 1 } });

    // A request in flight when the peer goes away fails at once, not at its (long) timeout.
    const inFlight = va.transport.request("b", { hang: true }, 600_000);
    await sleep(20);
    await vb.transport.close();
    const failed = await inFlight;
    assert.equal(failed.ok, false);
    if (!failed.ok) assert.match(failed.error, /link to peer b closed/);
    await waitFor("a noticing b is gone", () => va.transport.connected().length === 0);
    assert.deepEqual(await va.transport.request("b", {}, 60_000), { ok: false, error: "peer b is not connected" });

    vb = await start(b, [a.address], { onRequest: async () => ({ up: 2 }) });
    assert.equal(vb.transport.port, pb);
    await waitFor("a linked to the restarted b", () => va.transport.connected().includes("b") && vb.transport.connected().includes("a"));
    assert.equal(va.transport.send("b", { type: "again" }), true);
    assert.equal(vb.transport.send("a", { type: "back" }), true);
    await waitFor("messages over the new links", () => vb.received.length === 1 && va.received.length === 1);
    assert.deepEqual(vb.received[0]?.body, { type: "again" });
    assert.deepEqual(va.received[0]?.body, { type: "back" });
    assert.deepEqual(await va.transport.request("b", {}, 5_000), { ok: true, value: { up: 2 } });
    assert.deepEqual(va.warnings, []);
    await Promise.all([va.transport.close(), vb.transport.close()]);
  });

  it("times out a request that gets no answer, and drops sends beyond the buffer limit", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const [va] = await Promise.all([
      start(a, [b.address], { maxBufferedBytes: 1024 }),
      start(b, [a.address], { onRequest: () => new Promise(() => {}) }),
    ]);
    await waitFor("a linked to b", () => va.transport.connected().includes("b"));
    assert.deepEqual(await va.transport.request("b", {}, 30), { ok: false, error: "peer b did not answer within 30 ms" });
    // The first large record goes onto an empty queue; the next ones exceed the limit while it is still queued.
    const big = new Uint8Array(8 * 1024 * 1024);
    const results = [va.transport.send("b", { n: 1 }, big), va.transport.send("b", { n: 2 }, big), va.transport.send("b", { n: 3 })];
    assert.deepEqual(results, [true, false, false]);
  });

  it("drops and redials a link whose peer stops answering pings", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    // A genuine b that authenticates and then goes silent: no pongs, no frames.
    const silent = await fakeListener(pb, handshakeSelf("b", b.key), [knownPeer("a", a.key)]);
    const va = await start(a, [b.address], { pingIntervalMs: 20, deadAfterMs: 150 });
    await waitFor("a linked to the silent b", () => va.transport.connected().includes("b"));
    await waitFor("a dropping the silent link and dialing again", () => silent.opened >= 2);
    assert.ok(silent.records.some((r) => r.type === "ping"));
    assert.deepEqual(va.warnings, []);
    await va.transport.close();
  });

  it("refuses a key that is not self's", async () => {
    const a = identity("a", 0);
    await assert.rejects(
      startPeerTransport({ self: a.address, peers: [], key: generateKeyPair(), onMessage() {}, onRequest: async () => null }),
      /node key is did:key:/,
    );
    await assert.rejects(
      startPeerTransport({ self: a.address, peers: [a.address], key: a.key, onMessage() {}, onRequest: async () => null }),
      /is self/,
    );
  });

  it("issue 16 #5: a 512 MiB frame length before authenticating closes the connection at once, without allocating it", async () => {
    const b = identity("b", 0);
    const vb = await start(b, [identity("a", await freePort(HOST)).address]);
    const junk = randomBytes(4 * 1024 * 1024);
    global.gc?.();
    const before = process.memoryUsage();
    const { socket, closedAt } = rawSocket(vb.transport.port);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const header = Buffer.alloc(4);
    header.writeUInt32BE(512 * 1024 * 1024);
    const sentAt = Date.now();
    socket.write(header);
    // Keep pushing body bytes as a flooder would; the server must not be collecting them.
    for (let i = 0; i < 16 && !socket.destroyed; i++) socket.write(junk);
    const closed = await closedAt;
    assert.ok(closed - sentAt < 1_000, `closed after ${closed - sentAt} ms`);
    const grown = process.memoryUsage().arrayBuffers - before.arrayBuffers;
    assert.ok(grown < 64 * 1024 * 1024, `array buffers grew by ${grown} bytes`);
    await waitFor("a warning about the frame", () => vb.warnings.some((w) => w.includes("a frame of 536870912 bytes") && w.includes("before authenticating")));
    assert.deepEqual(vb.received, []);
    await vb.transport.close();
  });

  it("issue 16 #5: a connection that never finishes the handshake is closed after the handshake timeout", async () => {
    const b = identity("b", 0);
    const a = identity("a", await freePort(HOST));
    const vb = await start(b, [a.address], { handshakeTimeoutMs: 300 });
    const silent = rawSocket(vb.transport.port);
    // Another sends half a hello and stops.
    const partial = rawSocket(vb.transport.port);
    const { message } = dialerHello(handshakeSelf("a", a.key), knownPeer("b", b.key), fresh());
    partial.socket.write(handshakeFrame(message).subarray(0, 40));
    // And a genuine dialer that stalls after its hello (it never sends its proof).
    const stalled = rawSocket(vb.transport.port);
    stalled.socket.write(handshakeFrame(message));
    const openedAt = Date.now();
    for (const { closedAt } of [silent, partial, stalled]) {
      const waited = (await closedAt) - openedAt;
      assert.ok(waited >= 250 && waited < 2_000, `closed after ${waited} ms`);
    }
    await waitFor("a warning about the timeout", () => vb.warnings.some((w) => w.includes("the handshake timed out")));
    await vb.transport.close();
  });

  it("issue 16 #5: at most maxPendingHandshakes connections authenticate at once; a voter gets in once they are gone", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const vb = await start(b, [a.address], { maxPendingHandshakes: 3, handshakeTimeoutMs: 1_500 });
    const hogs = [rawSocket(pb), rawSocket(pb), rawSocket(pb)];
    await Promise.all(hogs.map(({ socket }) => new Promise((resolve) => socket.once("connect", resolve))));
    await sleep(100); // the server has accepted them
    const extra = rawSocket(pb);
    const openedAt = Date.now();
    const extraClosed = await extra.closedAt;
    assert.ok(extraClosed - openedAt < 1_000, `the extra connection closed after ${extraClosed - openedAt} ms, not at once`);
    assert.ok(hogs.every(({ socket }) => !socket.destroyed), "the pending ones are still held");
    await waitFor("a warning about the cap", () => vb.warnings.some((w) => w.includes("3 connections are already authenticating")));
    // The genuine voter is refused while the hogs hold every slot, and gets in after they time out.
    const va = await start(a, [b.address]);
    await Promise.all(hogs.map(({ closedAt }) => closedAt));
    await waitFor("a linked to b", () => va.transport.connected().includes("b"), 10_000);
    assert.equal(va.transport.send("b", { type: "hello" }), true);
    await waitFor("b got it", () => vb.received.length === 1);
    await Promise.all([va.transport.close(), vb.transport.close()]);
  });

  it("issue 16 #5: one authenticated inbound link per voter; a newer one replaces the older", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const vb = await start(b, [a.address]);
    const first = fakeDialer(pb, handshakeSelf("a", a.key), knownPeer("b", b.key));
    assert.equal(await first.opened, true);
    const second = fakeDialer(pb, handshakeSelf("a", a.key), knownPeer("b", b.key));
    assert.equal(await second.opened, true);
    await first.ended;
    assert.equal(second.link.open, true);
    second.link.send({ type: "message", json: "{\"via\":\"second\"}", attachment: null });
    await waitFor("b got it", () => vb.received.length === 1);
    assert.deepEqual(vb.received[0]?.body, { via: "second" });
    second.link.close("done");
    await vb.transport.close();
  });

  it("issue 16 #5: an authenticated peer's record above maxRecordBytes closes its link and delivers nothing of it", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const [va, vb] = await Promise.all([start(a, [b.address]), start(b, [a.address], { maxRecordBytes: 1024 * 1024 })]);
    await waitFor("a linked to b", () => va.transport.connected().includes("b"));
    assert.equal(va.transport.send("b", { type: "install-snapshot" }, new Uint8Array(1024 * 1024 + 1)), true);
    await waitFor("b refusing the record", () => vb.warnings.some((w) => w.includes("broke the link protocol") && /a record of 10486\d\d bytes \(at most 1048576\)/.test(w)));
    // a may still hold the link b has just dropped (it learns of it at its next read), and a record
    // sent on it is lost with it: send one that fits until one arrives on the link a dials anew.
    for (let tries = 0; vb.received.length === 0; tries++) {
      if (tries === 40) assert.fail("b never got a record that fits");
      if (va.transport.connected().includes("b")) va.transport.send("b", { type: "fits" }, new Uint8Array(1000 * 1000));
      await sleep(250);
    }
    await sleep(100);
    assert.ok(vb.received.every((m) => (m.body as { type?: unknown }).type === "fits"), "nothing of the record above the limit was delivered");
    assert.equal(vb.received[0]?.attachment?.length, 1000 * 1000);
    await Promise.all([va.transport.close(), vb.transport.close()]);
  });

  it("issue 16 #6: a man in the middle that flips one byte of a sealed frame gets the link dropped and nothing delivered", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const vb = await start(b, [a.address]);
    // Frames 0 and 1 of a connection are the hello and the proof; frame 2 is the first sealed one.
    const proxy = await frameProxy(pb, (connection, index, frame) => {
      const middle = Math.floor(frame.length / 2);
      if (connection === 0 && index === 2) frame[middle] = (frame[middle] as number) ^ 0x20;
      return [frame];
    });
    const va = await start(a, [{ ...b.address, port: proxy.port }], { pingIntervalMs: 60_000 });
    await waitFor("a linked to b through the proxy", () => va.transport.connected().includes("b"));
    assert.equal(va.transport.send("b", { type: "append-entries", n: 1 }), true);
    await waitFor("b dropping the link", () => vb.warnings.some((w) => w.includes("broke the link protocol") && w.includes("does not open")));
    await waitFor("a redialing", () => proxy.connections() >= 2 && va.transport.connected().includes("b"));
    assert.equal(va.transport.send("b", { type: "append-entries", n: 2 }), true);
    await waitFor("the untampered message", () => vb.received.length === 1);
    await sleep(50);
    assert.deepEqual(vb.received.map((m) => m.body), [{ type: "append-entries", n: 2 }]);
    await Promise.all([va.transport.close(), vb.transport.close()]);
  });

  it("issue 16 #6: a recorded frame replayed on the same link or a later one is rejected", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const vb = await start(b, [a.address]);
    let recorded: Buffer | null = null;
    const proxy = await frameProxy(pb, (connection, index, frame) => {
      if (index !== 2) return [frame];
      if (connection === 0) {
        recorded = Buffer.from(frame);
        return [frame, frame]; // replayed on the same link
      }
      if (connection === 1) return [recorded as Buffer, frame]; // replayed on a new link, before its own first frame
      return [frame];
    });
    const va = await start(a, [{ ...b.address, port: proxy.port }], { pingIntervalMs: 60_000 });
    await waitFor("a linked to b through the proxy", () => va.transport.connected().includes("b"));
    assert.equal(va.transport.send("b", { n: 1 }), true);
    await waitFor("the replay rejected", () => vb.warnings.filter((w) => w.includes("does not open")).length === 1);
    await waitFor("the second connection", () => proxy.connections() >= 2 && va.transport.connected().includes("b"));
    assert.equal(va.transport.send("b", { n: 2 }), true); // goes after the replayed frame, on a link b drops
    await waitFor("the third connection", () => proxy.connections() >= 3 && va.transport.connected().includes("b"));
    assert.equal(va.transport.send("b", { n: 3 }), true);
    await waitFor("the last message", () => vb.received.some((m) => (m.body as { n: number }).n === 3));
    await sleep(50);
    assert.deepEqual(vb.received.map((m) => m.body), [{ n: 1 }, { n: 3 }]);
    await Promise.all([va.transport.close(), vb.transport.close()]);
  });

  it("issue 16 #6: an eavesdropper on the peer network sees no message, request or answer content", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa);
    const b = identity("b", pb);
    const vb = await start(b, [a.address], { onRequest: async () => ({ answer: "ANSWER-MARKER-3141" }) });
    const proxy = await frameProxy(pb, (_connection, _index, frame) => [frame]);
    const va = await start(a, [{ ...b.address, port: proxy.port }]);
    await waitFor("a linked to b through the proxy", () => va.transport.connected().includes("b"));
    assert.equal(va.transport.send("b", { secret: "MESSAGE-MARKER-2718" }, Buffer.from("ATTACHMENT-MARKER-1618")), true);
    assert.deepEqual(await va.transport.request("b", { secret: "REQUEST-MARKER-1414" }, 5_000), { ok: true, value: { answer: "ANSWER-MARKER-3141" } });
    await waitFor("the message", () => vb.received.length === 1);
    const wire = Buffer.concat(proxy.seen);
    for (const marker of ["MESSAGE-MARKER-2718", "ATTACHMENT-MARKER-1618", "REQUEST-MARKER-1414", "ANSWER-MARKER-3141"]) assert.equal(wire.includes(marker), false, marker);
    assert.ok(wire.includes(a.key.did), "the handshake itself names the voters (their did:keys are public)");
    await Promise.all([va.transport.close(), vb.transport.close()]);
  });
});

describe("parsePeers", () => {
  const k1 = generateKeyPair().did;
  const k2 = generateKeyPair().did;

  it("parses id=did@host:port lists", () => {
    assert.deepEqual(parsePeers(`a=${k1}@127.0.0.1:8790, b=${k2}@[::1]:8791`), {
      ok: true,
      value: [
        { id: "a", did: k1, host: "127.0.0.1", port: 8790 },
        { id: "b", did: k2, host: "::1", port: 8791 },
      ],
    });
    assert.deepEqual(parsePeers(`node-2=${k1}@voter2.example:443`), { ok: true, value: [{ id: "node-2", did: k1, host: "voter2.example", port: 443 }] });
    assert.deepEqual(parsePeers(""), { ok: true, value: [] });
  });

  it("explains what is wrong with a bad list", () => {
    const error = (text: string) => {
      const parsed = parsePeers(text);
      assert.equal(parsed.ok, false, text);
      return parsed.ok ? "" : parsed.error;
    };
    assert.match(error(`${k1}@127.0.0.1:8790`), /entry 1 .*has no id/);
    assert.match(error(`=${k1}@127.0.0.1:8790`), /no id before '='/);
    assert.match(error("a=did:key:zNotAKey@127.0.0.1:8790"), /entry 1 .*did:key/);
    assert.match(error("a=did:web:example.com@127.0.0.1:8790"), /not a did:key/);
    assert.match(error(`a=${k1}@127.0.0.1`), /no port/);
    assert.match(error(`a=${k1}@127.0.0.1:0`), /port '0' is not a number from 1 to 65535/);
    assert.match(error(`a=${k1}@127.0.0.1:70000`), /port '70000'/);
    assert.match(error(`a=${k1}@127.0.0.1:http`), /port 'http'/);
    assert.match(error(`a=${k1}@::1:8790`), /brackets/);
    assert.match(error(`a=${k1}`), /no address/);
    assert.match(error(`a=${k1}@127.0.0.1:8790,a=${k2}@127.0.0.2:8790`), /entry 2 .*id a is listed twice/);
    assert.match(error(`a=${k1}@127.0.0.1:8790,b=${k1}@127.0.0.2:8790`), /entry 2 .*listed twice/);
    assert.match(error(`a=${k1}@127.0.0.1:8790,b=${k2}@127.0.0.1:8790`), /address 127.0.0.1:8790 is listed twice/);
    assert.match(error(`a=${k1}@127.0.0.1:8790,`), /entry 2: is empty/);
    assert.match(error(`a b=${k1}@127.0.0.1:8790`), /the id 'a b'/);
  });
});
