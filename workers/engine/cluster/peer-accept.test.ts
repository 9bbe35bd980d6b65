import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, describe, it } from "node:test";
import { generateKeyPair, type KeyPair } from "../../../shared/identity/key-pair.ts";
import { PeerAcceptor, type PeerAcceptorOptions } from "./peer-accept.ts";
import { kxKeyPair, randomBytes } from "./peer-crypto.ts";
import type { PeerRecord } from "./peer-frames.ts";
import { dialerHello, HANDSHAKE_NONCE_BYTES, type HandshakeSelf, type KnownPeer } from "./peer-handshake.ts";
import { type LinkEnd, PeerLink } from "./peer-link.ts";
import { PeerWarnings } from "./peer-log.ts";

const HOST = "127.0.0.1";
const fresh = () => ({ ephemeral: kxKeyPair(), nonce: randomBytes(HANDSHAKE_NONCE_BYTES) });
const self = (id: string, key: KeyPair): HandshakeSelf => ({ id, did: key.did, secretKey: key.secretKey });
const known = (id: string, key: KeyPair): KnownPeer => ({ id, did: key.did, publicKey: key.publicKey });
const aKey = generateKeyPair();
const bKey = generateKeyPair();

const acceptors: PeerAcceptor[] = [];
const sockets: Socket[] = [];
after(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(acceptors.map((a) => a.close()));
});

