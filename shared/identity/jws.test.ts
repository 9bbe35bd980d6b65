import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactVerify, CompactSign, importJWK } from "jose";
import { base58Encode } from "./base58.ts";
import { base64urlEncode } from "./base64url.ts";
import { fromPrivateJwk, generateKeyPair, toPrivateJwk, toPublicJwk, type KeyPair } from "./key-pair.ts";
import { signJws, verifyJws, type JwsErrorCode } from "./jws.ts";
import { ed25519Sign } from "./sodium.ts";

const alice = generateKeyPair();
const bob = generateKeyPair();

/** A JWS over an arbitrary header text, signed correctly, so only the property under test is wrong. */
function rawJws(header: string, payload: string, keyPair: KeyPair = alice): string {
  const input = `${base64urlEncode(header)}.${base64urlEncode(payload)}`;
  return `${input}.${base64urlEncode(ed25519Sign(Buffer.from(input), keyPair.secretKey))}`;
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
function nextChar(char: string): string {
  return BASE64URL[BASE64URL.indexOf(char) + 1] as string;
}

function rejects(compact: unknown, code: JwsErrorCode, options?: { typ?: string }): void {
  const result = verifyJws(compact as string, options);
  assert.equal(result.ok, false, `expected ${code}`);
  if (!result.ok) {
    assert.equal(result.error.code, code, result.error.message);
    assert.ok(result.error.message.length > 0);
  }
}

describe("compact JWS (EdDSA, libsodium)", () => {
  it("round-trips a payload and reports the signer", () => {
    const compact = signJws({ kid: alice.did, typ: "example+jws" }, '{"hello":"world"}', alice.secretKey);
    const result = verifyJws(compact, { typ: "example+jws" });
    assert.ok(result.ok);
    assert.equal(result.value.signer, alice.did);
    assert.equal(result.value.payload.toString(), '{"hello":"world"}');
    assert.deepEqual(result.value.header, { alg: "EdDSA", kid: alice.did, typ: "example+jws" });
  });

  it("refuses to label its signature with another alg (a caller bug)", () => {
    assert.throws(() => signJws({ kid: alice.did, alg: "none" }, "{}", alice.secretKey));
    assert.ok(verifyJws(signJws({ kid: alice.did, alg: "EdDSA" }, "{}", alice.secretKey)).ok);
  });

  it("reproduces RFC 8037 Appendix A.4's signature", () => {
    const keyPair = fromPrivateJwk({ kty: "OKP", crv: "Ed25519", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A" });
    assert.ok(keyPair.ok);
    const input = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc";
    assert.equal(base64urlEncode(ed25519Sign(Buffer.from(input), keyPair.value.secretKey)), "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg");
  });

  it("rejects any single changed character anywhere in the header, payload or signature", () => {
    const compact = signJws({ kid: alice.did, typ: "example+jws" }, '{"units":4,"customer":"Ada"}', alice.secretKey);
    for (let i = 0; i < compact.length; i++) {
      if (compact[i] === ".") continue;
      const replacement = compact[i] === "A" ? "B" : "A";
      const tampered = compact.slice(0, i) + replacement + compact.slice(i + 1);
      assert.equal(verifyJws(tampered).ok, false, `position ${i} accepted`);
    }
  });

  it("rejects a signature by another key than the kid names", () => {
    rejects(signJws({ kid: alice.did }, "{}", bob.secretKey), "bad-signature");
    const compact = signJws({ kid: alice.did }, "{}", alice.secretKey);
    const [, payload, signature] = compact.split(".");
    rejects(`${base64urlEncode(JSON.stringify({ alg: "EdDSA", kid: bob.did }))}.${payload}.${signature}`, "bad-signature");
  });

  it("signedHere skips only the signature check: its form, header and kid are still checked", () => {
    const foreign = signJws({ kid: alice.did, typ: "example+jws" }, "{}", bob.secretKey);
    assert.equal(verifyJws(foreign, { typ: "example+jws" }).ok, false);
    const here = verifyJws(foreign, { typ: "example+jws", signedHere: true });
    assert.ok(here.ok);
    assert.equal(here.value.signer, alice.did);
    assert.equal(verifyJws(foreign, { typ: "other+jws", signedHere: true }).ok, false, "typ");
    const [, payload, signature] = foreign.split(".");
    assert.equal(verifyJws(`${base64urlEncode(JSON.stringify({ alg: "EdDSA", kid: "nobody" }))}.${payload}.${signature}`, { signedHere: true }).ok, false, "kid");
    assert.equal(verifyJws(`${foreign}x`, { signedHere: true }).ok, false, "form");
  });

  it("accepts a kid written as the DID URL did:key:X#X, and reports the bare did:key", () => {
    const fragment = alice.did.slice("did:key:".length);
    const result = verifyJws(signJws({ kid: `${alice.did}#${fragment}` }, "{}", alice.secretKey));
    assert.ok(result.ok);
    assert.equal(result.value.signer, alice.did);
  });

  it("compares typ as a media type (case-insensitive, optional application/)", () => {
    const compact = signJws({ kid: alice.did, typ: "application/Charter-Command+JWS" }, "{}", alice.secretKey);
    assert.ok(verifyJws(compact, { typ: "charter-command+jws" }).ok);
    rejects(compact, "bad-typ", { typ: "charter-receipt+jws" });
    rejects(signJws({ kid: alice.did }, "{}", alice.secretKey), "bad-typ", { typ: "charter-command+jws" });
  });

  describe("malformed input", () => {
    const good = signJws({ kid: alice.did }, "{}", alice.secretKey);
    const [header, payload, signature] = good.split(".") as [string, string, string];
    const malformed: [string, unknown][] = [
      ["not a string", 42],
      ["empty", ""],
      ["one segment", header],
      ["two segments", `${header}.${payload}`],
      ["four segments", `${good}.${signature}`],
      ["an empty header", `.${payload}.${signature}`],
      ["a padded header", `${header}=.${payload}.${signature}`],
      ["standard base64 in the payload", `${header}.${payload}+/.${signature}`],
      ["whitespace", `${header}.${payload} .${signature}`],
      ["an impossible segment length", `${header}.${"A".repeat(5)}.${signature}`],
      // The last of 86 characters carries 4 unused bits; setting one keeps the bytes but changes the string.
      ["a non-canonical signature encoding", `${header}.${payload}.${signature.slice(0, -1)}${nextChar(signature.at(-1) as string)}`],
      ["a 63-byte signature", `${header}.${payload}.${base64urlEncode(new Uint8Array(63))}`],
      ["a 65-byte signature", `${header}.${payload}.${base64urlEncode(new Uint8Array(65))}`],
      ["an empty signature", `${header}.${payload}.`],
      ["a header that is not JSON", rawJws("{alg:EdDSA}", "{}")],
      ["a header that is a JSON array", rawJws(`["EdDSA","${alice.did}"]`, "{}")],
      ["a header that is null", rawJws("null", "{}")],
      ["a non-string typ", rawJws(JSON.stringify({ alg: "EdDSA", kid: alice.did, typ: 7 }), "{}")],
    ];
    for (const [name, compact] of malformed) it(`rejects ${name} as malformed-jws`, () => rejects(compact, "malformed-jws"));

    for (const alg of [undefined, "none", "HS256", "ES256", "eddsa", "Ed25519", ["EdDSA"]]) {
      it(`rejects alg ${JSON.stringify(alg)} as unsupported-alg`, () => rejects(rawJws(JSON.stringify({ alg, kid: alice.did }), "{}"), "unsupported-alg"));
    }

    it("rejects any crit header as unsupported-crit", () => {
      rejects(rawJws(JSON.stringify({ alg: "EdDSA", kid: alice.did, crit: ["b64"], b64: false }), "{}"), "unsupported-crit");
    });

    const otherKeyType = `did:key:z${base58Encode(Uint8Array.from([0xec, 0x01, ...alice.publicKey]))}`;
    const kids: [string, unknown][] = [
      ["missing", undefined],
      ["a number", 7],
      ["not a did", "alice"],
      ["a did:web", "did:web:example.com"],
      ["broken base58", `${alice.did.slice(0, -1)}0`],
      ["an X25519 did:key", otherKeyType],
      ["a DID URL whose fragment names another key", `${alice.did}#${bob.did.slice("did:key:".length)}`],
    ];
    for (const [name, kid] of kids) it(`rejects a kid that is ${name} as bad-kid`, () => rejects(rawJws(JSON.stringify({ alg: "EdDSA", kid }), "{}"), "bad-kid"));

    it("never trusts a key embedded in the header", () => {
      const forged = rawJws(JSON.stringify({ alg: "EdDSA", kid: alice.did, jwk: toPublicJwk(bob) }), "{}", bob);
      rejects(forged, "bad-signature");
    });
  });

  describe("interoperates with jose", () => {
    it("verifies what jose signs", async () => {
      const key = await importJWK({ ...toPrivateJwk(alice) }, "EdDSA");
      const compact = await new CompactSign(Buffer.from('{"from":"jose"}')).setProtectedHeader({ alg: "EdDSA", kid: alice.did, typ: "charter-command+jws" }).sign(key);
      const result = verifyJws(compact, { typ: "charter-command+jws" });
      assert.ok(result.ok);
      assert.equal(result.value.payload.toString(), '{"from":"jose"}');
    });

    it("is verified by jose", async () => {
      const compact = signJws({ kid: alice.did, typ: "charter-receipt+jws" }, '{"from":"charter"}', alice.secretKey);
      const key = await importJWK({ ...toPublicJwk(alice) }, "EdDSA");
      const { payload, protectedHeader } = await compactVerify(compact, key, { algorithms: ["EdDSA"] });
      assert.equal(Buffer.from(payload).toString(), '{"from":"charter"}');
      assert.equal(protectedHeader.kid, alice.did);
    });

    it("agrees with jose that a tampered JWS is invalid", async () => {
      const compact = signJws({ kid: alice.did }, '{"n":1}', alice.secretKey);
      const tampered = compact.replace(base64urlEncode('{"n":1}'), base64urlEncode('{"n":2}'));
      rejects(tampered, "bad-signature");
      const key = await importJWK({ ...toPublicJwk(alice) }, "EdDSA");
      await assert.rejects(compactVerify(tampered, key));
    });
  });
});
