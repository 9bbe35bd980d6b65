import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { INSTALL_ID_PATTERN, INSTALL_TYP, newInstallId, parseInstall, signInstall, type InstallPayload } from "./install.ts";
import { signCommand } from "./command.ts";
import { signJws } from "./jws.ts";
import { generateKeyPair } from "./key-pair.ts";

const owner = generateKeyPair();
const now = Date.parse("2026-11-21T10:00:00Z");
const payload: InstallPayload = { tenant: "acme", source: "# Shipping\n\n```charter\ncontract Shipping {}\n```\n", issuedAt: "2026-11-21T09:58:00Z", id: "k3Zq9vR2xW7pL0aB" };

function problemCode(compact: unknown, options = { now, tenant: "acme" }): [number, string, string[]] {
  const result = parseInstall(compact, options);
  assert.equal(result.ok, false);
  if (result.ok) throw new Error("unreachable");
  return [result.error.status, result.error.code, (result.error.errors ?? []).map((e) => e.pointer)];
}

describe("install envelopes", () => {
  it("verifies a signed install into its payload and signer", () => {
    const result = parseInstall(signInstall(owner, payload), { now, tenant: "acme" });
    assert.ok(result.ok);
    assert.deepEqual(result.value.payload, payload);
    assert.equal(result.value.signer, owner.did);
    assert.equal(result.value.header.typ, INSTALL_TYP);
    assert.match(result.value.digest, /^[0-9a-f]{64}$/);
  });

  it("rejects an install for another tenant than the path's", () => {
    assert.deepEqual(problemCode(signInstall(owner, payload), { now, tenant: "globex" }), [400, "path-mismatch", ["#/tenant"]]);
  });

  it("rejects a stale install", () => {
    assert.deepEqual(problemCode(signInstall(owner, payload), { now: now + 10 * 60_000, tenant: "acme" }), [400, "stale", ["#/issuedAt"]]);
  });

  it("rejects a command presented as an install", () => {
    const command = signCommand(owner, { tenant: "acme", namespace: "n", action: "A", subject: "s", args: {}, idempotencyKey: "k", issuedAt: payload.issuedAt });
    assert.equal(problemCode(command)[1], "bad-typ");
  });

  for (const [name, fields, pointers] of [
    ["a missing source", { tenant: "acme", issuedAt: payload.issuedAt, id: payload.id }, ["#/source"]],
    ["an empty source", { ...payload, source: "" }, ["#/source"]],
    ["a numeric tenant", { ...payload, tenant: 1 }, ["#/tenant"]],
    ["a bad issuedAt", { ...payload, issuedAt: "yesterday" }, ["#/issuedAt"]],
    ["an unknown field", { ...payload, version: 2 }, ["#/version"]],
    ["an id shorter than 16 characters", { ...payload, id: "short" }, ["#/id"]],
    ["an id longer than 64 characters", { ...payload, id: "a".repeat(65) }, ["#/id"]],
    ["an id with characters outside base64url", { ...payload, id: "abcdefghijklmnop=" }, ["#/id"]],
    ["a numeric id", { ...payload, id: 1234567890123456 }, ["#/id"]],
  ] as const) {
    it(`rejects ${name} as malformed-payload`, () => {
      const compact = signJws({ kid: owner.did, typ: INSTALL_TYP }, JSON.stringify(fields), owner.secretKey);
      assert.deepEqual(problemCode(compact), [400, "malformed-payload", pointers]);
    });
  }

  it("issue 16 #10: rejects an install without an id (an install is single-use)", () => {
    const { id: _, ...withoutId } = payload;
    const compact = signJws({ kid: owner.did, typ: INSTALL_TYP }, JSON.stringify(withoutId), owner.secretKey);
    assert.deepEqual(problemCode(compact), [400, "malformed-payload", ["#/id"]]);
  });

  it("makes fresh install ids of the accepted shape", () => {
    const a = newInstallId();
    assert.match(a, INSTALL_ID_PATTERN);
    assert.notEqual(a, newInstallId());
  });

  it("rejects a bad signature", () => {
    const compact = signJws({ kid: owner.did, typ: INSTALL_TYP }, JSON.stringify(payload), generateKeyPair().secretKey);
    assert.equal(problemCode(compact)[1], "bad-signature");
  });
});
