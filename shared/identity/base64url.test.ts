import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { base64urlDecode, base64urlEncode, isBase64url } from "./base64url.ts";

describe("base64url", () => {
  it("encodes without padding, with the URL-safe alphabet", () => {
    assert.equal(base64urlEncode(Uint8Array.from([0xfb, 0xff])), "-_8");
    assert.equal(base64urlEncode('{"alg":"EdDSA"}'), "eyJhbGciOiJFZERTQSJ9");
    assert.equal(base64urlEncode(new Uint8Array()), "");
  });

  it("round-trips any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (input) => {
        assert.deepEqual(Uint8Array.from(base64urlDecode(base64urlEncode(input)) as Buffer), input);
      }),
    );
  });

  it("rejects padding, the standard alphabet's + and /, whitespace and impossible lengths", () => {
    for (const text of ["-_8=", "+/8", "ab c", "abcde", "a", "eyJ\n"]) assert.equal(base64urlDecode(text), null, text);
  });

  it("rejects non-canonical text whose spare bits are not zero", () => {
    assert.equal(isBase64url("-_8"), true);
    assert.equal(isBase64url("-_9"), false); // 2 spare bits set
    assert.equal(isBase64url("AA"), true);
    assert.equal(isBase64url("AB"), false); // 4 spare bits set
  });

  it("checks a slice of a longer string", () => {
    assert.equal(isBase64url("xx.-_8.yy", 3, 6), true);
    assert.equal(isBase64url("xx.-_9.yy", 3, 6), false);
  });
});
