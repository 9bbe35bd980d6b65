/**
 * @module The node's seal: a short fingerprint of its did:key that a person learns to recognise,
 * so a look-alike node gives itself away. It is the first 80 bits of SHA-256 of the did (as text),
 * in RFC 4648 base32 (`A`–`Z`, `2`–`7`), four groups of four joined by dashes: `K7QF-2MZA-…`.
 */
import { createHash } from "node:crypto";

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/** Characters in a seal, without its dashes. */
const SEAL_CHARS = 16;

/** The seal of `did`. */
export function sealOf(did: string): string {
  const digest = createHash("sha256").update(did, "utf8").digest();
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < SEAL_CHARS) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
    if (out.length === SEAL_CHARS) break;
  }
  return (out.match(/.{4}/g) as string[]).join("-");
}
