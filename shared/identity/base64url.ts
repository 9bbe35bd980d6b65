/**
 * @module Strict base64url without padding (RFC 7515 §2), as JWS segments use it. Node's own
 * decoder silently skips characters outside the alphabet and ignores stray trailing bits; a
 * signature layer must not, or two different strings would carry the same signed bytes.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Character code → 6-bit value, -1 outside the alphabet (which includes `=` padding). */
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

/** The unpadded base64url text of `bytes` (a string is taken as UTF-8). */
export function base64urlEncode(bytes: Uint8Array | string): string {
  return (typeof bytes === "string" ? Buffer.from(bytes, "utf8") : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString("base64url");
}

/** Whether `text[start, end)` is canonical unpadded base64url: alphabet only, a possible length, zero spare bits. */
export function isBase64url(text: string, start = 0, end = text.length): boolean {
  const length = end - start;
  if (length % 4 === 1) return false;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || (VALUES[code] as number) < 0) return false;
  }
  if (length === 0) return true;
  // The last character carries 4 (length ≡ 2 mod 4) or 2 (≡ 3) bits that encode nothing; they must be zero.
  const last = VALUES[text.charCodeAt(end - 1)] as number;
  const rest = length % 4;
  if (rest === 2) return (last & 0x0f) === 0;
  if (rest === 3) return (last & 0x03) === 0;
  return true;
}

/** The bytes of canonical base64url `text`, or `null` if it is not canonical base64url. */
export function base64urlDecode(text: string): Buffer | null {
  if (!isBase64url(text)) return null;
  return Buffer.from(text, "base64url");
}
