import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateKeyPair, type KeyPair } from "../../../shared/identity/key-pair.ts";
import { kxKeyPair, randomBytes } from "./peer-crypto.ts";
import {
  dialerHello, HANDSHAKE_NONCE_BYTES, type Handshake, type HandshakeFresh, type HandshakeSelf, type HandshakeStep, type KnownPeer,
  listenerHandshake, PEER_PROTOCOL, receiveHandshake,
} from "./peer-handshake.ts";

interface Voter {
  readonly key: KeyPair;
  readonly self: HandshakeSelf;
  readonly known: KnownPeer;
}

function voter(id: string, key = generateKeyPair()): Voter {
  return { key, self: { id, did: key.did, secretKey: key.secretKey }, known: { id, did: key.did, publicKey: key.publicKey } };
}

const fresh = (): HandshakeFresh => ({ ephemeral: kxKeyPair(), nonce: randomBytes(HANDSHAKE_NONCE_BYTES) });
const peersOf = (...voters: Voter[]) => new Map(voters.map((v) => [v.known.did, v.known]));
const json = (message: Uint8Array) => JSON.parse(Buffer.from(message).toString("utf8")) as Record<string, string>;
const bytes = (fields: unknown) => Buffer.from(JSON.stringify(fields));

function expectContinue(step: HandshakeStep): { state: Handshake; message: Uint8Array } {
  assert.equal(step.kind, "continue", step.kind === "refused" ? step.reason : "");
  return step as { state: Handshake; message: Uint8Array };
}

function expectRefused(step: HandshakeStep, pattern: RegExp): Extract<HandshakeStep, { kind: "refused" }> {
  assert.equal(step.kind, "refused");
  const refused = step as Extract<HandshakeStep, { kind: "refused" }>;
  assert.match(refused.reason, pattern);
  return refused;
}

/** Runs a whole handshake between `a` (dialing) and `b`, returning each side's result. */
function handshake(a: Voter, b: Voter) {
  const hello = dialerHello(a.self, b.known, fresh());
  const welcome = expectContinue(receiveHandshake(listenerHandshake(b.self, peersOf(a), fresh()), hello.message));
  const dialerDone = receiveHandshake(hello.state, welcome.message);
  assert.equal(dialerDone.kind, "done");
  if (dialerDone.kind !== "done" || dialerDone.message === null) throw new Error("no proof");
  const listenerDone = receiveHandshake(welcome.state, dialerDone.message);
  assert.equal(listenerDone.kind, "done");
  if (listenerDone.kind !== "done") throw new Error("unreachable");
  return { hello, welcome, dialerDone, listenerDone };
}

