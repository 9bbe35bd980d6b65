/**
 * @module The one place that loads libsodium (`sodium-native`) and gives the few functions the
 * identity layer uses typed names. The package ships no type declarations, so everything else
 * imports from here rather than from `sodium-native`.
 */
import { createRequire } from "node:module";

/** The subset of sodium-native's API we call; buffers are Node Buffers or any Uint8Array. */
interface SodiumNative {
  readonly crypto_sign_PUBLICKEYBYTES: number;
  readonly crypto_sign_SECRETKEYBYTES: number;
  readonly crypto_sign_SEEDBYTES: number;
  readonly crypto_sign_BYTES: number;
  crypto_sign_keypair(pk: Uint8Array, sk: Uint8Array): void;
  crypto_sign_seed_keypair(pk: Uint8Array, sk: Uint8Array, seed: Uint8Array): void;
  crypto_sign_detached(sig: Uint8Array, message: Uint8Array, sk: Uint8Array): void;
  crypto_sign_verify_detached(sig: Uint8Array, message: Uint8Array, pk: Uint8Array): boolean;
}

const sodium = createRequire(import.meta.url)("sodium-native") as SodiumNative;

/** Ed25519 sizes in bytes: public key 32, libsodium secret key 64 (seed ‖ public key), seed 32, signature 64. */
export const PUBLIC_KEY_BYTES = sodium.crypto_sign_PUBLICKEYBYTES;
export const SECRET_KEY_BYTES = sodium.crypto_sign_SECRETKEYBYTES;
export const SEED_BYTES = sodium.crypto_sign_SEEDBYTES;
export const SIGNATURE_BYTES = sodium.crypto_sign_BYTES;

/** A fresh random Ed25519 key pair in libsodium's layout. */
export function ed25519Generate(): { publicKey: Buffer; secretKey: Buffer } {
  const publicKey = Buffer.alloc(PUBLIC_KEY_BYTES);
  const secretKey = Buffer.alloc(SECRET_KEY_BYTES);
  sodium.crypto_sign_keypair(publicKey, secretKey);
  return { publicKey, secretKey };
}

/** The key pair derived from a 32-byte seed (the JWK `d`). */
export function ed25519FromSeed(seed: Uint8Array): { publicKey: Buffer; secretKey: Buffer } {
  const publicKey = Buffer.alloc(PUBLIC_KEY_BYTES);
  const secretKey = Buffer.alloc(SECRET_KEY_BYTES);
  sodium.crypto_sign_seed_keypair(publicKey, secretKey, seed);
  return { publicKey, secretKey };
}

/** The 64-byte detached signature of `message`. */
export function ed25519Sign(message: Uint8Array, secretKey: Uint8Array): Buffer {
  const signature = Buffer.alloc(SIGNATURE_BYTES);
  sodium.crypto_sign_detached(signature, message, secretKey);
  return signature;
}

/** Whether `signature` (exactly 64 bytes; callers check) is `publicKey`'s signature of `message`. */
export function ed25519Verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  return sodium.crypto_sign_verify_detached(signature, message, publicKey);
}
