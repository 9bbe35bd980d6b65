/**
 * @module `did:key` for Ed25519 public keys: `did:key:z` + base58btc(0xed 0x01 ‖ 32-byte key).
 * Decoding is on the write path (every command's `kid`), so it is strict, allocation-light and
 * memoises recent identities.
 */
import { base58Decode, base58Encode } from "./base58.ts";
import { fail, ok, type Result } from "../result.ts";

/** Why a string is not an Ed25519 did:key. */
export type DidKeyErrorCode =
  | "not_did_key" //          does not start with `did:key:`
  | "unsupported_multibase" // the method-specific id does not start with `z` (base58btc)
  | "invalid_base58" //       characters outside the base58btc alphabet, or empty
  | "unsupported_key_type" // the multicodec prefix is not 0xed01 (Ed25519 public key)
  | "invalid_key_length"; //  not exactly 32 key bytes after the prefix

/** A did:key decoding failure. */
export interface DidKeyError {
  readonly code: DidKeyErrorCode;
  readonly message: string;
}

const PREFIX = "did:key:";
/** The multicodec varint for `ed25519-pub` (0xed), as two bytes. */
const ED25519_PUB_0 = 0xed;
const ED25519_PUB_1 = 0x01;
/** An Ed25519 did:key is always `did:key:` + 49 characters; anything much longer is rejected before decoding. */
const MAX_ID_LENGTH = 64;

/** The did:key of a 32-byte Ed25519 public key. */
export function didKeyFromPublicKey(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new RangeError(`an Ed25519 public key has 32 bytes, not ${publicKey.length}`);
  const bytes = new Uint8Array(34);
  bytes[0] = ED25519_PUB_0;
  bytes[1] = ED25519_PUB_1;
  bytes.set(publicKey, 2);
  return `${PREFIX}z${base58Encode(bytes)}`;
}

/** Recently decoded identities; cleared wholesale when full, which is cheap and bounds memory. */
const cache = new Map<string, Uint8Array>();
const CACHE_LIMIT = 4096;

/** The 32-byte public key a did:key names, or why it names none. The returned bytes must not be modified. */
export function publicKeyFromDidKey(did: string): Result<Uint8Array, DidKeyError> {
  const cached = cache.get(did);
  if (cached !== undefined) return ok(cached);
  const decoded = decode(did);
  if (decoded.ok) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(did, decoded.value);
  }
  return decoded;
}

/** Whether `did` is a well-formed Ed25519 did:key. */
export function isDidKey(did: unknown): did is string {
  return typeof did === "string" && publicKeyFromDidKey(did).ok;
}

function decode(did: string): Result<Uint8Array, DidKeyError> {
  if (!did.startsWith(PREFIX)) return fail({ code: "not_did_key", message: `'${clip(did)}' is not a did:key (it must start with 'did:key:')` });
  const id = did.slice(PREFIX.length);
  if (id[0] !== "z") return fail({ code: "unsupported_multibase", message: `did:key '${clip(did)}' is not base58btc multibase (it must start with 'did:key:z')` });
  if (id.length > MAX_ID_LENGTH) return fail({ code: "invalid_key_length", message: `did:key '${clip(did)}' is too long for an Ed25519 key` });
  const bytes = id.length > 1 ? base58Decode(id.slice(1)) : null;
  if (bytes === null) return fail({ code: "invalid_base58", message: `did:key '${clip(did)}' is not valid base58btc` });
  if (bytes.length < 2 || bytes[0] !== ED25519_PUB_0 || bytes[1] !== ED25519_PUB_1) {
    return fail({ code: "unsupported_key_type", message: `did:key '${clip(did)}' is not an Ed25519 key (multicodec 0xed01; Ed25519 did:keys start with 'did:key:z6Mk')` });
  }
  if (bytes.length !== 34) return fail({ code: "invalid_key_length", message: `did:key '${clip(did)}' holds ${bytes.length - 2} key bytes; Ed25519 needs 32` });
  return ok(bytes.subarray(2));
}

/** Keep hostile input out of messages at a readable length. */
function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
