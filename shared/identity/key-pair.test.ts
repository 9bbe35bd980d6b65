import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fromPrivateJwk, generateKeyPair, keyPairFromSeed, toPrivateJwk, toPublicJwk } from "./key-pair.ts";

// RFC 8037 Appendix A.1: an Ed25519 private key as a JWK.
const RFC8037 = { kty: "OKP", crv: "Ed25519", d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" } as const;

describe("key pairs and JWKs", () => {
  it("derives RFC 8037's public key from its private key", () => {
    const keyPair = fromPrivateJwk({ ...RFC8037, x: undefined });
    assert.ok(keyPair.ok);
    assert.equal(toPublicJwk(keyPair.value).x, RFC8037.x);
    assert.deepEqual(toPrivateJwk(keyPair.value), { kty: "OKP", crv: "Ed25519", x: RFC8037.x, d: RFC8037.d });
  });

  it("round-trips a generated key through its JWK", () => {
    const keyPair = generateKeyPair();
    assert.match(keyPair.did, /^did:key:z6Mk/);
    const back = fromPrivateJwk(JSON.parse(JSON.stringify(toPrivateJwk(keyPair))));
    assert.ok(back.ok);
    assert.equal(back.value.did, keyPair.did);
    assert.deepEqual(Buffer.from(back.value.secretKey), Buffer.from(keyPair.secretKey));
  });

  it("gives two generated keys different identities", () => {
    assert.notEqual(generateKeyPair().did, generateKeyPair().did);
  });

  it("keeps a public JWK free of the private part", () => {
    assert.deepEqual(Object.keys(toPublicJwk(generateKeyPair())).sort(), ["crv", "kty", "x"]);
  });

  const bad: [string, unknown][] = [
    ["not an object", "key"],
    ["null", null],
    ["an array", [RFC8037]],
    ["another key type", { ...RFC8037, kty: "EC" }],
    ["another curve", { ...RFC8037, crv: "X25519" }],
    ["no d (a public key)", { kty: "OKP", crv: "Ed25519", x: RFC8037.x }],
    ["a short d", { ...RFC8037, d: RFC8037.d.slice(0, 40) }],
    ["a padded d", { ...RFC8037, d: `${RFC8037.d}=` }],
    ["an x that does not match d", { ...RFC8037, x: toPublicJwk(generateKeyPair()).x }],
  ];
  for (const [name, jwk] of bad) {
    it(`rejects ${name} with bad_jwk`, () => {
      const result = fromPrivateJwk(jwk);
      assert.equal(result.ok, false);
      if (!result.ok) assert.equal(result.error.code, "bad_jwk");
    });
  }

  it("throws on a seed of the wrong length (a caller bug)", () => {
    assert.throws(() => keyPairFromSeed(new Uint8Array(16)), RangeError);
  });
});
