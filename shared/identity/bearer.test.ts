import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importJWK, SignJWT } from "jose";
import { BEARER_CLOCK_SKEW_S, signBearer, verifyBearer } from "./bearer.ts";
import { signJws } from "./jws.ts";
import { generateKeyPair, toPrivateJwk } from "./key-pair.ts";

const caller = generateKeyPair();
const now = Date.parse("2026-11-21T10:00:00Z");
const iat = now / 1000;
const scope = { tenant: "acme", namespace: "acme.shipping", now };

/** A token with arbitrary claims, signed correctly by `caller` (or by `signer`). */
function token(claims: Record<string, unknown>, header: Record<string, unknown> = {}, signer = caller): string {
  return signJws({ kid: caller.did, typ: "JWT", ...header }, JSON.stringify(claims), signer.secretKey);
}

async function unauthenticated(value: unknown, options: Parameters<typeof verifyBearer>[1] = scope): Promise<string> {
  const result = await verifyBearer(value, options);
  assert.equal(result.ok, false, "expected a 401 problem");
  if (result.ok) throw new Error("unreachable");
  assert.equal(result.error.status, 401);
  assert.equal(result.error.code, "unauthenticated");
  return result.error.detail;
}

describe("bearer tokens", () => {
  const claims = { iss: caller.did, aud: "acme/acme.shipping", iat, exp: iat + 300 };

  it("returns the caller's did:key for a token it signed", async () => {
    assert.deepEqual(await verifyBearer(signBearer(caller, scope), scope), { ok: true, value: caller.did });
  });

  it("accepts a token made with jose's SignJWT", async () => {
    const key = await importJWK({ ...toPrivateJwk(caller) }, "EdDSA");
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: "EdDSA", typ: "JWT" }).setIssuer(caller.did).setAudience("acme/acme.shipping").setIssuedAt(iat).setExpirationTime(iat + 120).sign(key);
    assert.deepEqual(await verifyBearer(jwt, scope), { ok: true, value: caller.did });
  });

  it("rejects a token for another tenant or namespace", async () => {
    await unauthenticated(signBearer(caller, scope), { ...scope, namespace: "acme.billing" });
    await unauthenticated(signBearer(caller, scope), { ...scope, tenant: "globex" });
  });

  it("takes the tenant alone as the audience of tenant-level reads, and keeps the two apart", async () => {
    const tenantOnly = { tenant: "acme", now };
    assert.deepEqual(await verifyBearer(signBearer(caller, tenantOnly), tenantOnly), { ok: true, value: caller.did });
    await unauthenticated(signBearer(caller, scope), tenantOnly);
    await unauthenticated(signBearer(caller, tenantOnly), scope);
  });

  it(`allows ${BEARER_CLOCK_SKEW_S} s of clock skew on exp and iat, and no more`, async () => {
    const jwt = token(claims);
    // exp is exclusive (RFC 7519 §4.1.4: "on or after" exp it is expired), skew included.
    assert.ok((await verifyBearer(jwt, { ...scope, now: now + 300_000 + BEARER_CLOCK_SKEW_S * 1000 - 1000 })).ok);
    assert.match(await unauthenticated(jwt, { ...scope, now: now + 300_000 + BEARER_CLOCK_SKEW_S * 1000 }), /expired/);
    assert.ok((await verifyBearer(jwt, { ...scope, now: now - BEARER_CLOCK_SKEW_S * 1000 })).ok);
    assert.match(await unauthenticated(jwt, { ...scope, now: now - BEARER_CLOCK_SKEW_S * 1000 - 1000 }), /iat/);
  });

  it("rejects a lifetime over 5 minutes, however fresh", async () => {
    assert.match(await unauthenticated(token({ ...claims, exp: iat + 301 })), /at most 300/);
    assert.match(await unauthenticated(signBearer(caller, { ...scope, ttlSeconds: 3600 })), /at most 300/);
  });

  it("rejects a token signed by another key than its iss names", async () => {
    await unauthenticated(token(claims, {}, generateKeyPair()));
    const other = generateKeyPair();
    await unauthenticated(token({ ...claims, iss: other.did }, { kid: other.did }));
  });

  it("rejects a kid that differs from iss", async () => {
    assert.match(await unauthenticated(token(claims, { kid: generateKeyPair().did })), /kid/);
  });

  it("issue 16 #13: refuses an aud array, even one naming only the right audience", async () => {
    assert.match(await unauthenticated(token({ ...claims, aud: ["acme/acme.shipping"] })), /aud/);
    assert.match(await unauthenticated(token({ ...claims, aud: ["acme/acme.shipping", "globex"] })), /aud/);
  });

  it("issue 16 #13: refuses any typ but JWT, and a token without typ", async () => {
    for (const typ of ["charter-install+jws", "charter-command+jws", "at+jwt", "jwt", "application/jwt"]) {
      assert.match(await unauthenticated(token(claims, { typ })), /typ/, typ);
    }
    assert.match(await unauthenticated(signJws({ kid: caller.did }, JSON.stringify(claims), caller.secretKey)), /typ/);
  });

  it("issue 16 #13: refuses a token whose exp is not after its iat", async () => {
    assert.match(await unauthenticated(token({ ...claims, exp: iat - 10 }), { ...scope, now: now - 20_000 }), /exp/);
    assert.match(await unauthenticated(token({ ...claims, exp: iat }), { ...scope, now: now - 1000 }), /exp/);
  });

  for (const [name, value] of [
    ["no token", undefined],
    ["an empty token", ""],
    ["garbage", "not.a.jwt"],
    ["a token without iss", token({ ...claims, iss: undefined })],
    ["an iss that is not a did:key", token({ ...claims, iss: "https://example.com" })],
    ["a token without exp", token({ ...claims, exp: undefined })],
    ["a token without iat", token({ ...claims, iat: undefined })],
    ["a token without aud", token({ ...claims, aud: undefined })],
    ["a token with an alg other than EdDSA", `${Buffer.from('{"alg":"HS256"}').toString("base64url")}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.c2ln`],
  ] as const) {
    it(`rejects ${name} with 401`, async () => {
      await unauthenticated(value);
    });
  }
});
