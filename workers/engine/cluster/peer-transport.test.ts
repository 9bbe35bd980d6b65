import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, it } from "node:test";
import { WebSocket, WebSocketServer } from "ws";
import { base64urlEncode } from "../../../shared/identity/base64url.ts";
import { generateKeyPair, type KeyPair } from "../../../shared/identity/key-pair.ts";
import { ed25519Sign } from "../../../shared/identity/sodium.ts";
import { startPeerTransport, type PeerTransport, type PeerTransportOptions } from "./peer-transport.ts";
import { parsePeers, type PeerAddress } from "./peers.ts";
import { freePort } from "../../../test/helpers/ports.ts";

const HOST = "127.0.0.1";
const LINK_URL_PATH = "/charter/peer/v1";

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
const servers: WebSocketServer[] = [];
after(async () => {
  await Promise.all(started.map((t) => t.close()));
  for (const server of servers) for (const client of server.clients) client.terminate();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

function identity(id: string, port: number, key = generateKeyPair()): { address: PeerAddress; key: KeyPair } {
  return { address: { id, did: key.did, host: HOST, port }, key };
}

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

describe("peer transport", () => {
  it("connects three voters that exchange messages both ways, in order, and answer requests", async () => {
    const [pa, pb, pc] = await Promise.all([freePort(HOST), freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa as number);
    const b = identity("b", pb as number);
    const c = identity("c", pc as number);
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
    const a = identity("a", pa as number);
    const b = identity("b", pb as number);
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

  it("refuses a dialer whose did:key is not configured, and one that cannot sign for the did it claims", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa as number);
    const b = identity("b", pb as number);
    const va = await start(a, [b.address]);
    const stranger = await start(identity("b", 0), [a.address]); // right id, wrong key
    await waitFor("a warning naming the stranger's did", () => va.warnings.some((w) => w.includes(stranger.key.did) && w.includes("not a configured peer")));
    await waitFor("the stranger told it was refused", () => stranger.warnings.some((w) => w.includes("refused us")));
    assert.deepEqual(stranger.transport.connected(), []);
    assert.equal(stranger.transport.send("a", { type: "sneak" }), false);

    // Claims to be b (id and did) but signs with another key.
    const forger = generateKeyPair();
    const ws = new WebSocket(`ws://${HOST}:${va.transport.port}${LINK_URL_PATH}`);
    const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
    ws.on("message", (data) => {
      const challenge = JSON.parse((data as Buffer).toString("utf8", 1)) as { nonce: string };
      const sig = base64urlEncode(ed25519Sign(Buffer.from(`charter-peer-link/v1\ndialer\n${challenge.nonce}\n${b.key.did}\n${a.key.did}`), forger.secretKey));
      ws.send(`H${JSON.stringify({ id: "b", did: b.key.did, nonce: base64urlEncode(randomBytes(32)), sig })}`);
      ws.send(`M${JSON.stringify({ type: "sneak" })}`);
    });
    assert.equal(await closed, 4001);
    await waitFor("a warning about the bad signature", () => va.warnings.some((w) => w.includes("bad signature") && w.includes(b.key.did)));
    assert.deepEqual(va.received, []);
    assert.deepEqual(va.transport.connected(), []);
    await Promise.all([va.transport.close(), stranger.transport.close()]);
  });

  it("refuses a server that is not the peer configured at its address", async () => {
    const [pa, pb, pc] = await Promise.all([freePort(HOST), freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa as number);
    const b = identity("b", pb as number);
    const c = identity("c", pc as number);
    // b's address is held by a voter with another key; c's by a server that claims c's did but cannot sign for it.
    const impostor = await start(identity("b", pb as number), [a.address]);
    const forger = generateKeyPair();
    const fake = new WebSocketServer({ host: HOST, port: pc as number, path: LINK_URL_PATH });
    servers.push(fake);
    await new Promise<void>((resolve) => fake.once("listening", () => resolve()));
    const fakeHeard: string[] = [];
    fake.on("connection", (ws) => {
      ws.send(`H${JSON.stringify({ id: "c", did: c.key.did, nonce: base64urlEncode(randomBytes(32)) })}`);
      ws.on("message", (data) => {
        const text = (data as Buffer).toString("utf8");
        fakeHeard.push(text);
        if (fakeHeard.length === 1) {
          const hello = JSON.parse(text.slice(1)) as { nonce: string };
          const sig = ed25519Sign(Buffer.from(`charter-peer-link/v1\nserver\n${hello.nonce}\n${a.key.did}\n${c.key.did}`), forger.secretKey);
          ws.send(`H${JSON.stringify({ sig: base64urlEncode(sig) })}`);
        }
      });
    });
    const va = await start(a, [b.address, c.address]);
    await waitFor("a refusing the impostor", () => va.warnings.some((w) => w.includes(`answered as ${impostor.key.did}`)));
    await waitFor("a refusing the forger", () => va.warnings.some((w) => w.includes("bad signature") && w.includes(c.key.did)));
    assert.deepEqual(va.transport.connected(), []);
    assert.equal(va.transport.send("b", { type: "secret" }), false);
    assert.equal(va.transport.send("c", { type: "secret" }), false);
    assert.deepEqual((await va.transport.request("c", {}, 5_000)).ok, false);
    await sleep(50);
    assert.ok(fakeHeard.every((text) => text.startsWith("H")), "the forger got nothing but handshakes");
    assert.deepEqual(impostor.received, []);
    await Promise.all([va.transport.close(), impostor.transport.close()]);
  });

  it("connects to a peer that starts late, reconnects after it restarts, and fails requests to it promptly while it is away", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa as number);
    const b = identity("b", pb as number);
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
    const a = identity("a", pa as number);
    const b = identity("b", pb as number);
    const [va] = await Promise.all([
      start(a, [b.address], { maxBufferedBytes: 1024 }),
      start(b, [a.address], { onRequest: () => new Promise(() => {}) }),
    ]);
    await waitFor("a linked to b", () => va.transport.connected().includes("b"));
    assert.deepEqual(await va.transport.request("b", {}, 30), { ok: false, error: "peer b did not answer within 30 ms" });
    // The first large frame goes onto an empty queue; the next ones exceed the limit while it is still queued.
    const big = new Uint8Array(8 * 1024 * 1024);
    const results = [va.transport.send("b", { n: 1 }, big), va.transport.send("b", { n: 2 }, big), va.transport.send("b", { n: 3 })];
    assert.deepEqual(results, [true, false, false]);
  });

  it("drops and redials a link whose peer stops answering pings", async () => {
    const [pa, pb] = await Promise.all([freePort(HOST), freePort(HOST)]);
    const a = identity("a", pa as number);
    const b = identity("b", pb as number);
    // A genuine b that authenticates and then goes silent: no pongs, no frames.
    const silent = new WebSocketServer({ host: HOST, port: pb as number, path: LINK_URL_PATH, autoPong: false });
    servers.push(silent);
    await new Promise<void>((resolve) => silent.once("listening", () => resolve()));
    let connections = 0;
    silent.on("connection", (ws) => {
      connections++;
      ws.send(`H${JSON.stringify({ id: "b", did: b.key.did, nonce: base64urlEncode(randomBytes(32)) })}`);
      ws.once("message", (data) => {
        const hello = JSON.parse((data as Buffer).toString("utf8", 1)) as { nonce: string };
        const sig = ed25519Sign(Buffer.from(`charter-peer-link/v1\nserver\n${hello.nonce}\n${a.key.did}\n${b.key.did}`), b.key.secretKey);
        ws.send(`H${JSON.stringify({ sig: base64urlEncode(sig) })}`);
      });
    });
    const va = await start(a, [b.address], { pingIntervalMs: 20, deadAfterMs: 150 });
    await waitFor("a linked to the silent b", () => va.transport.connected().includes("b"));
    await waitFor("a dropping the silent link and dialing again", () => connections >= 2);
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
