import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import fc from "fast-check";
import { COMMAND_TYP, parseCommand, signCommand, type CommandPayload } from "./command.ts";
import { signJws } from "./jws.ts";
import { generateKeyPair } from "./key-pair.ts";
import type { Problem } from "./problem.ts";

const ada = generateKeyPair();
const now = Date.parse("2026-11-21T10:00:00Z");
const path = { tenant: "acme", namespace: "acme.shipping", action: "Request" };
const payload: CommandPayload = {
  tenant: "acme",
  namespace: "acme.shipping",
  action: "Request",
  subject: "order-17",
  args: { customer: "Ada", units: 4, crates: 2, credit_terms: false },
  idempotencyKey: "2b7c0e1a-5d0c-4a57-9a8e-1f3c1a2b3c4d",
  issuedAt: "2026-11-21T10:00:00Z",
};

/** A correctly signed command whose payload is whatever JSON the test wants. */
function signed(fields: unknown): string {
  return signJws({ kid: ada.did, typ: COMMAND_TYP }, JSON.stringify(fields), ada.secretKey);
}

function problemOf(compact: unknown, options = { now, path }): Problem {
  const result = parseCommand(compact, options);
  assert.equal(result.ok, false, "expected a problem");
  if (result.ok) throw new Error("unreachable");
  const p = result.error;
  assert.equal(typeof p.type, "string");
  assert.equal(typeof p.title, "string");
  assert.equal(typeof p.detail, "string");
  return p;
}

describe("commands", () => {
  it("verifies a signed command into header, payload, signer and digest", () => {
    const compact = signCommand(ada, payload);
    const result = parseCommand(compact, { now, path });
    assert.ok(result.ok);
    assert.deepEqual(result.value.payload, payload);
    assert.deepEqual(result.value.header, { alg: "EdDSA", kid: ada.did, typ: COMMAND_TYP });
    assert.equal(result.value.signer, ada.did);
    assert.equal(result.value.digest, createHash("sha256").update(compact).digest("hex"));
  });

  it("accepts issuedAt up to 5 minutes either side of now, and rejects it beyond as stale", () => {
    for (const offset of [-300_000, 300_000, -1, 0]) {
      assert.ok(parseCommand(signCommand(ada, payload), { now: now + offset, path }).ok, `offset ${offset}`);
    }
    for (const offset of [300_001, -300_001, 86_400_000]) {
      const p = problemOf(signCommand(ada, payload), { now: now + offset, path });
      assert.equal(p.status, 400);
      assert.equal(p.code, "stale");
      assert.deepEqual(p.errors?.map((e) => e.pointer), ["#/issuedAt"]);
    }
  });

  for (const field of ["tenant", "namespace", "action"] as const) {
    it(`rejects a command posted to another ${field} as path-mismatch (400)`, () => {
      const p = problemOf(signCommand(ada, payload), { now, path: { ...path, [field]: "other" } });
      assert.equal(p.status, 400);
      assert.equal(p.code, "path-mismatch");
      assert.deepEqual(p.errors?.map((e) => e.pointer), [`#/${field}`]);
    });
  }

  it("maps signature-level failures to 400 problems with the JWS code", () => {
    const good = signCommand(ada, payload);
    const cases: [unknown, string][] = [
      [undefined, "malformed-jws"],
      [{ command: good }, "malformed-jws"],
      ["", "malformed-jws"],
      [good.slice(0, -2), "malformed-jws"],
      [signJws({ kid: ada.did, typ: COMMAND_TYP }, JSON.stringify(payload), generateKeyPair().secretKey), "bad-signature"],
      [signJws({ kid: ada.did, typ: "charter-install+jws" }, JSON.stringify(payload), ada.secretKey), "bad-typ"],
      [signJws({ kid: ada.did }, JSON.stringify(payload), ada.secretKey), "bad-typ"],
      [signJws({ kid: "ada", typ: COMMAND_TYP }, JSON.stringify(payload), ada.secretKey), "bad-kid"],
    ];
    for (const [compact, code] of cases) {
      const p = problemOf(compact);
      assert.equal(p.status, 400);
      assert.equal(p.code, code, p.detail);
    }
  });

  const { tenant: _t, ...withoutTenant } = payload;
  const malformed: [string, unknown, string[]][] = [
    ["a payload that is not JSON", "not json", []],
    ["a payload that is an array", [payload], []],
    ["a payload that is null", null, []],
    ["a missing tenant", withoutTenant, ["#/tenant"]],
    ["an empty namespace", { ...payload, namespace: "" }, ["#/namespace"]],
    ["a numeric action", { ...payload, action: 1 }, ["#/action"]],
    ["an empty subject", { ...payload, subject: "" }, ["#/subject"]],
    ["a subject with a space", { ...payload, subject: "order 17" }, ["#/subject"]],
    ["a subject with a slash", { ...payload, subject: "orders/17" }, ["#/subject"]],
    ["a subject of 129 characters", { ...payload, subject: "s".repeat(129) }, ["#/subject"]],
    ["args that are an array", { ...payload, args: [1, 2] }, ["#/args"]],
    ["args that are null", { ...payload, args: null }, ["#/args"]],
    ["args that are a string", { ...payload, args: "{}" }, ["#/args"]],
    ["an empty idempotencyKey", { ...payload, idempotencyKey: "" }, ["#/idempotencyKey"]],
    ["an idempotencyKey of 129 characters", { ...payload, idempotencyKey: "k".repeat(129) }, ["#/idempotencyKey"]],
    ["an idempotencyKey with a newline", { ...payload, idempotencyKey: "a\nb" }, ["#/idempotencyKey"]],
    ["a numeric issuedAt", { ...payload, issuedAt: now }, ["#/issuedAt"]],
    ["an issuedAt without a zone", { ...payload, issuedAt: "2026-11-21T10:00:00" }, ["#/issuedAt"]],
    ["an unknown field", { ...payload, nonce: 1 }, ["#/nonce"]],
    ["several problems at once", { ...payload, subject: 5, args: 5, extra: true }, ["#/extra", "#/subject", "#/args"]],
  ];
  for (const [name, fields, pointers] of malformed) {
    it(`rejects ${name} as malformed-payload (400)`, () => {
      const compact = typeof fields === "string" ? signJws({ kid: ada.did, typ: COMMAND_TYP }, fields, ada.secretKey) : signed(fields);
      const p = problemOf(compact);
      assert.equal(p.status, 400);
      assert.equal(p.code, "malformed-payload");
      assert.deepEqual((p.errors ?? []).map((e) => e.pointer), pointers);
    });
  }

  it("accepts the edges of the subject and idempotencyKey rules", () => {
    const edge = { ...payload, subject: "A-z.0_9:x".padEnd(128, "x"), idempotencyKey: " ~".padEnd(128, "!") };
    assert.ok(parseCommand(signed(edge), { now, path }).ok);
  });

  it("never throws, whatever it is given", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue().map((v) => signed(v)), fc.anything()), (input) => {
        const result = parseCommand(input, { now, path });
        if (!result.ok) assert.equal(result.error.status, 400);
      }),
      { numRuns: 300 },
    );
  });
});
