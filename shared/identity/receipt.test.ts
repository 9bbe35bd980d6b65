import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compactVerify, importJWK } from "jose";
import { signJws } from "./jws.ts";
import { generateKeyPair, toPublicJwk } from "./key-pair.ts";
import { RECEIPT_TYP, receiptJsonOf, receiptOf, signReceipt, verifyReceipt, type Receipt } from "./receipt.ts";

const node = generateKeyPair();
const ada = generateKeyPair();
const receipt: Receipt = {
  id: "rcpt_01",
  command: "b773d463144ed2d831bc4a2a7372fcb9d6e953efb61c700cb9c1c856c743f8cb",
  seq: 1042,
  tenant: "acme",
  namespace: "acme.shipping",
  action: "Request",
  subject: "order-17",
  signer: ada.did,
  artifact: "art_9",
  outcome: "refused",
  reason: { code: "condition_failed", condition: "units > 0", line: 14, message: "units must be positive" },
  state: null,
  committedAt: "2026-11-21T10:00:00.012Z",
  node: node.did,
};

describe("receipts", () => {
  it("signs the receipt object itself, byte for byte, with the node key", () => {
    const jws = signReceipt(node, receipt);
    const [header, payload] = jws.split(".") as [string, string];
    assert.deepEqual(JSON.parse(Buffer.from(header, "base64url").toString()), { alg: "EdDSA", kid: node.did, typ: RECEIPT_TYP });
    assert.equal(Buffer.from(payload, "base64url").toString(), JSON.stringify(receipt));
    const verified = verifyReceipt(jws, { node: node.did });
    assert.ok(verified.ok);
    assert.deepEqual(verified.value.receipt, receipt);
  });

  it("signs the JSON the caller already made as it is, and gives it back from the JWS (receiptJsonOf, receiptOf)", () => {
    const json = JSON.stringify(receipt);
    const jws = signReceipt(node, receipt, json);
    assert.equal(jws, signReceipt(node, receipt), "the same bytes, so the same signature");
    assert.equal(receiptJsonOf(jws), json);
    assert.deepEqual(receiptOf(jws), receipt);
    const unicode = { ...receipt, subject: "ørsted-✓", state: { note: "naïve \"quoted\" 日本" } };
    assert.deepEqual(receiptOf(signReceipt(node, unicode)), unicode);
  });

  it("is verifiable by any JOSE library given the node's public key", async () => {
    const { payload } = await compactVerify(signReceipt(node, receipt), await importJWK({ ...toPublicJwk(node) }, "EdDSA"));
    assert.deepEqual(JSON.parse(Buffer.from(payload).toString()), receipt);
  });

  it("throws when asked to sign a receipt naming another node (a bug in the caller)", () => {
    assert.throws(() => signReceipt(node, { ...receipt, node: ada.did }));
  });

  it("rejects a receipt from another node than expected", () => {
    const other = generateKeyPair();
    const result = verifyReceipt(signReceipt(other, { ...receipt, node: other.did }), { node: node.did });
    assert.equal(!result.ok && result.error.code, "bad-receipt");
  });

  it("rejects a tampered receipt", () => {
    const jws = signReceipt(node, receipt);
    const [header, , signature] = jws.split(".");
    const forged = Buffer.from(JSON.stringify({ ...receipt, outcome: "accepted", reason: null })).toString("base64url");
    const result = verifyReceipt(`${header}.${forged}.${signature}`);
    assert.equal(!result.ok && result.error.code, "bad-signature");
  });

  it("rejects a command or other JWS presented as a receipt", () => {
    const result = verifyReceipt(signJws({ kid: node.did, typ: "charter-command+jws" }, JSON.stringify(receipt), node.secretKey));
    assert.equal(!result.ok && result.error.code, "bad-typ");
  });

  for (const [name, payload] of [
    ["not JSON", "{"],
    ["an array", "[]"],
    ["missing its id", JSON.stringify({ ...receipt, id: undefined })],
    ["with a string seq", JSON.stringify({ ...receipt, seq: "1042" })],
    ["with an unknown outcome", JSON.stringify({ ...receipt, outcome: "maybe" })],
    ["naming another node than its signer", JSON.stringify({ ...receipt, node: ada.did })],
  ] as const) {
    it(`rejects a signed receipt payload that is ${name} as bad-receipt`, () => {
      const result = verifyReceipt(signJws({ kid: node.did, typ: RECEIPT_TYP }, payload, node.secretKey));
      assert.equal(!result.ok && result.error.code, "bad-receipt");
    });
  }
});
