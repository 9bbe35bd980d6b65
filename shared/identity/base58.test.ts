import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { base58Decode, base58Encode } from "./base58.ts";

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, "hex"));

describe("base58btc", () => {
  it("encodes the usual test vectors", () => {
    assert.equal(base58Encode(new Uint8Array()), "");
    assert.equal(base58Encode(Buffer.from("Hello World!")), "2NEpo7TZRRrLZSi2U");
    assert.equal(base58Encode(bytes("0000287fb4cd")), "11233QC4");
    assert.equal(base58Encode(bytes("00")), "1");
    assert.equal(base58Encode(bytes("ff")), "5Q");
  });

  it("decodes them back", () => {
    assert.deepEqual(base58Decode(""), new Uint8Array());
    assert.deepEqual(Buffer.from(base58Decode("2NEpo7TZRRrLZSi2U") as Uint8Array).toString(), "Hello World!");
    assert.deepEqual(base58Decode("11233QC4"), bytes("0000287fb4cd"));
  });

  it("rejects characters outside the alphabet (0 O I l, punctuation, non-ASCII)", () => {
    for (const text of ["0", "O", "I", "l", "abc+", "z z", "é", "2NEpo7TZRRrLZSi2U\n"]) assert.equal(base58Decode(text), null, text);
  });

  it("round-trips any bytes, leading zeros included", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (input) => {
        assert.deepEqual(base58Decode(base58Encode(input)), input);
      }),
      { numRuns: 500 },
    );
  });

  it("is canonical: decoding then encoding any valid text gives the same text", () => {
    const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }), (chars) => {
        const text = chars.join("");
        assert.equal(base58Encode(base58Decode(text) as Uint8Array), text);
      }),
      { numRuns: 500 },
    );
  });
});
