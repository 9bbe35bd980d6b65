/**
 * @module The voters' peer-link handshake as pure functions (state and message in, state and
 * message out; the caller supplies the fresh ephemeral key and nonce and moves the bytes). A
 * SIGMA-style signed Diffie-Hellman, three messages, dialer first:
 *
 *   1. dialer → listener  hello   {v, id, did, eph, nonce}       the dialer's ephemeral X25519 key and nonce;
 *   2. listener → dialer  welcome {id, did, eph, nonce, sig}     the listener's, signed over the transcript;
 *   3. dialer → listener  proof   {sig}                          the dialer's signature over the transcript.
 *
 * The transcript binds the protocol label, both ids and did:keys, both ephemeral keys and both
 * nonces; each side signs it under its own role with its Ed25519 node key, so a signature cannot
 * be replayed on another connection, reflected to its signer, or moved to another pair of voters.
 * Each side checks the other's signature against the did:key it has configured for that voter.
 * The two directional session keys come from X25519 (`crypto_kx`) mixed with the transcript hash,
 * so they are fresh per connection (forward secret once the ephemeral keys are gone). The
 * listener answers only a dialer whose did:key and id are a configured voter's, and tells any
 * other why with a `refuse` message (unauthenticated: it only helps an operator read the logs).
 */
import { base64urlDecode, base64urlEncode } from "../../../shared/identity/base64url.ts";
import { ed25519Sign, ed25519Verify, SIGNATURE_BYTES } from "../../../shared/identity/sodium.ts";
import { blake2b, KX_PUBLIC_KEY_BYTES, type KxKeyPair, kxSessionKeys } from "./peer-crypto.ts";
import { clip } from "../../../shared/worker/peers.ts";

/** The protocol label: in every hello and every signed transcript, so the signatures mean nothing elsewhere. */
export const PEER_PROTOCOL = "charter-peer-link/v2";
/** The size of each side's handshake nonce. */
export const HANDSHAKE_NONCE_BYTES = 32;
/** A refusal's reason is cut to this length both ways (it comes from an unauthenticated party). */
const REASON_CHARS = 200;

/** This voter, as the handshake needs it. */
export interface HandshakeSelf {
  readonly id: string;
  readonly did: string;
  /** The node key's libsodium secret key. */
  readonly secretKey: Uint8Array;
}

/** A configured voter: its id, did:key and the Ed25519 public key in it. */
export interface KnownPeer {
  readonly id: string;
  readonly did: string;
  readonly publicKey: Uint8Array;
}

/** The randomness one handshake uses: an ephemeral X25519 key pair and a nonce. */
export interface HandshakeFresh {
  readonly ephemeral: KxKeyPair;
  readonly nonce: Uint8Array;
}

/** The keys a finished handshake gives: `send` seals what this side sends, `receive` opens what it receives. */
export interface SessionKeys {
  readonly send: Uint8Array;
  readonly receive: Uint8Array;
}

/** Where a handshake stands between messages. */
export type Handshake =
  | { readonly phase: "dialer-sent-hello"; readonly self: HandshakeSelf; readonly peer: KnownPeer; readonly fresh: HandshakeFresh }
  | { readonly phase: "listener-awaiting-hello"; readonly self: HandshakeSelf; readonly peers: ReadonlyMap<string, KnownPeer>; readonly fresh: HandshakeFresh }
  | { readonly phase: "listener-sent-welcome"; readonly self: HandshakeSelf; readonly peer: KnownPeer; readonly transcript: Uint8Array; readonly keys: SessionKeys };

/** What one received message leads to; `message`, when not null, goes to the other side first. */
export type HandshakeStep =
  | { readonly kind: "continue"; readonly state: Handshake; readonly message: Uint8Array }
  | { readonly kind: "done"; readonly peer: KnownPeer; readonly keys: SessionKeys; readonly message: Uint8Array | null }
  | {
      readonly kind: "refused";
      /** For the log; names the offending did when there is one. */
      readonly reason: string;
      /** The did the other side claimed, when it got that far. */
      readonly did: string | null;
      /** True when the other side refused us (a `refuse` message), false when we refused it. */
      readonly byPeer: boolean;
      readonly message: Uint8Array | null;
    };

