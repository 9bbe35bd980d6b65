/**
 * @module The account's passkeys: listing, adding one (after a step-up, or with the one-time sign-in
 * of a recovery code, which ends once the passkey is added) and removing one (after a step-up;
 * never the last).
 */
import { fail, ok } from "../../../../shared/result.ts";
import { type AccountContext, issueChallenge, type Outcome, requireStepUp, takeChallenge } from "./account-context.ts";
import { accountError } from "./account-errors.ts";
import { MAX_PASSKEYS, type PasskeyRecord, type SessionRecord } from "./account-store.ts";
import { asRegistrationResponse, creationOptions, type NewCredential, type PublicKeyCredentialCreationOptionsJSON, type RegistrationResponseJSON, verifyRegistration } from "./webauthn.ts";

/** A passkey as the app shows it (never its key). */
export interface PasskeyView {
  readonly id: string;
  readonly label: string;
  readonly transports: readonly string[];
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

const LABEL_MAX = 64;

/** The account's passkeys, oldest first. */
export function passkeyList(ctx: AccountContext): PasskeyView[] {
  return ctx.store.passkeys().map(viewOf);
}

/** Options for a new passkey on this device. */
export async function passkeyAddBegin(ctx: AccountContext, session: SessionRecord): Promise<Outcome<{ options: PublicKeyCredentialCreationOptionsJSON }>> {
  const allowed = mayAdd(ctx, session);
  if (!allowed.ok) return allowed;
  const challenge = issueChallenge(ctx, "passkey-add", session.id);
  return ok({ options: await newPasskeyOptions(ctx, challenge) });
}

/** Verifies the new passkey and keeps it; a recovery sign-in ends here. */
export async function passkeyAddFinish(ctx: AccountContext, session: SessionRecord, input: { response: unknown; label?: unknown }): Promise<Outcome<{ passkey: PasskeyView; sessionEnded: boolean }>> {
  const response = asRegistrationResponse(input.response);
  if (response === null) return fail(accountError("bad-response", "not a WebAuthn registration response"));
  const taken = takeChallenge(ctx, response, "passkey-add", session.id);
  if (!taken.ok) return taken;
  const allowed = mayAdd(ctx, session);
  if (!allowed.ok) return allowed;
  const label = typeof input.label === "string" && input.label.trim() !== "" ? input.label.trim().slice(0, LABEL_MAX) : "passkey";
  const added = await registerPasskey(ctx, response, taken.value.challenge, label);
  if (!added.ok) return added;
  const sessionEnded = session.scope === "recovery" && ctx.store.endSession(session.id, ctx.clock.now());
  return ok({ passkey: viewOf(added.value), sessionEnded });
}

/** Removes a passkey (step-up); the last one stays. */
export function passkeyRemove(ctx: AccountContext, session: SessionRecord, id: string): Outcome<void> {
  const allowed = requireStepUp(ctx, session);
  if (!allowed.ok) return allowed;
  const outcome = ctx.store.removePasskey(id);
  if (outcome === "missing") return fail(accountError("not-found", "no passkey of this id"));
  if (outcome === "last") return fail(accountError("last-passkey", "the last passkey cannot be removed: add another first"));
  return ok(undefined);
}

/** Creation options that exclude the passkeys the account already has. */
export function newPasskeyOptions(ctx: AccountContext, challenge: Uint8Array): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const account = ctx.store.account();
  if (account === null) throw new Error("passkey options without an account");
  return creationOptions(ctx.rp, { challenge, userHandle: account.userHandle, userName: account.firstName, exclude: ctx.store.passkeys() });
}

/** Verifies a registration against `challenge` and keeps the passkey under `label`. */
export async function registerPasskey(ctx: AccountContext, response: RegistrationResponseJSON, challenge: string, label: string): Promise<Outcome<PasskeyRecord>> {
  const verified = await verifyRegistration(ctx.rp, response, challenge);
  if (!verified.ok) return fail({ ...accountError("unauthenticated", "the passkey could not be verified"), reason: verified.error });
  if (ctx.store.passkeyCount() >= MAX_PASSKEYS) return fail(accountError("too-many-passkeys", `an account has at most ${MAX_PASSKEYS} passkeys: remove one first`));
  const record = recordOf(verified.value, label, ctx.clock.now());
  if (!ctx.store.addPasskey(record)) return fail(accountError("bad-response", "this passkey is already registered"));
  return ok(record);
}

/** Adding needs a step-up, or the recovery sign-in that exists for it; and room for one more. */
function mayAdd(ctx: AccountContext, session: SessionRecord): Outcome<void> {
  if (session.scope === "full") {
    const allowed = requireStepUp(ctx, session);
    if (!allowed.ok) return allowed;
  }
  if (ctx.store.passkeyCount() >= MAX_PASSKEYS) return fail(accountError("too-many-passkeys", `an account has at most ${MAX_PASSKEYS} passkeys: remove one first`));
  return ok(undefined);
}

function recordOf(c: NewCredential, label: string, now: number): PasskeyRecord {
  return { id: c.id, publicKey: c.publicKey, counter: c.counter, transports: c.transports, label, createdAt: now, lastUsedAt: null };
}

function viewOf(p: PasskeyRecord): PasskeyView {
  return { id: p.id, label: p.label, transports: p.transports, createdAt: p.createdAt, lastUsedAt: p.lastUsedAt };
}
