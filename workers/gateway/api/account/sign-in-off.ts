/**
 * @module Sign-in turned off: on a node that only listens on the loopback interface, the person
 * may choose not to sign in on this machine. Then a caller without a live session is taken as the
 * person, through one session that stands for every such caller — a real session record (kept in
 * `account_sessions`, listed, endable), whose token was never handed to anyone. Everything else
 * is unchanged: the `Origin` check, and a step-up with a passkey for sensitive routes (a step-up
 * made by one such caller holds for all of them, for its five minutes).
 *
 * The setting is honoured only while the node listens on loopback: started on any other address,
 * the node asks for sign-in whatever the setting says, and it cannot be turned off there.
 */
import type { AccountContext } from "./account-context.ts";
import type { SessionRecord } from "./account-store.ts";
import { startSession } from "./sessions.ts";

/** What the sign-in-off session shows as its user agent in the sessions list. */
export const SIGN_IN_OFF_AGENT = "sign-in off (this machine)";

/** Whether an address the node listens on is a loopback address (127.0.0.0/8, ::1, or IPv4 mapped in IPv6). */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "::1" || bare === "localhost") return true;
  const v4 = bare.startsWith("::ffff:") ? bare.slice(7) : bare;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** Whether sign-in is off and honoured now (set up, turned off, listening on loopback). */
export function signInOff(ctx: AccountContext): boolean {
  const account = ctx.store.account();
  return ctx.loopback && account?.ready === true && !account.settings.signInRequired;
}

/** The session that stands for a caller without one while sign-in is off; null when sign-in is on. */
export function signInOffSession(ctx: AccountContext): SessionRecord | null {
  if (!signInOff(ctx)) return null;
  const id = ctx.store.signInOffSessionId();
  const existing = id === null ? null : ctx.store.session(id);
  if (existing !== null && existing.endedAt === null) return existing;
  // First use, or the person ended it (signed out): a new one, with no token anyone holds.
  return ctx.store.atomically(() => {
    const { session } = startSession(ctx.store, "full", SIGN_IN_OFF_AGENT, ctx.clock.now(), ctx.random);
    ctx.store.setSignInOffSessionId(session.id);
    return session;
  });
}

/** Ends the sign-in-off session (sign-in turned back on). */
export function endSignInOffSession(ctx: AccountContext): void {
  const id = ctx.store.signInOffSessionId();
  if (id === null) return;
  ctx.store.endSession(id, ctx.clock.now());
  ctx.store.setSignInOffSessionId(null);
}
