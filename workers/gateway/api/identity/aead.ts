/**
 * @module XChaCha20-Poly1305 (IETF AEAD) from libsodium, for sealing secrets at rest: a random
 * 24-byte nonce per sealing (large enough that random nonces never repeat), the associated data
 * binding a sealed secret to what it belongs to. The one place under `/api` that loads
 * `sodium-native`, which ships no types.
 */
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";

interface SodiumAead {
  readonly crypto_aead_xchacha20poly1305_ietf_KEYBYTES: number;
  readonly crypto_aead_xchacha20poly1305_ietf_NPUBBYTES: number;
  readonly crypto_aead_xchacha20poly1305_ietf_ABYTES: number;
  crypto_aead_xchacha20poly1305_ietf_encrypt(c: Uint8Array, m: Uint8Array, ad: Uint8Array | null, nsec: null, npub: Uint8Array, k: Uint8Array): number;
  crypto_aead_xchacha20poly1305_ietf_decrypt(m: Uint8Array, nsec: null, c: Uint8Array, ad: Uint8Array | null, npub: Uint8Array, k: Uint8Array): number;
}

const sodium = createRequire(import.meta.url)("sodium-native") as SodiumAead;

/** Key and nonce sizes in bytes (32 and 24). */
export const AEAD_KEY_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_KEYBYTES;
export const AEAD_NONCE_BYTES = sodium.crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;

/** A sealed secret: the nonce it was sealed with and the ciphertext (with its 16-byte tag). */
export interface Sealed {
  readonly nonce: Uint8Array;
  readonly ciphertext: Uint8Array;
}

/** Seals `plaintext` under `key`, bound to `ad`. */
export function sealSecret(plaintext: Uint8Array, key: Uint8Array, ad: Uint8Array): Sealed {
  const nonce = randomBytes(AEAD_NONCE_BYTES);
  const ciphertext = Buffer.alloc(plaintext.length + sodium.crypto_aead_xchacha20poly1305_ietf_ABYTES);
  sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(ciphertext, plaintext, ad, null, nonce, key);
  return { nonce, ciphertext };
}

/** Opens a sealed secret; null when it was not sealed under `key` and `ad`, or was altered. */
export function openSecret(sealed: Sealed, key: Uint8Array, ad: Uint8Array): Buffer | null {
  const tag = sodium.crypto_aead_xchacha20poly1305_ietf_ABYTES;
  if (sealed.ciphertext.length < tag || sealed.nonce.length !== AEAD_NONCE_BYTES) return null;
  const plaintext = Buffer.alloc(sealed.ciphertext.length - tag);
  try {
    sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(plaintext, null, sealed.ciphertext, ad, sealed.nonce, key);
    return plaintext;
  } catch {
    // sodium-native throws on a forgery: to the caller it is simply not openable.
    return null;
  }
}
