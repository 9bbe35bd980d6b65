import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateKeyPair, type Receipt, signJws, signReceipt } from "../../../../shared/identity/index.ts";
import { checkDocument, DOCUMENT_TYP, type ExchangeDocument, signDocument } from "./exchange-document.ts";
import { nodeUrlProblem, relationshipInput } from "./relationship-rules.ts";

const node = generateKeyPair();
const ada = generateKeyPair();
const bea = generateKeyPair();

const receipt: Receipt = {
  id: "rcpt_1",
  command: "c".repeat(64),
  seq: 7,
  tenant: "ada",
  namespace: "std.invoices",
  action: "Approve",
  subject: "inv-1",
  signer: ada.did,
  artifact: "art_1",
  outcome: "accepted",
  reason: null,
  state: { status: "Approved" },
  committedAt: "2026-11-24T19:24:17.296Z",
  node: node.did,
};

function documentFor(fields: Partial<ExchangeDocument> = {}): ExchangeDocument {
  return { typ: DOCUMENT_TYP, id: "doc-1", from: ada.did, to: bea.did, namespace: "std.invoices", aggregate: "Invoice", subject: "inv-1", state: { status: "Approved" }, receipt: signReceipt(node, receipt), sentAt: "2026-11-24T19:25:00.000Z", ...fields };
}

const atBea = { sender: (did: string) => did === ada.did, recipient: (did: string) => did === bea.did };

describe("a signed document", () => {
  it("checks: signed by its from, a pinned sender, for this person, with a receipt of its subject", () => {
    const checked = checkDocument(signDocument(documentFor(), ada), atBea);
    assert.ok(checked.ok, JSON.stringify(checked));
    assert.deepEqual(checked.value, documentFor());
  });

  it("refuses, by code: an unknown sender, another recipient, a bad receipt, a signer that is not its from, a tampered payload", () => {
    const codeOf = (jws: string) => {
      const checked = checkDocument(jws, atBea);
      return checked.ok ? "ok" : checked.error.code;
    };
    const stranger = generateKeyPair();
    assert.equal(codeOf(signDocument(documentFor({ from: stranger.did }), stranger)), "unknown-sender");
    assert.equal(codeOf(signDocument(documentFor({ to: ada.did }), ada)), "wrong-recipient");
    assert.equal(codeOf(signDocument(documentFor({ subject: "inv-2" }), ada)), "bad-receipt");
    assert.equal(codeOf(signDocument(documentFor({ receipt: signJws({ kid: node.did, typ: "charter-receipt+jws" }, JSON.stringify({ ...receipt, node: ada.did }), node.secretKey) }), ada)), "bad-receipt");
    assert.equal(codeOf(signJws({ kid: ada.did, typ: "charter-document+jws" }, JSON.stringify(documentFor({ from: bea.did })), ada.secretKey)), "bad-signature");
    assert.equal(codeOf(signJws({ kid: ada.did, typ: "charter-document+jws" }, JSON.stringify({ ...documentFor(), sentAt: "yesterday" }), ada.secretKey)), "malformed-payload");
    assert.equal(codeOf(signJws({ kid: ada.did }, JSON.stringify(documentFor()), ada.secretKey)), "bad-typ");
    const [header, , signature] = signDocument(documentFor(), ada).split(".");
    assert.equal(codeOf(`${header}.${Buffer.from(JSON.stringify(documentFor({ state: { status: "Paid" } }))).toString("base64url")}.${signature}`), "bad-signature");
    assert.throws(() => signDocument(documentFor(), bea), /cannot be signed/);
  });
});

describe("a relationship's fields", () => {
  it("takes https, and http only on loopback; no credentials, query or fragment", () => {
    for (const url of ["https://bea.example.org", "https://bea.example.org/charter/", "http://127.0.0.1:8787", "http://localhost:8787", "http://[::1]:8787"]) assert.equal(nodeUrlProblem(url), null, url);
    for (const url of ["http://bea.example.org", "http://10.0.0.2", "ftp://127.0.0.1", "https://u:p@bea.example.org", "https://bea.example.org/?a=1", "https://bea.example.org/#x", "", 7]) assert.notEqual(nodeUrlProblem(url), null, String(url));
  });

  it("names every wrong field, and keeps the URL without its trailing slash and the name trimmed", () => {
    const wrong = relationshipInput({ did: ada.did, url: "http://example.org", name: "\u0007" }, ada.did);
    assert.deepEqual(wrong.ok ? [] : wrong.errors.map((e) => e.pointer), ["#/did", "#/url", "#/name"]);
    assert.deepEqual(relationshipInput({ did: bea.did, url: "https://bea.example.org/", name: " Bea " }, ada.did), { ok: true, value: { did: bea.did, url: "https://bea.example.org", name: "Bea" } });
  });
});
