/**
 * @module Sessions: the token a sign-in hands out (256 random bits, base64url, stored only as its
 * SHA-256), the `charter_session` cookie that carries it, and the check every `/api` request makes.
 * The check is one lookup on a unique index: the token has the entropy of a key, so a fast hash is
 * the right one (a slow one protects guessable secrets, and nobody can guess 256 bits).
 */
import { createHash } from "node:crypto";
import type { AccountStore, SessionRecord, SessionScope } from "./account-store.ts";
import { type RandomBytes, randomToken } from "./codes.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "charter_session";

/** A recovery sign-in lasts this long (ms), whatever the settings say. */
export const RECOVERY_SESSION_MS = 15 * 60_000;

/** `lastSeenAt` is written at most once per this many ms of activity, so checks stay reads. */
export const TOUCH_EVERY_MS = 60_000;

const DAY_MS = 86_400_000;
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A new session token: 256 random bits, base64url (43 characters). */
export function newSessionToken(random: RandomBytes): string {
  return randomToken(random, TOKEN_BYTES);
}

/** The stored form of a session token. */
export function tokenHash(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** Starts a session of `scope` at `now` and answers its token (shown once, then only its hash is kept). */
export function startSession(store: AccountStore, scope: SessionScope, userAgent: string, now: number, random: RandomBytes): { token: string; session: SessionRecord } {
  const token = newSessionToken(random);
  const session: SessionRecord = { id: randomToken(random, 16), scope, createdAt: now, lastSeenAt: now, userAgent: userAgent.slice(0, 256), steppedUpUntil: 0, stepUpEvidence: null, endedAt: null };
  store.createSession(session, tokenHash(token));
  return { token, session };
}

/** When a session stops being valid if it stays active: its lifetime (recovery sign-ins are short). */
export function sessionExpiresAt(session: SessionRecord, sessionDays: number): number {
  return session.createdAt + (session.scope === "recovery" ? RECOVERY_SESSION_MS : sessionDays * DAY_MS);
}

/**
 * The live session the token belongs to at `now`, or null: unknown, ended, past its lifetime, or
 * idle too long. A live session's `lastSeenAt` moves forward at most once a minute.
 */
export function checkSession(store: AccountStore, token: string | null | undefined, now: number): SessionRecord | null {
  if (typeof token !== "string" || !TOKEN_SHAPE.test(token)) return null;
  const session = store.sessionByTokenHash(tokenHash(token));
  if (session === null || session.endedAt !== null) return null;
  const settings = store.account()?.settings;
  if (settings === undefined) return null;
  if (now >= sessionExpiresAt(session, settings.sessionDays)) return null;
  if (now - session.lastSeenAt >= settings.idleDays * DAY_MS) return null;
  if (now - session.lastSeenAt < TOUCH_EVERY_MS) return session;
  store.touchSession(session.id, now);
  return { ...session, lastSeenAt: now };
}

/** Whether the session may do sensitive things at `now`. */
export function steppedUp(session: SessionRecord, now: number): boolean {
  return session.steppedUpUntil > now;
}

/** The `Set-Cookie` value that hands `token` to the browser for `maxAgeSeconds`. */
export function sessionCookie(token: string, origin: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}${secure(origin)}`;
}

/** The `Set-Cookie` value that takes the session cookie away (sign-out, a refused session). */
export function clearSessionCookie(origin: string): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure(origin)}`;
}

/** The session token in a `Cookie` header, or null. */
export function sessionTokenFrom(cookieHeader: string | null | undefined): string | null {
  if (typeof cookieHeader !== "string") return null;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}

/** `; Secure` when the origin is HTTPS; a plain-HTTP origin (the localhost default) could not send it back. */
function secure(origin: string): string {
  return new URL(origin).protocol === "https:" ? "; Secure" : "";
}
