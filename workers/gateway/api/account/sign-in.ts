/**
 * @module Signing in with a passkey, and stepping up: `begin` answers request options around a
 * fresh challenge; `finish` takes the challenge back, checks the assertion (origin, relying party,
 * signature, a counter that grows) and starts a session — or, for a step-up, lets the session that
 * asked do sensitive things for five minutes.
 */
import { fail, ok } from "../../../../shared/result.ts";
import { type AccountContext, checkAssertion, issueChallenge, type NewSession, newSession, type Outcome, requireFullSession, STEP_UP_MS, takeChallenge } from "./account-context.ts";
import { accountError } from "./account-errors.ts";
import type { SessionRecord } from "./account-store.ts";
import { asAuthenticationResponse, type PublicKeyCredentialRequestOptionsJSON, requestOptions } from "./webauthn.ts";

/** Options to sign in: any passkey of the site will do (they are discoverable). */
export async function signInBegin(ctx: AccountContext): Promise<Outcome<{ options: PublicKeyCredentialRequestOptionsJSON }>> {
  if (ctx.store.account()?.ready !== true) return fail(accountError("not-set-up", "this node has no account yet"));
  const challenge = issueChallenge(ctx, "signin", null);
  return ok({ options: await requestOptions(ctx.rp, { challenge, allow: [] }) });
}

/** Checks the passkey's answer and starts a session (its token is answered once). */
export async function signInFinish(ctx: AccountContext, input: { response: unknown }, userAgent: string): Promise<Outcome<NewSession>> {
  const response = asAuthenticationResponse(input.response);
  if (response === null) return fail(accountError("bad-response", "not a WebAuthn authentication response"));
  if (ctx.store.account()?.ready !== true) return fail(accountError("not-set-up", "this node has no account yet"));
  const taken = takeChallenge(ctx, response, "signin", null);
  if (!taken.ok) return taken;
  const checked = await checkAssertion(ctx, response, taken.value.challenge);
  if (!checked.ok) return checked;
  return ok(newSession(ctx, "full", userAgent));
}

/** Options to confirm with one of the account's passkeys, for this session only. */
export async function stepUpBegin(ctx: AccountContext, session: SessionRecord): Promise<Outcome<{ options: PublicKeyCredentialRequestOptionsJSON }>> {
  const full = requireFullSession(session);
  if (!full.ok) return full;
  const challenge = issueChallenge(ctx, "stepup", session.id);
  return ok({ options: await requestOptions(ctx.rp, { challenge, allow: ctx.store.passkeys() }) });
}

/** Checks the passkey's answer; the session may do sensitive things until the answered time (ms). */
export async function stepUpFinish(ctx: AccountContext, session: SessionRecord, input: { response: unknown }): Promise<Outcome<{ until: number }>> {
  const full = requireFullSession(session);
  if (!full.ok) return full;
  const response = asAuthenticationResponse(input.response);
  if (response === null) return fail(accountError("bad-response", "not a WebAuthn authentication response"));
  const taken = takeChallenge(ctx, response, "stepup", session.id);
  if (!taken.ok) return taken;
  const checked = await checkAssertion(ctx, response, taken.value.challenge);
  if (!checked.ok) return checked;
  const until = ctx.clock.now() + STEP_UP_MS;
  ctx.store.stepUpSession(session.id, until, assertionEvidence(response));
  return ok({ until });
}

/** The passkey assertion of a step-up as the evidence an approval keeps: the credential and what it signed. */
function assertionEvidence(response: { id: string; response: { authenticatorData: string; clientDataJSON: string; signature: string } }): string {
  const { authenticatorData, clientDataJSON, signature } = response.response;
  return JSON.stringify({ credential: response.id, authenticatorData, clientDataJSON, signature });
}
