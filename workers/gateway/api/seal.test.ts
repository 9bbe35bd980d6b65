import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { sealOf } from "./seal.ts";

const DID = "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK";

test("a seal is the first 80 bits of SHA-256(did) in RFC 4648 base32, four groups of four", () => {
  const seal = sealOf(DID);
  assert.match(seal, /^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/);
  // The same bits, spelled out another way: the digest's first ten bytes as a bit string, five at a time.
  const bits = [...createHash("sha256").update(DID).digest().subarray(0, 10)].map((b) => b.toString(2).padStart(8, "0")).join("");
  const expected = (bits.match(/.{5}/g) as string[]).map((five) => "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[Number.parseInt(five, 2)]).join("");
  assert.equal(seal.replaceAll("-", ""), expected);
});

test("different dids have different seals; the same did always the same one", () => {
  assert.equal(sealOf(DID), sealOf(DID));
  assert.notEqual(sealOf(DID), sealOf(`${DID}x`));
});
