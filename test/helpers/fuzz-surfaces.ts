/**
 * @module Sending arbitrary JSON to every surface of running nodes (issue 16): as a signed command's
 * arguments, as a raw command body, as query parameters, as GraphQL variables and mutations, as an
 * install, and arbitrary bytes as a gRPC message. Every answer must be a receipt, rows, a GraphQL
 * answer or a problem document, and no worker may restart.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { COMMAND_TYP, type KeyPair } from "../../shared/identity/index.ts";
import { signJws } from "../../shared/identity/jws.ts";
import { grpc } from "./grpc-client.ts";

/** JSON text of every awkward kind: deep, wide, huge strings, odd numbers, unicode. */
export const jsonText: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? "null"),
  fc.integer({ min: 20, max: 6_000 }).map((d) => `${"[".repeat(d)}${"]".repeat(d)}`),
  fc.integer({ min: 20, max: 3_000 }).map((d) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`),
  fc.constantFrom("1e400", "-1e400", "-0", "1e-400", "123456789012345678901234567890", "9007199254740993", "0.1", '"\\ud800"', '"\\u0000"', '"9223372036854775808"', "true", "null", "{}", "[]"),
  fc.string({ unit: "binary", maxLength: 300 }).map((s) => JSON.stringify(s)),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => JSON.stringify("é".repeat(n))),
  fc.integer({ min: 100, max: 20_000 }).map((n) => `[${Array.from({ length: n }, () => "0").join(",")}]`),
  fc.dictionary(fc.string({ maxLength: 300 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 50 }).map((v) => JSON.stringify(v)),
);

/** One attack: JSON text, where it goes in the arguments, and with which action. */
export const attack = fc.record({
  text: jsonText,
  field: fc.constantFrom("customer", "units", "credit_terms", "junk", "label"),
  action: fc.constantFrom("Request", "Start", "Pay"),
  bytes: fc.uint8Array({ maxLength: 512 }),
});
export type Attack = typeof attack extends fc.Arbitrary<infer T> ? T : never;

/** A command for `action` whose argument `field` is `text`, signed as text (JSON.stringify could not build some of them). */
function commandWith(who: KeyPair, a: Attack): string {
  const namespace = a.action === "Start" ? "acme.counter" : "acme.shipping";
  const base = a.action === "Request" ? '"customer":"Ada","destination":"Oslo","units":1,"crates":1,"credit_terms":false' : a.action === "Start" ? '"label":"x"' : "";
  const args = `{${base}${base === "" ? "" : ","}${JSON.stringify(a.field)}:${a.text}}`;
  const payload = `{"tenant":"acme","namespace":"${namespace}","action":"${a.action}","subject":"fz-${randomUUID().slice(0, 8)}","args":${args},"idempotencyKey":"${randomUUID()}","issuedAt":"${new Date().toISOString()}"}`;
  return signJws({ kid: who.did, typ: COMMAND_TYP }, payload, who.secretKey);
}

interface Reply {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

async function send(url: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }): Promise<Reply> {
  const r = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(30_000) });
  return { status: r.status, type: r.headers.get("content-type") ?? "", body: await r.text() };
}

/** A problem document, or (for `ok` statuses) whatever `okShape` accepts. */
function assertAnswer(what: string, r: Reply, ok: (body: any) => boolean): void {
  let parsed: any;
  try {
    parsed = JSON.parse(r.body);
  } catch {
    assert.fail(`${what}: ${r.status} answered with a body that is not JSON: ${r.body.slice(0, 200)}`);
  }
  if (r.type.startsWith("application/problem+json")) {
    assert.equal(parsed.status, r.status, `${what}: the problem's status is the answer's`);
    assert.equal(typeof parsed.type, "string", what);
    assert.equal(typeof parsed.title, "string", what);
    assert.ok(r.status >= 400 && r.status !== 500, `${what}: ${r.status} ${r.body.slice(0, 300)}`);
    return;
  }
  assert.ok(ok(parsed), `${what}: ${r.status} ${r.body.slice(0, 300)}`);
}

const isReceipt = (b: any) => typeof b?.jws === "string" && (b.receipt?.outcome === "accepted" || b.receipt?.outcome === "refused");
const isGraphql = (b: any) => b !== null && typeof b === "object" && ("data" in b || Array.isArray(b.errors));

/** Sends one attack to every surface of the node at `url` (as `who`, a member of tenant acme). */
export async function attackNode(url: string, grpcAddress: string | null, who: KeyPair, a: Attack): Promise<void> {
  const command = commandWith(who, a);
  const ns = a.action === "Start" ? "acme.counter" : "acme.shipping";
  assertAnswer("command", await send(`${url}/v1/acme/${ns}/actions/${a.action}`, JSON.stringify({ command })), isReceipt);
  assertAnswer("raw command body", await send(`${url}/v1/acme/${ns}/actions/${a.action}`, `{"command":${a.text}}`), isReceipt);
  assertAnswer("query params", await send(`${url}/v1/acme/acme.shipping/queries/ByStatus`, `{"params":{"status":${a.text}}}`), (b) => Array.isArray(b?.rows) || Array.isArray(b));
  assertAnswer("GraphQL variables", await send(`${url}/v1/acme/${ns}/graphql`, `{"query":"query Q($v: String) { _contract { namespace } }","variables":{"v":${a.text}}}`), isGraphql);
  assertAnswer("GraphQL mutation", await send(`${url}/v1/acme/${ns}/graphql`, JSON.stringify({ query: `mutation M($c: String!) { ${a.action}(command: $c) { jws } }`, variables: { c: command } })), isGraphql);
  assertAnswer("install", await send(`${url}/v1/acme/_install`, `{"install":${a.text}}`), () => false);
  if (grpcAddress !== null) await rawGrpc(grpcAddress, `/charter.acme.shipping.ShippingService/${a.action === "Start" ? "Request" : a.action}`, Buffer.from(a.bytes));
}

/** Sends `bytes` as the message of a unary gRPC call; any status is an answer, a hang is not. */
async function rawGrpc(address: string, method: string, bytes: Buffer): Promise<void> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  try {
    await new Promise<void>((resolve) => {
      const metadata = new grpc.Metadata();
      metadata.set("charter-tenant", "acme");
      client.makeUnaryRequest(
        method,
        (b: Buffer) => b,
        (b: Buffer) => b,
        bytes,
        metadata,
        { deadline: Date.now() + 20_000 },
        (error) => {
          assert.ok(error === null || error.code !== grpc.status.DEADLINE_EXCEEDED, `gRPC ${method} did not answer`);
          resolve();
        },
      );
    });
  } finally {
    client.close();
  }
}
