/**
 * @module What every account ceremony shares: the store, the relying party, the injected clock and
 * random source, and the steps they all take — issuing and taking back a single-use challenge,
 * checking a passkey's assertion, the guessing limit, the step-up rule, starting a session.
 */
import type { Clock } from "../../../../shared/clock.ts";
import { fail, ok, type Result } from "../../../../shared/result.ts";
import { type AccountError, accountError } from "./account-errors.ts";
import type { AccountStore, ChallengePurpose, ChallengeRecord, GuardedCeremony, PasskeyRecord, SessionRecord, SessionScope } from "./account-store.ts";
import { type AttemptPolicy, afterFailure, lockedFor } from "./attempt-limit.ts";
import type { RandomBytes } from "./codes.ts";
import { sessionExpiresAt, startSession, steppedUp } from "./sessions.ts";
import { type AuthenticationResponseJSON, challengeOf, type RegistrationResponseJSON, type RelyingParty, verifyAuthentication } from "./webauthn.ts";

/** The ceremonies' surroundings. */
export interface AccountContext {
  readonly store: AccountStore;
  readonly rp: RelyingParty;
  readonly clock: Clock;
  readonly random: RandomBytes;
  readonly attemptPolicy: AttemptPolicy;
  /** Whether the node listens only on the loopback interface (where sign-in may be turned off). */
  readonly loopback: boolean;
}

/** A ceremony's answer. */
export type Outcome<T> = Result<T, AccountError>;

/** A challenge lives this long (ms). */
export const CHALLENGE_MS = 5 * 60_000;
/** A step-up lets its session do sensitive things for this long (ms). */
export const STEP_UP_MS = 5 * 60_000;

/** A session just started: the token goes into the cookie once and is never seen again. */
export interface NewSession {
  readonly token: string;
  readonly session: SessionRecord;
  /** The cookie's `Max-Age`: the session's lifetime. */
  readonly maxAgeSeconds: number;
}

/** Makes a challenge for `purpose` (bound to `sessionId` when given) and keeps it; answers its bytes. */
export function issueChallenge(ctx: AccountContext, purpose: ChallengePurpose, sessionId: string | null, data: string | null = null): Uint8Array {
  const bytes = ctx.random(32);
  const now = ctx.clock.now();
  ctx.store.putChallenge({ challenge: Buffer.from(bytes).toString("base64url"), purpose, sessionId, data, expiresAt: now + CHALLENGE_MS }, now);
  return bytes;
}

/**
 * Takes back the challenge a response answers. It is gone whatever happens next (single use); it
 * must have been made for `purpose`, for `sessionId` (null: for no session), and still be alive.
 */
export function takeChallenge(
  ctx: AccountContext,
  response: RegistrationResponseJSON | AuthenticationResponseJSON,
  purpose: ChallengePurpose,
  sessionId: string | null,
): Outcome<ChallengeRecord> {
  const challenge = challengeOf(response);
  const taken = challenge === null ? null : takeChallengeValue(ctx, challenge);
  if (taken === null || taken.purpose !== purpose || taken.sessionId !== sessionId) return fail(accountError("bad-challenge", "this challenge is unknown, was already used, or belongs to another step"));
  return ok(taken);
}

/** Takes back a challenge by its value; null when unknown, used or expired. */
export function takeChallengeValue(ctx: AccountContext, challenge: string): ChallengeRecord | null {
  const taken = ctx.store.takeChallenge(challenge);
  return taken !== null && taken.expiresAt > ctx.clock.now() ? taken : null;
}

/** Checks an assertion by one of the account's passkeys and records the passkey's use. */
export async function checkAssertion(ctx: AccountContext, response: AuthenticationResponseJSON, challenge: string): Promise<Outcome<PasskeyRecord>> {
  const passkey = ctx.store.passkey(response.id);
  if (passkey === null) return fail({ ...accountError("unauthenticated", "this passkey is not one of the account's"), reason: "unknown credential" });
  const verified = await verifyAuthentication(ctx.rp, response, challenge, passkey);
  if (!verified.ok) return fail({ ...accountError("unauthenticated", "the passkey's answer could not be verified"), reason: verified.error });
  ctx.store.recordPasskeyUse(passkey.id, verified.value.counter, ctx.clock.now());
  return ok(passkey);
}

/** Refuses when too many wrong codes were typed for `ceremony` lately. */
export function admitGuess(ctx: AccountContext, ceremony: GuardedCeremony): Outcome<void> {
  const waitMs = lockedFor(ctx.store.attempts(ceremony), ctx.clock.now());
  if (waitMs === 0) return ok(undefined);
  return fail(accountError("rate-limited", "too many wrong codes: try again later", Math.ceil(waitMs / 1000)));
}

/** Counts a wrong code for `ceremony`. */
export function noteWrongGuess(ctx: AccountContext, ceremony: GuardedCeremony): void {
  ctx.store.atomically(() => ctx.store.setAttempts(ceremony, afterFailure(ctx.store.attempts(ceremony), ctx.clock.now(), ctx.attemptPolicy)));
}

/** Refuses a recovery sign-in, which may only add a passkey. */
export function requireFullSession(session: SessionRecord): Outcome<void> {
  return session.scope === "full" ? ok(undefined) : fail(accountError("limited-session", "a recovery sign-in may only add a passkey"));
}

/** Refuses unless the session stepped up within the last five minutes. */
export function requireStepUp(ctx: AccountContext, session: SessionRecord): Outcome<void> {
  const full = requireFullSession(session);
  if (!full.ok) return full;
  return steppedUp(session, ctx.clock.now()) ? ok(undefined) : fail(accountError("step-up-required", "confirm with your passkey first (step-up)"));
}

/** Starts a session of `scope` now. */
export function newSession(ctx: AccountContext, scope: SessionScope, userAgent: string): NewSession {
  const now = ctx.clock.now();
  const { token, session } = startSession(ctx.store, scope, userAgent, now, ctx.random);
  const days = ctx.store.account()?.settings.sessionDays ?? 30;
  return { token, session, maxAgeSeconds: Math.floor((sessionExpiresAt(session, days) - now) / 1000) };
}