/** Starts a handshake as the dialer of `peer`: the state to keep and the hello to send. */
export function dialerHello(self: HandshakeSelf, peer: KnownPeer, fresh: HandshakeFresh): { state: Handshake; message: Uint8Array } {
  const hello = { t: "hello", v: PEER_PROTOCOL, id: self.id, did: self.did, eph: base64urlEncode(fresh.ephemeral.publicKey), nonce: base64urlEncode(fresh.nonce) };
  return { state: { phase: "dialer-sent-hello", self, peer, fresh }, message: encode(hello) };
}

/** Starts a handshake as the listener: it waits for a hello from one of `peers` (keyed by did). */
export function listenerHandshake(self: HandshakeSelf, peers: ReadonlyMap<string, KnownPeer>, fresh: HandshakeFresh): Handshake {
  return { phase: "listener-awaiting-hello", self, peers, fresh };
}

/** Advances a handshake by one message from the other side. */
export function receiveHandshake(state: Handshake, message: Uint8Array): HandshakeStep {
  const fields = decode(message);
  switch (state.phase) {
    case "listener-awaiting-hello":
      return onHello(state, fields);
    case "dialer-sent-hello":
      return onWelcome(state, fields);
    case "listener-sent-welcome":
      return onProof(state, fields);
    default: {
      const never: never = state;
      throw new Error(`unknown handshake phase ${JSON.stringify(never)}`);
    }
  }
}

function onHello(state: Extract<Handshake, { phase: "listener-awaiting-hello" }>, m: Record<string, unknown> | null): HandshakeStep {
  if (m === null || m.t !== "hello") return refuse("not a Charter peer hello", null);
  if (m.v !== PEER_PROTOCOL) return refuse(`an unsupported peer protocol ${clip(String(m.v))} (this voter speaks ${PEER_PROTOCOL})`, null);
  const { id, did } = m;
  const eph = bytes(m.eph, KX_PUBLIC_KEY_BYTES);
  const nonce = bytes(m.nonce, HANDSHAKE_NONCE_BYTES);
  if (typeof id !== "string" || typeof did !== "string" || eph === null || nonce === null) return refuse("a malformed hello", null);
  const peer = state.peers.get(did);
  if (peer === undefined) return refuse(`${clip(did)} (calling itself ${clip(id)}) is not a configured peer`, did);
  if (peer.id !== id) return refuse(`${did} calls itself ${clip(id)}, but is configured as peer ${peer.id}`, did);
  const { self, fresh } = state;
  const transcript = transcriptHash(peer, self, eph, nonce, fresh.ephemeral.publicKey, fresh.nonce);
  const keys = sessionKeys("listener", fresh.ephemeral, eph, transcript);
  if (keys === null) return refuse(`peer ${id} (${did}) sent an unusable ephemeral key`, did);
  const sig = ed25519Sign(signed("listener", transcript), self.secretKey);
  const welcome = { t: "welcome", id: self.id, did: self.did, eph: base64urlEncode(fresh.ephemeral.publicKey), nonce: base64urlEncode(fresh.nonce), sig: base64urlEncode(sig) };
  return { kind: "continue", state: { phase: "listener-sent-welcome", self, peer, transcript, keys }, message: encode(welcome) };
}