async function waitFor(what: string, condition: () => boolean): Promise<void> {
  const until = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Voter b accepting voter a, with what reached its handlers and its log. */
async function acceptB(overrides: Partial<PeerAcceptorOptions> = {}) {
  const seen = { messages: [] as { from: string; body: unknown; attachment: number[] | null }[], contact: [] as string[], warn: [] as string[], info: [] as string[] };
  const log = { info: (msg: string) => seen.info.push(msg), warn: (msg: string) => seen.warn.push(msg) };
  const acceptor = await PeerAcceptor.listen(HOST, 0, {
    me: self("b", bKey), peers: new Map([[aKey.did, known("a", aKey)]]), maxRecordBytes: 1 << 20, handshakeTimeoutMs: 5_000, maxPendingHandshakes: 8,
    fresh, log, warnings: new PeerWarnings(log),
    onMessage: (from, body, attachment) => seen.messages.push({ from, body, attachment: attachment && [...attachment] }),
    onRequest: async (from, body) => {
      const { op } = body as { op: string };
      if (op === "throw") throw new Error("no such op");
      return { from, op };
    },
    onContact: (peer) => seen.contact.push(peer),
    ...overrides,
  });
  acceptors.push(acceptor);
  return { acceptor, seen };
}

/** A link dialling `port` as `me`, collecting the records that come back. */
function dialer(port: number, me: HandshakeSelf) {
  const { state, message } = dialerHello(me, known("b", bKey), fresh());
  const records: PeerRecord[] = [];
  let opened!: (ok: boolean) => void;
  let ended!: (end: LinkEnd) => void;
  const result = { records, opened: new Promise<boolean>((r) => (opened = r)), ended: new Promise<LinkEnd>((r) => (ended = r)) };
  const socket = connect({ host: HOST, port });
  sockets.push(socket);
  const link = new PeerLink({
    socket, handshake: state, hello: message, maxRecordBytes: 1 << 20, handshakeTimeoutMs: 5_000,
    onOpen: () => opened(true), onRecord: (_l, record) => records.push(record), onEnd: (_l, end) => (opened(false), ended(end)),
  });
  return { link, ...result };
}

describe("PeerAcceptor", () => {
  it("lets a configured voter in, hands its messages and requests to the handlers, and answers on its link", async () => {
    const { acceptor, seen } = await acceptB();
    const a = dialer(acceptor.port, self("a", aKey));
    assert.equal(await a.opened, true);
    a.link.send({ type: "message", json: JSON.stringify({ n: 1 }), attachment: new Uint8Array([1, 2]) });
    a.link.send({ type: "request", id: 7, json: JSON.stringify({ op: "look" }) });
    a.link.send({ type: "request", id: 8, json: JSON.stringify({ op: "throw" }) });
    a.link.send({ type: "ping" });
    await waitFor("three answers", () => a.records.length === 3);
    assert.deepEqual(seen.messages, [{ from: "a", body: { n: 1 }, attachment: [1, 2] }]);
    assert.deepEqual(
      [...a.records].sort((x, y) => x.type.localeCompare(y.type)),
      [{ type: "failure", id: 8, json: JSON.stringify("no such op") }, { type: "pong" }, { type: "reply", id: 7, json: JSON.stringify({ from: "a", op: "look" }) }],
    );
    assert.ok(seen.contact.length >= 4 && seen.contact.every((peer) => peer === "a"));
    assert.deepEqual(seen.warn, []);
  });

  it("refuses a dialer whose did:key is not configured, and says who it was", async () => {
    const { acceptor, seen } = await acceptB();
    const stranger = generateKeyPair();
    const s = dialer(acceptor.port, self("a", stranger));
    assert.equal(await s.opened, false);
    const end = await s.ended;
    assert.equal(end.kind === "refused" && end.byPeer, true);
    await waitFor("the warning", () => seen.warn.some((w) => w.startsWith("refused a peer connection") && w.includes(stranger.did)));
    assert.deepEqual(seen.messages, []);
  });

  it("closes connections beyond maxPendingHandshakes on arrival", async () => {
    const { acceptor, seen } = await acceptB({ maxPendingHandshakes: 1 });
    // Whichever of the two is accepted first holds the one slot; the other is closed at once.
    const raw = [0, 1].map(() => {
      const socket = connect({ host: HOST, port: acceptor.port });
      sockets.push(socket);
      socket.on("error", () => {});
      socket.resume();
      return { socket, closed: new Promise<Socket>((resolve) => socket.once("close", () => resolve(socket))) };
    });
    const refused = await Promise.race(raw.map((r) => r.closed));
    const held = raw.find((r) => r.socket !== refused)?.socket;
    assert.equal(held?.destroyed, false, "the other is still held");
    assert.ok(seen.warn.includes("refused a peer connection: 1 connections are already authenticating"));
  });

  it("keeps one inbound link per voter: a newer one replaces the older", async () => {
    const { acceptor, seen } = await acceptB();
    const first = dialer(acceptor.port, self("a", aKey));
    assert.equal(await first.opened, true);
    const second = dialer(acceptor.port, self("a", aKey));
    assert.equal(await second.opened, true);
    await first.ended;
    second.link.send({ type: "message", json: "\"via second\"", attachment: null });
    await waitFor("the message", () => seen.messages.length === 1);
    assert.deepEqual(seen.messages[0]?.body, "via second");
  });

  it("closes the link of a voter that sends an answer or an unreadable record, and says why", async () => {
    const { acceptor, seen } = await acceptB();
    const answers = dialer(acceptor.port, self("a", aKey));
    assert.equal(await answers.opened, true);
    answers.link.send({ type: "reply", id: 1, json: "1" });
    assert.equal((await answers.ended).kind, "closed");
    const garbled = dialer(acceptor.port, self("a", aKey));
    assert.equal(await garbled.opened, true);
    garbled.link.send({ type: "message", json: "{", attachment: null });
    assert.equal((await garbled.ended).kind, "closed");
    await waitFor("both warnings", () => seen.warn.length === 2);
    assert.equal(seen.warn[0], "peer a broke the link protocol: an unexpected reply on an inbound link");
    assert.match(seen.warn[1] ?? "", /^peer a broke the link protocol: an unreadable record \(.*JSON.*\)$/);
    assert.deepEqual(seen.messages, []);
  });

  it("close() closes every inbound link, authenticated or not, and the port", async () => {
    const { acceptor } = await acceptB();
    const a = dialer(acceptor.port, self("a", aKey));
    assert.equal(await a.opened, true);
    const raw = connect({ host: HOST, port: acceptor.port });
    sockets.push(raw);
    raw.on("error", () => {});
    raw.resume();
    const rawClosed = new Promise((resolve) => raw.once("close", resolve));
    await new Promise((resolve) => raw.once("connect", resolve));
    const port = acceptor.port;
    await acceptor.close();
    await Promise.all([a.ended, rawClosed]);
    const refused = connect({ host: HOST, port });
    sockets.push(refused);
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => refused.once("error", resolve));
    assert.equal(error.code, "ECONNREFUSED");
  });
});
