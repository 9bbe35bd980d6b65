/**
 * @module Creating the account: `begin` (first name and the set-up code the node printed) → options
 * for the first passkey; `register` (the browser's attestation) → the passkey is kept with a pending
 * account and a one-time ticket; `finish` (the ticket) → the caller's set-up makes the person's
 * identity, then the account is ready, with ten recovery codes and a first session. The ticket keeps
 * `finish` for whoever registered: without it, anyone reaching the node between the two steps
 * could take the first session.
 */
import { fail, ok } from "../../../../shared/result.ts";
import { type AccountContext, admitGuess, CHALLENGE_MS, issueChallenge, type NewSession, newSession, noteWrongGuess, type Outcome, takeChallenge, takeChallengeValue } from "./account-context.ts";
import { accountError } from "./account-errors.ts";
import { newCode, normalizeCode, randomToken, sameSecret, sha256 } from "./codes.ts";
import { issueRecoveryCodes } from "./recovery.ts";
import { asRegistrationResponse, creationOptions, type PublicKeyCredentialCreationOptionsJSON, verifyRegistration } from "./webauthn.ts";

/** The set-up code's length in characters (`XXXX-XXXX`, 40 bits). */
export const SETUP_CODE_LENGTH = 8;
const FIRST_NAME_MAX = 64;

/** The set-up code of a node not yet set up (made on first call, kept until set-up ends); null once set up. */
export function setupCode(ctx: AccountContext): string | null {
  return ctx.store.setupCode(() => newCode(ctx.random, SETUP_CODE_LENGTH));
}

/** What set-up must make before the account is ready: the person's identity (and personal tenant). */
export interface SetupPlan {
  readonly firstName: string;
}

/** Step 1: checks the set-up code and answers the options for the first passkey. */
export async function createBegin(ctx: AccountContext, input: { firstName: unknown; setupCode: unknown }): Promise<Outcome<{ options: PublicKeyCredentialCreationOptionsJSON }>> {
  if (ctx.store.account()?.ready === true) return fail(accountError("already-set-up", "this node already has its account"));
  const admitted = admitGuess(ctx, "setup");
  if (!admitted.ok) return admitted;
  const expected = setupCode(ctx);
  const typed = normalizeCode(input.setupCode, SETUP_CODE_LENGTH);
  if (expected === null || typed === null || !sameSecret(typed, expected.replace("-", ""))) {
    noteWrongGuess(ctx, "setup");
    return fail(accountError("bad-setup-code", "wrong set-up code: it is the one the node printed when it started"));
  }
  const firstName = typeof input.firstName === "string" ? input.firstName.trim() : "";
  if (firstName.length === 0 || firstName.length > FIRST_NAME_MAX || /\p{Cc}/u.test(firstName)) {
    return fail(accountError("bad-first-name", `a first name is 1 to ${FIRST_NAME_MAX} characters, without control characters`));
  }
  const userHandle = ctx.random(16);
  const data = JSON.stringify({ firstName, userHandle: Buffer.from(userHandle).toString("base64url") });
  const challenge = issueChallenge(ctx, "create", null, data);
  return ok({ options: await creationOptions(ctx.rp, { challenge, userHandle, userName: firstName, exclude: [] }) });
}

/** Step 2: verifies the attestation and keeps the first passkey; answers the ticket `finish` needs. */
export async function createRegister(ctx: AccountContext, input: { response: unknown }): Promise<Outcome<{ ticket: string }>> {
  const response = asRegistrationResponse(input.response);
  if (response === null) return fail(accountError("bad-response", "not a WebAuthn registration response"));
  if (ctx.store.account()?.ready === true) return fail(accountError("already-set-up", "this node already has its account"));
  const taken = takeChallenge(ctx, response, "create", null);
  if (!taken.ok) return taken;
  const verified = await verifyRegistration(ctx.rp, response, taken.value.challenge);
  if (!verified.ok) return fail({ ...accountError("unauthenticated", "the passkey could not be verified"), reason: verified.error });
  const { firstName, userHandle } = JSON.parse(taken.value.data ?? "{}") as { firstName: string; userHandle: string };
  const now = ctx.clock.now();
  const ticket = randomToken(ctx.random, 32);
  const begun = ctx.store.atomically(() => {
    if (!ctx.store.beginSetup(firstName, Buffer.from(userHandle, "base64url"), now)) return false;
    ctx.store.addPasskey({ ...verified.value, label: "first passkey", createdAt: now, lastUsedAt: null });
    ctx.store.putChallenge({ challenge: sha256(ticket).toString("base64url"), purpose: "create-finish", sessionId: null, data: userHandle, expiresAt: now + CHALLENGE_MS }, now);
    return true;
  });
  if (!begun) return fail(accountError("already-set-up", "this node already has its account"));
  return ok({ ticket });
}

/** What `finish` answers: the account, its recovery codes (shown once) and the first session. */
export interface CreateFinished extends NewSession {
  readonly firstName: string;
  readonly did: string;
  /** The personal tenant's handle. */
  readonly tenant: string;
  readonly recoveryCodes: readonly string[];
}

/** What set-up made: the person's did:key and the personal tenant it owns. */
export interface SetupMade {
  readonly did: string;
  readonly tenant: string;
}

/**
 * Step 3: with the ticket from `register`, runs `setUp` (which makes the person's identity and
 * personal tenant), then makes the account ready. When `setUp` fails the account stays pending and
 * set-up starts again from `begin`.
 */
export async function createFinish(
  ctx: AccountContext,
  input: { ticket: unknown },
  userAgent: string,
  setUp: (plan: SetupPlan) => Promise<Outcome<SetupMade>>,
): Promise<Outcome<CreateFinished>> {
  if (ctx.store.account()?.ready === true) return fail(accountError("already-set-up", "this node already has its account"));
  const ticket = typeof input.ticket === "string" && input.ticket.length <= 64 ? input.ticket : "";
  const taken = takeChallengeValue(ctx, sha256(ticket).toString("base64url"));
  const pending = ctx.store.account();
  const forThisAttempt = pending !== null && taken?.data === Buffer.from(pending.userHandle).toString("base64url");
  if (taken === null || taken.purpose !== "create-finish" || pending === null || !forThisAttempt) return fail(accountError("bad-challenge", "set-up has no registered passkey to finish: start again"));
  const made = await setUp({ firstName: pending.firstName });
  if (!made.ok) return made;
  // Another set-up attempt may have started while `setUp` ran: only this attempt's account turns ready.
  if (!ctx.store.finishSetup(pending.userHandle, made.value)) return fail(accountError("bad-challenge", "set-up was started again meanwhile: finish that attempt"));
  const recoveryCodes = issueRecoveryCodes(ctx);
  return ok({ firstName: pending.firstName, did: made.value.did, tenant: made.value.tenant, recoveryCodes, ...newSession(ctx, "full", userAgent) });
}
