/**
 * @module The signed-in person's view of the account: whether the node is set up and who is signed
 * in, the sign-in settings, the list of sessions, ending one, signing out. Ending another session,
 * and turning sign-in off, take a step-up.
 */
import { fail, ok } from "../../../../shared/result.ts";
import { canonicalTimeZone } from "../time-zone.ts";
import { type AccountContext, type Outcome, requireFullSession, requireStepUp } from "./account-context.ts";
import { accountError } from "./account-errors.ts";
import type { AccountSettings, SessionRecord } from "./account-store.ts";
import { endSignInOffSession } from "./sign-in-off.ts";

/** `GET /api/account`: set up or not, signed in or not; the name and did only for a signed-in caller. */
export interface AccountStatus {
  readonly setUp: boolean;
  readonly signedIn: boolean;
  readonly firstName: string | null;
  readonly did: string | null;
}

/** One line of the sessions list. */
export interface SessionView {
  readonly id: string;
  readonly current: boolean;
  readonly scope: SessionRecord["scope"];
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly userAgent: string;
  readonly steppedUpUntil: number;
}

/** The largest lifetime and idle limit, in days. */
export const MAX_SESSION_DAYS = 365;

/** The account as the caller (signed in with `session`, or not: null) may see it. */
export function accountStatus(ctx: AccountContext, session: SessionRecord | null): AccountStatus {
  const account = ctx.store.account();
  const setUp = account?.ready === true;
  const signedIn = setUp && session !== null;
  return { setUp, signedIn, firstName: signedIn ? account.firstName : null, did: signedIn ? account.did : null };
}

/** The sign-in settings and the time zone. */
export function settings(ctx: AccountContext): AccountSettings | null {
  return ctx.store.account()?.settings ?? null;
}

/**
 * Replaces the sign-in settings: `sessionDays` 1–365, `idleDays` 1–`sessionDays`; `timeZone` an
 * IANA name `Intl` knows (kept in its canonical spelling). Turning sign-in off takes a step-up.
 */
export function updateSettings(ctx: AccountContext, session: SessionRecord, input: unknown): Outcome<AccountSettings> {
  const full = requireFullSession(session);
  if (!full.ok) return full;
  const current = ctx.store.account()?.settings;
  if (current === undefined) return fail(accountError("not-set-up", "this node has no account yet"));
  const s = input as Partial<Record<keyof AccountSettings, unknown>> | null;
  const next = {
    signInRequired: s?.signInRequired ?? current.signInRequired,
    sessionDays: s?.sessionDays ?? current.sessionDays,
    idleDays: s?.idleDays ?? current.idleDays,
  };
  const timeZone = s?.timeZone === undefined ? current.timeZone : canonicalTimeZone(s.timeZone);
  const errors: { pointer: string; detail: string }[] = [];
  if (typeof next.signInRequired !== "boolean") errors.push({ pointer: "#/signInRequired", detail: "true or false" });
  if (!isDays(next.sessionDays, MAX_SESSION_DAYS)) errors.push({ pointer: "#/sessionDays", detail: `a whole number of days from 1 to ${MAX_SESSION_DAYS}` });
  else if (!isDays(next.idleDays, next.sessionDays as number)) errors.push({ pointer: "#/idleDays", detail: `a whole number of days from 1 to sessionDays (${String(next.sessionDays)})` });
  if (timeZone === null) errors.push({ pointer: "#/timeZone", detail: "an IANA time zone, such as Europe/Paris" });
  if (errors.length > 0 || timeZone === null) {
    return fail({
      ...accountError(
        "bad-settings",
        `signInRequired is true or false; sessionDays a whole number from 1 to ${MAX_SESSION_DAYS}; idleDays from 1 to sessionDays; timeZone an IANA time zone such as Europe/Paris`,
      ),
      errors,
    });
  }
  if (current.signInRequired && !next.signInRequired) {
    if (!ctx.loopback) return fail(accountError("bad-settings", "sign-in can be turned off only while the node listens on loopback (127.0.0.1 or ::1): anyone who reaches it otherwise would be you"));
    const allowed = requireStepUp(ctx, session);
    if (!allowed.ok) return allowed;
  }
  const settled = { ...next, timeZone } as AccountSettings;
  ctx.store.atomically(() => {
    ctx.store.updateSettings(settled);
    // Only a zone the person gave is kept: one never chosen goes on following the machine's.
    if (s?.timeZone !== undefined) ctx.store.setTimeZone(timeZone);
    if (settled.signInRequired) endSignInOffSession(ctx);
  });
  return ok(settled);
}

/** The open sessions, most recently seen first; `current` marks the caller's. */
export function listSessions(ctx: AccountContext, current: SessionRecord): SessionView[] {
  return ctx.store.openSessions().map((s) => ({
    id: s.id,
    current: s.id === current.id,
    scope: s.scope,
    createdAt: s.createdAt,
    lastSeenAt: s.lastSeenAt,
    userAgent: s.userAgent,
    steppedUpUntil: s.steppedUpUntil,
  }));
}

/** Ends session `id`; another session than the caller's takes a step-up. */
export function endSession(ctx: AccountContext, current: SessionRecord, id: string): Outcome<void> {
  if (id !== current.id) {
    const allowed = requireStepUp(ctx, current);
    if (!allowed.ok) return allowed;
  }
  return ctx.store.endSession(id, ctx.clock.now()) ? ok(undefined) : fail(accountError("not-found", "no open session of this id"));
}

/** Ends the caller's own session. */
export function signOut(ctx: AccountContext, current: SessionRecord): void {
  ctx.store.endSession(current.id, ctx.clock.now());
}

function isDays(x: unknown, max: number): boolean {
  return typeof x === "number" && Number.isInteger(x) && x >= 1 && x <= max;
}
