/**
 * @module Adding a device with a code: a signed-in, stepped-up session issues an 8-character code
 * (10 minutes, single use, kept only as a hash); the new device begins with the code and gets
 * options for a passkey of its own, and finishing registers that passkey and signs the device in.
 * Pairing adds a passkey, so issuing a code takes the step-up that adding one takes. Wrong codes
 * count towards the guessing limit (five in ten minutes lock pairing for ten minutes).
 */
import { fail, ok } from "../../../../shared/result.ts";
import { type AccountContext, admitGuess, issueChallenge, type NewSession, newSession, noteWrongGuess, type Outcome, requireStepUp, takeChallenge } from "./account-context.ts";
import { accountError } from "./account-errors.ts";
import { MAX_PASSKEYS, type SessionRecord } from "./account-store.ts";
import { codeHash, newCode, normalizeCode } from "./codes.ts";
import { newPasskeyOptions, registerPasskey } from "./passkeys.ts";
import { asRegistrationResponse, type PublicKeyCredentialCreationOptionsJSON } from "./webauthn.ts";

/** A pairing code's length in characters (`XXXX-XXXX`). */
export const PAIRING_CODE_LENGTH = 8;
/** A pairing code lives this long (ms). */
export const PAIRING_CODE_MS = 10 * 60_000;

/** Issues a pairing code from a session (step-up); answers it and when it expires (ms). */
export function pairIssue(ctx: AccountContext, session: SessionRecord): Outcome<{ code: string; expiresAt: number }> {
  const allowed = requireStepUp(ctx, session);
  if (!allowed.ok) return allowed;
  const code = newCode(ctx.random, PAIRING_CODE_LENGTH);
  const now = ctx.clock.now();
  const expiresAt = now + PAIRING_CODE_MS;
  ctx.store.putPairingCode(codeHash(code), session.id, now, expiresAt);
  return ok({ code, expiresAt });
}

/** The new device's first step: the code → options for its own passkey. The code is used up. */
export async function pairBegin(ctx: AccountContext, input: { code: unknown }): Promise<Outcome<{ options: PublicKeyCredentialCreationOptionsJSON }>> {
  if (ctx.store.account()?.ready !== true) return fail(accountError("not-set-up", "this node has no account yet"));
  const admitted = admitGuess(ctx, "pair");
  if (!admitted.ok) return admitted;
  const code = normalizeCode(input.code, PAIRING_CODE_LENGTH);
  const used = code === null ? null : ctx.store.usePairingCode(codeHash(code), ctx.clock.now());
  // A code issued by a session that has ended since (signed out, ended elsewhere) pairs nothing.
  const issuer = used?.found === true ? ctx.store.session(used.sessionId) : null;
  if (issuer === null || issuer.endedAt !== null) {
    noteWrongGuess(ctx, "pair");
    return fail(accountError("bad-pairing-code", "this pairing code is unknown, used or expired: issue a new one"));
  }
  if (ctx.store.passkeyCount() >= MAX_PASSKEYS) return fail(accountError("too-many-passkeys", `an account has at most ${MAX_PASSKEYS} passkeys: remove one first`));
  const challenge = issueChallenge(ctx, "pair", null);
  return ok({ options: await newPasskeyOptions(ctx, challenge) });
}

/** The new device's second step: its passkey is verified and kept, and it is signed in. */
export async function pairFinish(ctx: AccountContext, input: { response: unknown; label?: unknown }, userAgent: string): Promise<Outcome<NewSession>> {
  const response = asRegistrationResponse(input.response);
  if (response === null) return fail(accountError("bad-response", "not a WebAuthn registration response"));
  const taken = takeChallenge(ctx, response, "pair", null);
  if (!taken.ok) return taken;
  const label = typeof input.label === "string" && input.label.trim() !== "" ? input.label.trim().slice(0, 64) : "paired device";
  const added = await registerPasskey(ctx, response, taken.value.challenge, label);
  if (!added.ok) return added;
  return ok(newSession(ctx, "full", userAgent));
}