function onWelcome(state: Extract<Handshake, { phase: "dialer-sent-hello" }>, m: Record<string, unknown> | null): HandshakeStep {
  const { self, peer, fresh } = state;
  const dropped = (reason: string) => ({ kind: "refused", reason, did: peer.did, byPeer: false, message: null }) as const;
  if (m !== null && m.t === "refuse") return { kind: "refused", reason: typeof m.reason === "string" ? m.reason.slice(0, REASON_CHARS) : "no reason given", did: peer.did, byPeer: true, message: null };
  if (m === null || m.t !== "welcome") return dropped("the peer did not answer with a Charter peer welcome");
  const { id, did } = m;
  const eph = bytes(m.eph, KX_PUBLIC_KEY_BYTES);
  const nonce = bytes(m.nonce, HANDSHAKE_NONCE_BYTES);
  const sig = bytes(m.sig, SIGNATURE_BYTES);
  if (typeof id !== "string" || typeof did !== "string" || eph === null || nonce === null || sig === null) return dropped("a malformed welcome");
  if (did !== peer.did) return dropped(`it answered as ${clip(did)}, not as ${peer.did}`);
  if (id !== peer.id) return dropped(`${peer.did} calls itself ${clip(id)}, but is configured as peer ${peer.id}`);
  const transcript = transcriptHash(self, peer, fresh.ephemeral.publicKey, fresh.nonce, eph, nonce);
  if (!ed25519Verify(sig, signed("listener", transcript), peer.publicKey)) return dropped(`it did not prove it is ${peer.did} (bad signature)`);
  const keys = sessionKeys("dialer", fresh.ephemeral, eph, transcript);
  if (keys === null) return dropped("it sent an unusable ephemeral key");
  const proof = { t: "proof", sig: base64urlEncode(ed25519Sign(signed("dialer", transcript), self.secretKey)) };
  return { kind: "done", peer, keys, message: encode(proof) };
}

function onProof(state: Extract<Handshake, { phase: "listener-sent-welcome" }>, m: Record<string, unknown> | null): HandshakeStep {
  const { peer } = state;
  const sig = m !== null && m.t === "proof" ? bytes(m.sig, SIGNATURE_BYTES) : null;
  // No refuse message: the dialer already counts the link as open, and a genuine one never gets here.
  if (sig === null || !ed25519Verify(sig, signed("dialer", state.transcript), peer.publicKey)) {
    return { kind: "refused", reason: `peer ${peer.id} (${peer.did}) did not prove its identity (bad signature)`, did: peer.did, byPeer: false, message: null };
  }
  return { kind: "done", peer, keys: state.keys, message: null };
}

/** A refusal by the listener, with the message that tells the dialer why. */
function refuse(reason: string, did: string | null): HandshakeStep {
  return { kind: "refused", reason, did, byPeer: false, message: encode({ t: "refuse", reason: reason.slice(0, REASON_CHARS) }) };
}

/**
 * BLAKE2b-256 of the label and every value both sides agreed on, each length-prefixed so no two
 * transcripts share an encoding. Written in dialer-then-listener order on both sides.
 */
function transcriptHash(dialer: { id: string; did: string }, listener: { id: string; did: string }, dialerEph: Uint8Array, dialerNonce: Uint8Array, listenerEph: Uint8Array, listenerNonce: Uint8Array): Uint8Array {
  const parts = [PEER_PROTOCOL, dialer.id, dialer.did, listener.id, listener.did].map((s) => Buffer.from(s, "utf8"));
  parts.push(Buffer.from(dialerEph), Buffer.from(dialerNonce), Buffer.from(listenerEph), Buffer.from(listenerNonce));
  const framed: Buffer[] = [];
  for (const part of parts) {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(part.length);
    framed.push(length, part);
  }
  return blake2b(Buffer.concat(framed), 32);
}

/** What a side signs: the label, its role and the transcript hash. */
function signed(role: "dialer" | "listener", transcript: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${PEER_PROTOCOL}\n${role}\n`, "utf8"), transcript]);
}

/** The directional keys: crypto_kx's, each mixed with the transcript hash; null for a low-order public key. */
function sessionKeys(role: "dialer" | "listener", own: KxKeyPair, other: Uint8Array, transcript: Uint8Array): SessionKeys | null {
  let kx: { rx: Uint8Array; tx: Uint8Array };
  try {
    kx = kxSessionKeys(role, own, other);
  } catch {
    return null;
  }
  return { send: blake2b(transcript, 32, kx.tx), receive: blake2b(transcript, 32, kx.rx) };
}

function encode(fields: Record<string, string>): Uint8Array {
  return Buffer.from(JSON.stringify(fields), "utf8");
}

/** A handshake message's JSON object, or null. */
function decode(message: Uint8Array): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(message.buffer, message.byteOffset, message.byteLength).toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The bytes of a base64url field of exactly `length` bytes, or null. */
function bytes(value: unknown, length: number): Buffer | null {
  if (typeof value !== "string" || value.length > 128) return null;
  const decoded = base64urlDecode(value);
  return decoded !== null && decoded.length === length ? decoded : null;
}
