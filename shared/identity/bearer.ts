/**
 * @module Bearer tokens for `api authenticated` queries: a self-signed EdDSA JWT whose `iss` is
 * the caller's did:key (and so the key that verifies it), `aud` = `"{tenant}/{namespace}"`, with
 * `iat` and an `exp` at most 5 minutes later. Verified with jose — off the write path. Tenant-level
 * reads (`GET /v1/{tenant}`) take the same token with `aud` = `"{tenant}"` (no namespace).
 *
 * Exactly this shape: the header's `typ` is `JWT` (so no other signed Charter object — an install, a
 * command — passes as a token), `aud` is one string (an array naming several audiences would let
 * one token open several doors), and `exp` is after `iat`.
 *
 * Clock skew: `exp`, `nbf` and "iat is not in the future" are checked with 30 seconds of
 * tolerance (BEARER_CLOCK_SKEW_S), so a client whose clock is a little off still gets in; the
 * 5-minute lifetime (`exp - iat`) is exact, it does not depend on anyone's clock.
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import { decodeJwt, errors, jwtVerify } from "jose";
import { publicKeyFromDidKey } from "./did-key.ts";
import { signJws } from "./jws.ts";
import { toPublicJwk, type KeyPair } from "./key-pair.ts";
import { problem, type Problem } from "./problem.ts";
import { fail, ok, type Result } from "../result.ts";

/** Longest allowed `exp - iat`, in seconds. */
export const BEARER_MAX_LIFETIME_S = 300;
/** Clock-skew tolerance for time claims, in seconds. */
export const BEARER_CLOCK_SKEW_S = 30;

/** The audience a token must name for a tenant's namespace, or for the tenant itself without one. */
export function bearerAudience(tenant: string, namespace?: string): string {
  return namespace === undefined ? tenant : `${tenant}/${namespace}`;
}

/** Verify a bearer token for `tenant`/`namespace` (or `tenant` alone) at `now` (epoch ms); the caller's did:key, or a 401 problem. */
export async function verifyBearer(token: unknown, options: { readonly tenant: string; readonly namespace?: string; readonly now: number }): Promise<Result<string, Problem>> {
  if (typeof token !== "string" || token === "") return unauthenticated("no bearer token");
  let iss: unknown;
  try {
    iss = decodeJwt(token).iss;
  } catch (error) {
    return joseProblem(error);
  }
  if (typeof iss !== "string") return unauthenticated("the token has no iss (the caller's did:key)");
  const key = publicKeyObject(iss);
  if (key === null) return unauthenticated("the token's iss is not an Ed25519 did:key");
  const nowSeconds = Math.floor(options.now / 1000);
  let claims;
  let header;
  try {
    ({ payload: claims, protectedHeader: header } = await jwtVerify(token, key, {
      algorithms: ["EdDSA"],
      issuer: iss,
      audience: bearerAudience(options.tenant, options.namespace),
      currentDate: new Date(options.now),
      clockTolerance: BEARER_CLOCK_SKEW_S,
      requiredClaims: ["iss", "aud", "iat", "exp"],
    }));
  } catch (error) {
    return joseProblem(error);
  }
  if (header.kid !== undefined && header.kid !== iss && header.kid !== `${iss}#${iss.slice("did:key:".length)}`) {
    return unauthenticated("the token's kid names a different key than its iss");
  }
  if (header.typ !== "JWT") return unauthenticated(`the token's typ must be "JWT"${header.typ === undefined ? "; it has none" : `, not ${JSON.stringify(header.typ)}`}`);
  if (typeof claims.aud !== "string") return unauthenticated("the token's aud must be one string, not an array");
  const iat = claims.iat as number;
  const exp = claims.exp as number;
  if (exp <= iat) return unauthenticated(`the token's exp (${exp}) is not after its iat (${iat})`);
  if (iat > nowSeconds + BEARER_CLOCK_SKEW_S) return unauthenticated("the token's iat is in the future");
  if (exp - iat > BEARER_MAX_LIFETIME_S) return unauthenticated(`the token lives ${exp - iat} s; at most ${BEARER_MAX_LIFETIME_S} s (exp - iat) is allowed`);
  return ok(iss);
}

/** A bearer token signed by `keyPair` for `tenant`/`namespace` (or `tenant` alone), issued at `now` (epoch ms) for `ttlSeconds` (default 300). */
export function signBearer(keyPair: KeyPair, options: { readonly tenant: string; readonly namespace?: string; readonly now: number; readonly ttlSeconds?: number }): string {
  const iat = Math.floor(options.now / 1000);
  const claims = { iss: keyPair.did, aud: bearerAudience(options.tenant, options.namespace), iat, exp: iat + (options.ttlSeconds ?? BEARER_MAX_LIFETIME_S) };
  return signJws({ kid: keyPair.did, typ: "JWT" }, JSON.stringify(claims), keyPair.secretKey);
}

/** Public keys of recent callers, as node:crypto key objects; cleared wholesale when full. */
const keys = new Map<string, KeyObject>();

function publicKeyObject(did: string): KeyObject | null {
  const cached = keys.get(did);
  if (cached !== undefined) return cached;
  const publicKey = publicKeyFromDidKey(did);
  if (!publicKey.ok) return null;
  const key = createPublicKey({ key: { ...toPublicJwk(publicKey.value) }, format: "jwk" });
  if (keys.size >= 1024) keys.clear();
  keys.set(did, key);
  return key;
}

/** jose reports invalid tokens by throwing JOSEError; anything else it throws is a bug and propagates. */
function joseProblem(error: unknown): Result<never, Problem> {
  if (error instanceof errors.JWTExpired) return unauthenticated("the token has expired");
  if (error instanceof errors.JOSEError) return unauthenticated(`invalid bearer token: ${error.message}`);
  throw error;
}

function unauthenticated(detail: string): Result<never, Problem> {
  return fail(problem(401, "unauthenticated", detail));
}
