import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { after, describe, it } from "node:test";
import { generateKeyPair, type KeyPair } from "../../../shared/identity/key-pair.ts";
import { freePort } from "../../../test/helpers/ports.ts";
import { kxKeyPair, randomBytes } from "./peer-crypto.ts";
import type { PeerRecord } from "./peer-frames.ts";
import { HANDSHAKE_NONCE_BYTES, type HandshakeSelf, type KnownPeer, listenerHandshake } from "./peer-handshake.ts";
import { type PeerAnswer, PeerDialer, type PeerDialerOptions } from "./peer-dial.ts";
import { PeerLink } from "./peer-link.ts";
import { PeerWarnings } from "./peer-log.ts";

const HOST = "127.0.0.1";
const fresh = () => ({ ephemeral: kxKeyPair(), nonce: randomBytes(HANDSHAKE_NONCE_BYTES) });
const self = (id: string, key: KeyPair): HandshakeSelf => ({ id, did: key.did, secretKey: key.secretKey });
const known = (id: string, key: KeyPair): KnownPeer => ({ id, did: key.did, publicKey: key.publicKey });
const aKey = generateKeyPair();
const bKey = generateKeyPair();

const dialers: PeerDialer[] = [];
const servers: Server[] = [];
const sockets: Socket[] = [];
after(async () => {
  await Promise.all(dialers.map((d) => d.close()));
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function waitFor(what: string, condition: () => boolean): Promise<void> {
  const until = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Peer b at `port`: runs the real listener handshake, then lets the test answer each record on the link it arrived on. */
async function peerB(port: number, onRecord: (link: PeerLink, record: PeerRecord) => void = () => {}, lets: readonly KnownPeer[] = [known("a", aKey)]) {
  const seen = { connections: 0, opened: 0, records: [] as PeerRecord[], links: [] as PeerLink[] };
  const server = createServer((socket) => {
    seen.connections++;
    sockets.push(socket);
    const link = new PeerLink({
      socket, handshake: listenerHandshake(self("b", bKey), new Map(lets.map((k) => [k.did, k])), fresh()), hello: null, maxRecordBytes: 1 << 20, handshakeTimeoutMs: 5_000,
      onOpen: () => seen.opened++,
      onRecord: (l, record) => (seen.records.push(record), onRecord(l, record)),
      onEnd() {},
    });
    seen.links.push(link);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, HOST, () => resolve()));
  return seen;
}

/** A dialer from a to b at `port`, with what it logged and how often its status changed. */
function dialA(port: number, overrides: Partial<PeerDialerOptions> = {}) {
  const logged = { info: [] as string[], warn: [] as string[], status: 0, contact: 0 };
  const log = { info: (msg: string, fields?: Record<string, unknown>) => logged.info.push(`${msg} ${JSON.stringify(fields ?? {})}`), warn: (msg: string) => logged.warn.push(msg) };
  const dialer = new PeerDialer({
    me: self("a", aKey), peer: { id: "b", did: bKey.did, host: HOST, port }, known: known("b", bKey),
    maxRecordBytes: 1 << 20, maxBufferedBytes: 1 << 20, handshakeTimeoutMs: 5_000, deadAfterMs: 10_000, fresh, log, warnings: new PeerWarnings(log),
    onContact: () => logged.contact++, onStatus: () => logged.status++,
    ...overrides,
  });
  dialers.push(dialer);
  dialer.dial();
  return { dialer, logged };
}

describe("PeerDialer", () => {
  it("opens a link, sends messages in order, and gives each request its own answer", async () => {
    const port = await freePort(HOST);
    const requests: { link: PeerLink; id: number; json: string }[] = [];
    const b = await peerB(port, (link, record) => {
      if (record.type === "request") requests.push({ link, id: record.id, json: record.json });
    });
    const { dialer, logged } = dialA(port);
    await waitFor("the link open", () => dialer.open);
    assert.equal(logged.status, 1);
    assert.ok(logged.contact >= 1);
    assert.equal(dialer.send(JSON.stringify({ n: 1 }), null), true);
    assert.equal(dialer.send(JSON.stringify({ n: 2 }), new Uint8Array([7])), true);
    const first = dialer.request(JSON.stringify({ q: 1 }), 5_000);
    const second = dialer.request(JSON.stringify({ q: 2 }), 5_000);
    await waitFor("both requests at b", () => requests.length === 2);
    // Answered out of order: each answer finds its request by id.
    const [r1, r2] = requests as [(typeof requests)[0], (typeof requests)[0]];
    r2.link.send({ type: "failure", id: r2.id, json: JSON.stringify("no q 2") });
    r1.link.send({ type: "reply", id: r1.id, json: JSON.stringify({ a: 1 }) });
    assert.deepEqual(await Promise.all([first, second]), [{ ok: true, value: { a: 1 } }, { ok: false, error: "no q 2" }]);
    assert.deepEqual(b.records.filter((r) => r.type === "message").map((r) => r.type === "message" && [r.json, r.attachment && [...r.attachment]]), [["{\"n\":1}", null], ["{\"n\":2}", [7]]]);
    assert.deepEqual(logged.warn, []);
  });

  it("fails a request in flight at once when the link drops, then dials again", async () => {
    const port = await freePort(HOST);
    const b = await peerB(port, (link, record) => {
      if (record.type === "request") link.close("b hangs up");
    });
    const { dialer, logged } = dialA(port);
    await waitFor("the link open", () => dialer.open);
    const answer: PeerAnswer = await dialer.request("{}", 600_000);
    assert.deepEqual(answer, { ok: false, error: "the link to peer b closed: closed by the peer" });
    await waitFor("dialled again and open", () => b.opened === 2 && dialer.open);
    assert.ok(logged.info.some((line) => line.startsWith("peer link down")));
    assert.equal(logged.status, 3, "up, down, up");
  });

  it("pings the open link on each tick, and drops it once it has shown no sign of life for deadAfterMs", async () => {
    const port = await freePort(HOST);
    const b = await peerB(port);
    let later = 0;
    const { dialer, logged } = dialA(port, { deadAfterMs: 1_000, now: () => Date.now() + later });
    await waitFor("the link open", () => dialer.open);
    dialer.tick();
    await waitFor("a ping at b", () => b.records.some((r) => r.type === "ping"));
    assert.equal(dialer.open, true);
    later = 1_001; // b never answered the ping
    dialer.tick();
    await waitFor("the link dropped", () => logged.info.some((line) => line.includes("no sign of life for 1000 ms")));
    await waitFor("dialled again", () => b.opened === 2);
  });

  it("drops a link on which the peer sends what only a dialer may send", async () => {
    const port = await freePort(HOST);
    const b = await peerB(port);
    const { dialer, logged } = dialA(port);
    await waitFor("the link open", () => dialer.open);
    b.links[0]?.send({ type: "message", json: "{}", attachment: null });
    await waitFor("the warning", () => logged.warn.includes("peer b broke the link protocol: an unexpected message on an outbound link"));
    await waitFor("dialled again", () => b.opened === 2);
  });

  it("says once, not on every attempt, that the peer refuses us", async () => {
    const port = await freePort(HOST);
    const b = await peerB(port, () => {}, []); // b knows no a
    const { dialer, logged } = dialA(port);
    await waitFor("three attempts", () => b.connections >= 3);
    assert.equal(dialer.open, false);
    assert.equal(logged.warn.length, 1);
    assert.match(logged.warn[0] ?? "", /^peer b refused us: did:key:\S+ \(calling itself a\) is not a configured peer$/);
  });

  it("drops sends and fails requests while not connected; close fails what is pending and stops dialling", async () => {
    const nowhere = await freePort(HOST);
    const { dialer, logged } = dialA(nowhere);
    assert.equal(dialer.send("{}", null), false);
    assert.deepEqual(await dialer.request("{}", 5_000), { ok: false, error: "peer b is not connected" });
    await waitFor("unreachable reported", () => logged.info.some((line) => line.startsWith("peer unreachable, retrying")));

    const port = await freePort(HOST);
    const b = await peerB(port);
    const other = dialA(port);
    await waitFor("the link open", () => other.dialer.open);
    const pending = other.dialer.request("{}", 600_000);
    await waitFor("the request at b", () => b.records.some((r) => r.type === "request"));
    await Promise.all([dialer.close(), other.dialer.close()]);
    assert.deepEqual(await pending, { ok: false, error: "the peer transport is closed" });
    assert.equal(other.dialer.open, false);
    await new Promise((resolve) => setTimeout(resolve, 200)); // longer than the first back-off steps
    assert.equal(b.connections, 1, "no dialling after close");
  });
});
