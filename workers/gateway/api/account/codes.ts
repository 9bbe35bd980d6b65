/**
 * @module The human-typed codes of the account (set-up, recovery, pairing) and the random tokens
 * (sessions, challenges, ids): made from an injected random source, typed in an alphabet without
 * look-alike characters, stored only as hashes, compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A source of random bytes: `crypto.randomBytes` in production, a seeded one in tests. */
export type RandomBytes = (size: number) => Uint8Array;

/** The real random source. */
export const systemRandom: RandomBytes = (size) => randomBytes(size);

/** 32 characters without 0/O, 1/I: one character is exactly five random bits. */
export const CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";

/** `length` characters of the alphabet, grouped by four with dashes (`XXXX-XXXX`). */
export function newCode(random: RandomBytes, length: number): string {
  const bytes = random(length);
  let out = "";
  for (let i = 0; i < length; i++) {
    if (i > 0 && i % 4 === 0) out += "-";
    out += CODE_ALPHABET[(bytes[i] as number) & 31];
  }
  return out;
}

/**
 * What a person typed, reduced to the code's characters: upper case, without dashes or spaces; null
 * when it cannot be a code of `length` characters.
 */
export function normalizeCode(typed: unknown, length: number): string | null {
  if (typeof typed !== "string" || typed.length > length * 2 + 8) return null;
  const bare = typed.toUpperCase().replace(/[\s-]/g, "");
  if (bare.length !== length) return null;
  for (const ch of bare) if (!CODE_ALPHABET.includes(ch)) return null;
  return bare;
}

/** The code's stored form: its characters without grouping, hashed. */
export function codeHash(code: string): Buffer {
  return sha256(code.toUpperCase().replace(/[\s-]/g, ""));
}

/** SHA-256 of a string. */
export function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Whether two strings are equal, in time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/** `bytes` random bytes as base64url (tokens, ids, challenges). */
export function randomToken(random: RandomBytes, bytes: number): string {
  return Buffer.from(random(bytes)).toString("base64url");
}