describe("peer handshake", () => {
  const a = voter("a");
  const b = voter("b");

  it("authenticates both sides and gives them matching directional keys, fresh per handshake", () => {
    const { hello, dialerDone, listenerDone } = handshake(a, b);
    assert.equal(json(hello.message).v, PEER_PROTOCOL);
    if (dialerDone.kind !== "done" || listenerDone.kind !== "done") return;
    assert.equal(dialerDone.peer.did, b.key.did);
    assert.equal(listenerDone.peer.did, a.key.did);
    assert.equal(listenerDone.message, null);
    assert.deepEqual(Buffer.from(dialerDone.keys.send), Buffer.from(listenerDone.keys.receive));
    assert.deepEqual(Buffer.from(dialerDone.keys.receive), Buffer.from(listenerDone.keys.send));
    assert.notDeepEqual(Buffer.from(dialerDone.keys.send), Buffer.from(dialerDone.keys.receive));
    const again = handshake(a, b).dialerDone;
    if (again.kind === "done") assert.notDeepEqual(Buffer.from(again.keys.send), Buffer.from(dialerDone.keys.send));
  });

  it("issue 16 #6: the listener refuses a did:key that is not configured, and an id that does not match its did:key", () => {
    const stranger = voter("a");
    const hello = dialerHello(stranger.self, b.known, fresh());
    const refused = expectRefused(receiveHandshake(listenerHandshake(b.self, peersOf(a), fresh()), hello.message), /is not a configured peer/);
    assert.equal(refused.did, stranger.key.did);
    assert.equal(refused.byPeer, false);
    // The dialer is told why, unsigned and without any key material.
    assert.ok(refused.message !== null);
    const told = json(refused.message);
    assert.equal(told.t, "refuse");
    assert.equal(told.sig, undefined);
    const dialerSide = expectRefused(receiveHandshake(hello.state, refused.message), /not a configured peer/);
    assert.equal(dialerSide.byPeer, true);

    const misnamed = dialerHello({ ...a.self, id: "c" }, b.known, fresh());
    expectRefused(receiveHandshake(listenerHandshake(b.self, peersOf(a), fresh()), misnamed.message), /calls itself c, but is configured as peer a/);
  });

  it("issue 16 #6: a dialer claiming a configured did:key without its private key is refused at the proof", () => {
    const forger = generateKeyPair();
    const hello = dialerHello({ ...a.self, secretKey: forger.secretKey }, b.known, fresh());
    const welcome = expectContinue(receiveHandshake(listenerHandshake(b.self, peersOf(a), fresh()), hello.message));
    const proof = receiveHandshake(hello.state, welcome.message);
    if (proof.kind !== "done" || proof.message === null) return assert.fail("the forger's side completes");
    const refused = expectRefused(receiveHandshake(welcome.state, proof.message), /did not prove its identity \(bad signature\)/);
    assert.equal(refused.message, null);
  });

  it("issue 16 #6: the dialer refuses a listener with the wrong did:key, or one that cannot sign for the right one", () => {
    const impostor = voter("b");
    const hello = dialerHello(a.self, b.known, fresh());
    const wrong = expectContinue(receiveHandshake(listenerHandshake(impostor.self, peersOf(a), fresh()), hello.message));
    expectRefused(receiveHandshake(hello.state, wrong.message), new RegExp(`answered as ${impostor.key.did}, not as ${b.key.did}`));

    const forger = generateKeyPair();
    const forged = expectContinue(receiveHandshake(listenerHandshake({ ...b.self, secretKey: forger.secretKey }, peersOf(a), fresh()), hello.message));
    expectRefused(receiveHandshake(hello.state, forged.message), /did not prove it is .* \(bad signature\)/);
  });

  it("issue 16 #6: a man in the middle cannot swap in its own ephemeral key or nonce", () => {
    const hello = dialerHello(a.self, b.known, fresh());
    const mitm = fresh();
    // Toward the listener: the MITM's ephemeral key in the hello; the listener signs a transcript the dialer never saw.
    const tamperedHello = bytes({ ...json(hello.message), eph: Buffer.from(mitm.ephemeral.publicKey).toString("base64url") });
    const welcome = expectContinue(receiveHandshake(listenerHandshake(b.self, peersOf(a), fresh()), tamperedHello));
    expectRefused(receiveHandshake(hello.state, welcome.message), /bad signature/);
    // Toward the dialer: a genuine welcome with the MITM's key or nonce put in.
    const genuine = expectContinue(receiveHandshake(listenerHandshake(b.self, peersOf(a), fresh()), hello.message));
    for (const field of ["eph", "nonce"]) {
      const value = field === "eph" ? mitm.ephemeral.publicKey : mitm.nonce;
      const tampered = bytes({ ...json(genuine.message), [field]: Buffer.from(value).toString("base64url") });
      expectRefused(receiveHandshake(hello.state, tampered), /bad signature/);
    }
  });

  it("issue 16 #6: a proof recorded from one handshake is refused in another (replay)", () => {
    const first = handshake(a, b);
    if (first.dialerDone.kind !== "done" || first.dialerDone.message === null) return;
    // A replaying attacker re-sends a's recorded hello and proof; the listener's fresh ephemeral key and nonce change the transcript.
    const welcome = expectContinue(receiveHandshake(listenerHandshake(b.self, peersOf(a), fresh()), first.hello.message));
    expectRefused(receiveHandshake(welcome.state, first.dialerDone.message), /bad signature/);
    // And a recorded welcome does not satisfy a new dialer.
    const hello = dialerHello(a.self, b.known, fresh());
    expectRefused(receiveHandshake(hello.state, first.welcome.message), /bad signature/);
  });

  it("issue 16 #6: a listener's own welcome signature cannot be reflected back as the dialer's proof", () => {
    const hello = dialerHello(a.self, b.known, fresh());
    const welcome = expectContinue(receiveHandshake(listenerHandshake(b.self, peersOf(a, b), fresh()), hello.message));
    const reflected = bytes({ t: "proof", sig: json(welcome.message).sig });
    expectRefused(receiveHandshake(welcome.state, reflected), /bad signature/);
  });

  it("refuses malformed messages, other protocol versions and low-order ephemeral keys", () => {
    const listener = () => listenerHandshake(b.self, peersOf(a), fresh());
    expectRefused(receiveHandshake(listener(), Buffer.from("GET / HTTP/1.1")), /not a Charter peer hello/);
    expectRefused(receiveHandshake(listener(), bytes([1, 2])), /not a Charter peer hello/);
    const hello = json(dialerHello(a.self, b.known, fresh()).message);
    expectRefused(receiveHandshake(listener(), bytes({ ...hello, v: "charter-peer-link/v1" })), /unsupported peer protocol/);
    expectRefused(receiveHandshake(listener(), bytes({ ...hello, nonce: "short" })), /malformed hello/);
    expectRefused(receiveHandshake(listener(), bytes({ ...hello, eph: Buffer.alloc(32).toString("base64url") })), /unusable ephemeral key/);
    const dialer = dialerHello(a.self, b.known, fresh()).state;
    expectRefused(receiveHandshake(dialer, bytes({ t: "welcome" })), /malformed welcome/);
    expectRefused(receiveHandshake(dialer, Buffer.from([0xff, 0x00])), /did not answer with a Charter peer welcome/);
  });
});
