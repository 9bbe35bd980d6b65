/**
 * @module The libsodium primitives the voters' peer link uses: X25519 key exchange (`crypto_kx`),
 * BLAKE2b, and XChaCha20-Poly1305 (IETF AEAD). `shared/identity/sodium.ts` loads `sodium-native`
 * for the identity layer and exports only its Ed25519 functions; this module loads the same package
 * (Node caches it, so it is one native instance) and names the link's functions, so the rest of the
 * cluster never touches the untyped package.
 */
import { createRequire } from "node:module";

/** The subset of sodium-native's API the peer link calls. */
interface SodiumNative {
  readonly crypto_kx_PUBLICKEYBYTES: number;
  readonly crypto_kx_SECRETKEYBYTES: number;
  readonly crypto_kx_SESSIONKEYBYTES: number;
  readonly crypto_aead_xchacha20poly1305_ietf_KEYBYTES: number;
  readonly crypto_aead_xchacha20poly1305_ietf_NPUBBYTES: number;
  readonly crypto_aead_xchacha20poly1305_ietf_ABYTES: number;
  crypto_kx_keypair(pk: Uint8Array, sk: Uint8Array): void;
  crypto_kx_client_session_keys(rx: Uint8Array, tx: Uint8Array, clientPk: Uint8Array, clientSk: Uint8Array, serverPk: Uint8Array): void;
  crypto_kx_server_session_keys(rx: Uint8Array, tx: Uint8Array, serverPk: Uint8Array, serverSk: Uint8Array, clientPk: Uint8Array): void;
  crypto_generichash(out: Uint8Array, input: Uint8Array, key?: Uint8Array): void;
  crypto_aead_xchacha20poly1305_ietf_encrypt(c: Uint8Array, m: Uint8Array, ad: Uint8Array | null, nsec: null, npub: Uint8Array, k: Uint8Array): number;
  crypto_aead_xchacha20poly1305_ietf_decrypt(m: Uint8Array, nsec: null, c: Uint8Array, ad: Uint8Array | null, npub: Uint8Array, k: Uint8Array): number;
  randombytes_buf(out: Uint8Array): void;
}

const sodium = createRequire(import.meta.url)("sodium-native") as SodiumNative;

/** X25519 public and secret key sizes, and the size of each derived session key (32 bytes each). */
export const KX_PUBLIC_KEY_BYTES = sodium.crypto_kx_PUBLICKEYBYTES;
export const KX_SESSION_KEY_BYTES = sodium.crypto_kx_SESSIONKEYBYTES;
/** XChaCha20-Poly1305: key 32 bytes, nonce 24, tag 16. */
export const AEAD_KEY_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_KEYBYTES;
export const AEAD_NONCE_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
export const AEAD_TAG_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_ABYTES;

/** An ephemeral X25519 key pair (one per connection attempt). */
export interface KxKeyPair {
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

/** A fresh ephemeral X25519 key pair. */
export function kxKeyPair(): KxKeyPair {
  const publicKey = Buffer.alloc(sodium.crypto_kx_PUBLICKEYBYTES);
  const secretKey = Buffer.alloc(sodium.crypto_kx_SECRETKEYBYTES);
  sodium.crypto_kx_keypair(publicKey, secretKey);
  return { publicKey, secretKey };
}

/**
 * The two directional keys of a key exchange, as `[rx, tx]` for the side named by `role`: the
 * dialer is libsodium's client, the listener its server. Throws when the other public key is a
 * low-order point (libsodium refuses it); callers turn that into a refusal.
 */
export function kxSessionKeys(role: "dialer" | "listener", own: KxKeyPair, other: Uint8Array): { rx: Buffer; tx: Buffer } {
  const rx = Buffer.alloc(KX_SESSION_KEY_BYTES);
  const tx = Buffer.alloc(KX_SESSION_KEY_BYTES);
  if (role === "dialer") sodium.crypto_kx_client_session_keys(rx, tx, own.publicKey, own.secretKey, other);
  else sodium.crypto_kx_server_session_keys(rx, tx, own.publicKey, own.secretKey, other);
  return { rx, tx };
}

/** BLAKE2b of `input` with `bytes` of output (16–64), keyed when `key` is given. */
export function blake2b(input: Uint8Array, bytes = 32, key?: Uint8Array): Buffer {
  const out = Buffer.alloc(bytes);
  if (key === undefined) sodium.crypto_generichash(out, input);
  else sodium.crypto_generichash(out, input, key);
  return out;
}

/** Seals `plaintext` into `out` (exactly `plaintext.length + AEAD_TAG_BYTES` bytes). */
export function aeadSeal(out: Uint8Array, plaintext: Uint8Array, nonce: Uint8Array, key: Uint8Array): void {
  sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(out, plaintext, null, null, nonce, key);
}

/**
 * Opens `ciphertext` into `out` (exactly `ciphertext.length - AEAD_TAG_BYTES` bytes); false when it
 * was not sealed with this key and nonce or was altered (sodium-native throws; a forgery is
 * expected input here, not a bug).
 */
export function aeadOpen(out: Uint8Array, ciphertext: Uint8Array, nonce: Uint8Array, key: Uint8Array): boolean {
  try {
    sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(out, null, ciphertext, null, nonce, key);
    return true;
  } catch {
    return false;
  }
}

/** `bytes` random bytes from libsodium's generator. */
export function randomBytes(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  sodium.randombytes_buf(out);
  return out;
}
