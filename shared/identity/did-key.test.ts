import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { base58Decode, base58Encode } from "./base58.ts";
import { didKeyFromPublicKey, isDidKey, publicKeyFromDidKey } from "./did-key.ts";

describe("did:key (Ed25519)", () => {
  it("matches the W3C did:key specification's Ed25519 example", () => {
    const publicKey = Buffer.from("3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29", "hex");
    const did = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp";
    assert.equal(didKeyFromPublicKey(publicKey), did);
    const decoded = publicKeyFromDidKey(did);
    assert.ok(decoded.ok);
    assert.deepEqual(Buffer.from(decoded.value), publicKey);
  });

  it("matches a published did document (publicKeyBase58 ↔ id)", () => {
    const publicKey = base58Decode("8HH5gYEeNc3z7PYXmd54d4x6qAfCNrqQqEB3nS7Zfu7K") as Uint8Array;
    assert.equal(didKeyFromPublicKey(publicKey), "did:key:z6MkmjY8GnV5i9YTDtPETC2uUAW6ejw3nk5mXF5yci5ab7th");
  });

  it("round-trips any 32-byte key, always as did:key:z6Mk…", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (key) => {
        const did = didKeyFromPublicKey(key);
        assert.match(did, /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}$/);
        const decoded = publicKeyFromDidKey(did);
        assert.ok(decoded.ok);
        assert.deepEqual(Uint8Array.from(decoded.value), key);
      }),
    );
  });

  it("throws on a public key of the wrong length (a caller bug, not input)", () => {
    assert.throws(() => didKeyFromPublicKey(new Uint8Array(31)), RangeError);
  });

  const key34 = (prefix: number[], length = 32) => `did:key:z${base58Encode(Uint8Array.from([...prefix, ...new Array<number>(length).fill(7)]))}`;
  const cases: [string, string][] = [
    ["", "not_did_key"],
    ["z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp", "not_did_key"],
    ["did:web:example.com", "not_did_key"],
    ["DID:KEY:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp", "not_did_key"],
    ["did:key:", "unsupported_multibase"],
    ["did:key:f6d6b6579", "unsupported_multibase"],
    ["did:key:z", "invalid_base58"],
    ["did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooW0", "invalid_base58"],
    ["did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp#frag", "invalid_base58"],
    ["did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169", "unsupported_key_type"], // P-256
    ["did:key:z6LShLeXRTzevtwcfehaGEzCMyL3bNsAeKCwcqwJxyCo63yE", "unsupported_key_type"], // X25519
    [key34([0xed, 0x01], 31), "invalid_key_length"],
    [key34([0xed, 0x01], 33), "invalid_key_length"],
    [`did:key:z${"2".repeat(100)}`, "invalid_key_length"],
  ];
  for (const [did, code] of cases) {
    it(`rejects ${JSON.stringify(did.slice(0, 60))} with ${code}`, () => {
      const decoded = publicKeyFromDidKey(did);
      assert.equal(decoded.ok, false);
      if (!decoded.ok) {
        assert.equal(decoded.error.code, code);
        assert.ok(decoded.error.message.length > 0);
      }
      assert.equal(isDidKey(did), false);
    });
  }

  it("isDidKey is false for non-strings", () => {
    for (const value of [undefined, null, 42, {}, ["did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"]]) assert.equal(isDidKey(value), false);
  });
});
