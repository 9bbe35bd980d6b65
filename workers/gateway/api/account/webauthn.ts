/**
 * @module The one door to @simplewebauthn/server: options for the browser's `create()` and `get()`,
 * and the checks of what comes back, as values (the library throws on a bad response; here that
 * becomes a failure with the library's reason, for the log). Also the relying party of an origin,
 * and the shape checks of a response read from a request body.
 */
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { fail, ok, type Result } from "../../../../shared/result.ts";

export type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON };

/** Who the passkeys are made for: the host name of the node's origin, and the origin itself. */
export interface RelyingParty {
  readonly id: string;
  readonly name: string;
  readonly origin: string;
}

/** The relying party of an origin such as `http://localhost:8787` (its id is `localhost`). */
export function relyingParty(origin: string, name = "Charter"): RelyingParty {
  const url = new URL(origin);
  return { id: url.hostname, name, origin: url.origin };
}

/** EdDSA, ES256, RS256: offered at creation and accepted at verification alike. */
const ALGORITHMS = [-8, -7, -257];
/** How long the browser may wait for the person: the challenge's own lifetime. */
const TIMEOUT_MS = 5 * 60_000;

/** A credential a registration verified, ready to store. */
export interface NewCredential {
  readonly id: string;
  readonly publicKey: Uint8Array;
  readonly counter: number;
  readonly transports: readonly string[];
}

/** Options for `navigator.credentials.create()`: a discoverable passkey with user verification. */
export function creationOptions(
  rp: RelyingParty,
  o: { challenge: Uint8Array; userHandle: Uint8Array; userName: string; exclude: readonly { id: string; transports: readonly string[] }[] },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: o.userName,
    userDisplayName: o.userName,
    userID: new Uint8Array(o.userHandle),
    challenge: new Uint8Array(o.challenge),
    timeout: TIMEOUT_MS,
    attestationType: "none",
    excludeCredentials: o.exclude.map((c) => ({ id: c.id, transports: [...c.transports] })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    supportedAlgorithmIDs: ALGORITHMS,
  });
}

/** Options for `navigator.credentials.get()`; an empty `allow` lets the person pick any passkey of the site. */
export function requestOptions(rp: RelyingParty, o: { challenge: Uint8Array; allow: readonly { id: string; transports: readonly string[] }[] }): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: rp.id,
    challenge: new Uint8Array(o.challenge),
    timeout: TIMEOUT_MS,
    userVerification: "required",
    allowCredentials: o.allow.map((c) => ({ id: c.id, transports: [...c.transports] })),
  });
}

/** The challenge a response answers (read from its client data), or null when it names none. */
export function challengeOf(response: RegistrationResponseJSON | AuthenticationResponseJSON): string | null {
  try {
    const client = JSON.parse(Buffer.from(response.response.clientDataJSON, "base64url").toString("utf8")) as { challenge?: unknown };
    return typeof client.challenge === "string" && client.challenge.length <= 512 ? client.challenge : null;
  } catch {
    return null;
  }
}

/** Checks an attestation against the expected challenge, origin and relying party. */
export async function verifyRegistration(rp: RelyingParty, response: RegistrationResponseJSON, challenge: string): Promise<Result<NewCredential, string>> {
  try {
    const v = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      supportedAlgorithmIDs: ALGORITHMS,
    });
    if (!v.verified) return fail("attestation not verified");
    const c = v.registrationInfo.credential;
    if (c.id !== response.id) return fail("credential id differs from the authenticator data's");
    return ok({ id: c.id, publicKey: c.publicKey, counter: c.counter, transports: c.transports ?? [] });
  } catch (error) {
    return fail((error as Error).message);
  }
}

/** Checks an assertion by a stored passkey; answers the authenticator's new counter. */
export async function verifyAuthentication(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  challenge: string,
  passkey: { id: string; publicKey: Uint8Array; counter: number; transports: readonly string[] },
): Promise<Result<{ counter: number }, string>> {
  try {
    const v = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: { id: passkey.id, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.counter, transports: [...passkey.transports] },
      requireUserVerification: true,
    });
    return v.verified ? ok({ counter: v.authenticationInfo.newCounter }) : fail("signature not verified");
  } catch (error) {
    return fail((error as Error).message);
  }
}

const b64url = (x: unknown, max: number): x is string => typeof x === "string" && x.length > 0 && x.length <= max && /^[A-Za-z0-9_-]+={0,2}$/.test(x);
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** A registration response read from a request body, or null when it does not have the standard shape. */
export function asRegistrationResponse(x: unknown): RegistrationResponseJSON | null {
  if (!isObject(x) || !isObject(x.response) || x.type !== "public-key" || !b64url(x.id, 1400) || x.rawId !== x.id) return null;
  const r = x.response;
  if (!b64url(r.clientDataJSON, 8192) || !b64url(r.attestationObject, 65536)) return null;
  if (r.transports !== undefined && !(Array.isArray(r.transports) && r.transports.length <= 16 && r.transports.every((t) => typeof t === "string" && t.length <= 32))) return null;
  return { ...(x as unknown as RegistrationResponseJSON), clientExtensionResults: isObject(x.clientExtensionResults) ? x.clientExtensionResults : {} };
}

/** An authentication response read from a request body, or null when it does not have the standard shape. */
export function asAuthenticationResponse(x: unknown): AuthenticationResponseJSON | null {
  if (!isObject(x) || !isObject(x.response) || x.type !== "public-key" || !b64url(x.id, 1400) || x.rawId !== x.id) return null;
  const r = x.response;
  if (!b64url(r.clientDataJSON, 8192) || !b64url(r.authenticatorData, 8192) || !b64url(r.signature, 2048)) return null;
  if (r.userHandle !== undefined && r.userHandle !== null && !b64url(r.userHandle, 256)) return null;
  return { ...(x as unknown as AuthenticationResponseJSON), clientExtensionResults: isObject(x.clientExtensionResults) ? x.clientExtensionResults : {} };
}
