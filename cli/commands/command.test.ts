import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateKeyPair, type Receipt, signReceipt } from "../../shared/identity/index.ts";
import { formatProblem, formatReason, formatReceipt, parseArgsObject, readAnswer } from "./command.ts";
import { lastLine } from "./verify.ts";

const node = generateKeyPair();

function receipt(overrides: Partial<Receipt> = {}): Receipt {
  return {
    id: "rcpt_1",
    command: "0".repeat(64),
    seq: 7,
    tenant: "acme",
    namespace: "acme.shipping",
    action: "Confirm",
    subject: "o-1",
    signer: generateKeyPair().did,
    artifact: `art_${"1".repeat(64)}`,
    outcome: "accepted",
    reason: null,
    state: { status: "Confirmed" },
    committedAt: "2026-11-24T10:00:00.000Z",
    node: node.did,
    ...overrides,
  };
}

describe("charter command: reading and printing the node's answer", () => {
  it("takes --args as a JSON object only", () => {
    assert.deepEqual(parseArgsObject('{"units": 4}'), { units: 4 });
    assert.match(parseArgsObject("[1]") as string, /must be a JSON object/);
    assert.match(parseArgsObject("{units: 4}") as string, /is not JSON/);
  });

  it("reads a receipt whose signature verifies, accepted or refused", () => {
    const accepted = signReceipt(node, receipt());
    const a = readAnswer(200, JSON.stringify({ receipt: receipt(), jws: accepted }));
    assert.equal(a.kind, "receipt");
    assert.equal(a.kind === "receipt" && a.receipt.outcome, "accepted");
    const reason = { code: "condition_failed", condition: "context.signer != state.requested_by", line: 61, message: "condition does not hold: context.signer != state.requested_by" } as const;
    const refused = signReceipt(node, receipt({ outcome: "refused", reason, state: { status: "Requested" } }));
    const r = readAnswer(422, JSON.stringify({ jws: refused }));
    assert.equal(r.kind === "receipt" && r.receipt.outcome, "refused");
  });

  it("does not take a receipt whose signature fails for one", () => {
    const jws = signReceipt(node, receipt());
    const [header, payload] = jws.split(".");
    const forged = `${header}.${payload}.${Buffer.alloc(64).toString("base64url")}`;
    const answer = readAnswer(200, JSON.stringify({ jws: forged }));
    assert.equal(answer.kind, "problem");
    assert.match(answer.kind === "problem" ? answer.line : "", /does not verify/);
  });

  it("turns a problem document into one line: status, title, detail and field problems", () => {
    const body = { type: "urn:charter:problem:bad-args", title: "Bad Request", status: 400, detail: "the arguments do not match", errors: [{ pointer: "#/args/units", detail: "must be an integer" }] };
    const answer = readAnswer(400, JSON.stringify(body));
    assert.deepEqual(answer, { kind: "problem", line: "400 Bad Request: the arguments do not match (#/args/units: must be an integer)" });
    assert.equal(formatProblem(404, { title: "Not Found", detail: "no such tenant" }), "404 Not Found: no such tenant");
    assert.match((readAnswer(502, "<html>") as { line: string }).line, /^the node answered 502 with a body that is not JSON/);
  });

  it("prints the outcome first and the receipt JWS alone on the last line", () => {
    const jws = signReceipt(node, receipt());
    const text = formatReceipt(receipt(), jws, false);
    assert.match(text, /^accepted: Confirm o-1 in acme\/acme\.shipping \(seq 7\)\nstate: \{"status":"Confirmed"\}\n/);
    assert.equal(lastLine(text), jws);
    assert.match(formatReceipt(receipt(), jws, true), /replayed/);
  });

  it("prints a refusal's code, condition and line", () => {
    assert.equal(formatReason({ code: "condition_failed", condition: "context.signer != state.requested_by", line: 61, message: "condition does not hold" }), "condition_failed: context.signer != state.requested_by (line 61)");
    assert.equal(formatReason({ code: "unauthorized", condition: null, line: null, message: "not a member" }), "unauthorized: not a member");
    const refused = receipt({ outcome: "refused", reason: { code: "overflow", condition: null, line: 12, message: "integer overflow" } });
    assert.match(formatReceipt(refused, signReceipt(node, refused), false), /^refused: .*\nreason: overflow: integer overflow \(line 12\)\n/);
  });
});
