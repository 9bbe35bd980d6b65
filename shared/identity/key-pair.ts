/**
 * @module Ed25519 key pairs as the identity layer holds them (libsodium's 64-byte secret key, the
 * public key and its did:key), and their JWK form (RFC 8037: `kty: OKP`, `crv: Ed25519`).
 */
import { base64urlDecode, base64urlEncode } from "./base64url.ts";
import { didKeyFromPublicKey } from "./did-key.ts";
import { fail, ok, type Result } from "../result.ts";
import { ed25519FromSeed, ed25519Generate, SEED_BYTES } from "./sodium.ts";

/** An identity that can sign: `secretKey` is libsodium's seed ‖ public key. */
export interface KeyPair {
  readonly did: string;
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

/** A private Ed25519 JWK, as key files hold it. */
export interface PrivateJwk {
  readonly kty: "OKP";
  readonly crv: "Ed25519";
  readonly x: string;
  readonly d: string;
}

/** A public Ed25519 JWK. */
export interface PublicJwk {
  readonly kty: "OKP";
  readonly crv: "Ed25519";
  readonly x: string;
}

/** Why a value is not a usable private Ed25519 JWK. */
export interface JwkError {
  readonly code: "bad_jwk";
  readonly message: string;
}

/** A new random identity. */
export function generateKeyPair(): KeyPair {
  const { publicKey, secretKey } = ed25519Generate();
  return { did: didKeyFromPublicKey(publicKey), publicKey, secretKey };
}

/** The identity a 32-byte seed determines (tests and test vectors use this). */
export function keyPairFromSeed(seed: Uint8Array): KeyPair {
  if (seed.length !== SEED_BYTES) throw new RangeError(`an Ed25519 seed has ${SEED_BYTES} bytes, not ${seed.length}`);
  const { publicKey, secretKey } = ed25519FromSeed(seed);
  return { did: didKeyFromPublicKey(publicKey), publicKey, secretKey };
}

/** The private JWK of a key pair (`d` is the seed, the first half of libsodium's secret key). */
export function toPrivateJwk(keyPair: KeyPair): PrivateJwk {
  return { kty: "OKP", crv: "Ed25519", x: base64urlEncode(keyPair.publicKey), d: base64urlEncode(keyPair.secretKey.subarray(0, SEED_BYTES)) };
}

/** The public JWK of a key pair, or of a bare public key. */
export function toPublicJwk(key: KeyPair | Uint8Array): PublicJwk {
  const publicKey = key instanceof Uint8Array ? key : key.publicKey;
  return { kty: "OKP", crv: "Ed25519", x: base64urlEncode(publicKey) };
}

/** The key pair a private JWK holds; `x`, when present, must match the key `d` derives. */
export function fromPrivateJwk(jwk: unknown): Result<KeyPair, JwkError> {
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) return bad("a JWK must be a JSON object");
  const { kty, crv, d, x } = jwk as Record<string, unknown>;
  if (kty !== "OKP" || crv !== "Ed25519") return bad(`only Ed25519 keys are supported (kty "OKP", crv "Ed25519"), not kty ${JSON.stringify(kty)} crv ${JSON.stringify(crv)}`);
  if (typeof d !== "string") return bad("the JWK has no private part 'd'");
  const seed = base64urlDecode(d);
  if (seed === null || seed.length !== SEED_BYTES) return bad(`'d' must be ${SEED_BYTES} bytes of unpadded base64url`);
  const keyPair = keyPairFromSeed(seed);
  if (x !== undefined && x !== base64urlEncode(keyPair.publicKey)) return bad("'x' does not match the public key derived from 'd'");
  return ok(keyPair);
}

function bad(message: string): Result<never, JwkError> {
  return fail({ code: "bad_jwk", message });
}
