/**
 * Issue 6, against a running tree: `openapi.json` is served as `describe` writes it and drives a
 * typed client (openapi-typescript + openapi-fetch); the shipping scenario through GraphQL and
 * through gRPC (a grpc-js client generated from the api.proto `charter describe` writes) gives the
 * receipts, refusals and rows REST gives; bad GraphQL and gRPC input is answered in that surface's
 * error form and changes nothing; an upgrade changes all three surfaces without a restart.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, test } from "node:test";
import protobuf from "protobufjs";
import { Validator } from "@seriousme/openapi-schema-validator";
import createClient from "openapi-fetch";
import { compileContract } from "../contracts/compile.ts";
import { type KeyPair, newInstallId, signBearer, signInstall } from "../shared/identity/index.ts";
import { type Charter, cleanup, startCharter, stopCharter, tempDataDir } from "./helpers/charter-process.ts";
import { act, post, signed } from "./helpers/client.ts";
import { describeProto, grpc, grpcAddress, removeDir, restReceipt, type ServiceClient, serviceClient } from "./helpers/grpc-client.ts";
import { example, seed } from "./helpers/seed.ts";
import { generateTypes, openapiFile, typesFile } from "./typed-client/generate.ts";
import type { paths } from "./typed-client/shipping-api.ts";

const NS = "acme.shipping";
const shipping = example("shipping.charter.md");
let c: Charter;
let ada: KeyPair;
let bob: KeyPair;
let owner: KeyPair;
let db: DatabaseSync;
let proto: { dir: string; proto: string };
let rpc: ServiceClient;
const historyCount = () => (db.prepare("SELECT count(*) AS n FROM history").get() as { n: number }).n;
const bearer = (who: KeyPair) => `Bearer ${signBearer(who, { tenant: "acme", namespace: NS, now: Date.now() })}`;

before(async () => {
  const dataDir = tempDataDir();
  const s = await seed(dataDir, { contracts: [shipping, example("counter.charter.md")] });
  [ada, bob] = s.members as [KeyPair, KeyPair];
  owner = s.owner;
  c = await startCharter({ dataDir });
  db = new DatabaseSync(join(dataDir, "charter.db"), { readOnly: true });
  proto = describeProto(shipping);
  rpc = serviceClient(proto.proto, `charter.${NS}.ShippingService`, (await grpcAddress(c.url)) as string);
});
after(async () => {
  rpc.close();
  removeDir(proto.dir);
  db.close();
  await stopCharter(c);
  cleanup(c.dataDir);
});

async function gql(query: string, options: { variables?: Record<string, unknown>; authorization?: string; ns?: string } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  const r = await fetch(`${c.url}/v1/acme/${options.ns ?? NS}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables: options.variables }) });
  return { status: r.status, body: await r.json() };
}

const RECEIPT = "receipt { action outcome reason { code condition line } state { status customer destination units crates crates_checked paid credit_terms requested_by confirmed_by } } replayed";
const mutate = async (who: KeyPair, action: string, subject: string, args: Record<string, unknown> = {}) => {
  const r = await gql(`mutation($c: String!) { ${action}(command: $c) { ${RECEIPT} } }`, { variables: { c: signed(who, { namespace: NS, action, subject, args }) } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data?.[action].receipt;
};
/** A command through gRPC: its receipt in REST's shape. */
const SHAPE = { ints: ["units", "crates", "crates_checked"], enums: ["OrderStatus"], optional: ["requested_by", "confirmed_by"] };
const viaGrpc = async (who: KeyPair, action: string, subject: string, args: Record<string, unknown> = {}) => {
  const r = await rpc.call(action, { command: signed(who, { namespace: NS, action, subject, args }) });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  return { ...r.value, receipt: restReceipt(r.value.receipt, SHAPE) };
};
/** A query's rows through gRPC, in REST's shape. */
const rowsViaGrpc = (rows: any[]) => rows.map((row) => restReceipt({ state: row }, SHAPE).state);
/** What REST, GraphQL and gRPC must agree on: everything but the command's own digest, position and time. */
const comparable = (r: any) => ({ action: r.action, outcome: r.outcome, reason: r.reason === null ? null : { code: r.reason.code, condition: r.reason.condition, line: r.reason.line }, state: r.state });

describe("OpenAPI", () => {
  test("openapi.json is served exactly as charter describe writes it, and validates", async () => {
    const r = await fetch(`${c.url}/v1/acme/${NS}/openapi.json`);
    assert.equal(r.status, 200);
    const text = await r.text();
    assert.equal(text, readFileSync(openapiFile, "utf8"));
    const result = await new Validator().validate(JSON.parse(text));
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  test("an unknown namespace is a 404 problem", async () => {
    const r = await fetch(`${c.url}/v1/acme/acme.nothing/openapi.json`);
    assert.equal(r.status, 404);
    assert.equal(r.headers.get("content-type"), "application/problem+json");
  });

  test("a client typed by openapi-typescript calls the node through openapi-fetch", async () => {
    assert.equal(readFileSync(typesFile, "utf8"), await generateTypes(readFileSync(openapiFile, "utf8")), "shipping-api.ts is current (node test/typed-client/generate.ts)");
    const client = createClient<paths>({ baseUrl: c.url });
    const tenant = { path: { tenant: "acme" } };
    const args = { customer: "Typed Ltd", destination: "Bergen", units: 3, crates: 1, credit_terms: true };
    const made = await client.POST(`/v1/{tenant}/${NS}/actions/Request`, { params: tenant, body: { command: signed(ada, { namespace: NS, action: "Request", subject: "typed-1", args }) } });
    assert.equal(made.response.status, 200);
    assert.equal(made.data?.receipt.outcome, "accepted");
    assert.equal(made.data?.receipt.state?.customer, "Typed Ltd");

    const rows = await client.POST(`/v1/{tenant}/${NS}/queries/ByStatus`, { params: tenant, body: { params: { status: "Requested" } }, headers: { authorization: bearer(ada) } });
    assert.equal(rows.response.status, 200, JSON.stringify(rows.error));
    assert.deepEqual(rows.data?.rows.filter((row) => row.key === "typed-1").map((row) => [row.customer, row.units, row.credit_terms]), [["Typed Ltd", 3, true]]);

    const bad = await client.POST(`/v1/{tenant}/${NS}/queries/ByStatus`, { params: tenant, body: { params: { status: "Lost" as "New" } }, headers: { authorization: bearer(ada) } });
    assert.equal(bad.response.status, 400);
    assert.match(bad.error?.detail ?? "", /parameters/);
  });
});

describe("GraphQL and gRPC agree with REST", () => {
  test("the shipping scenario gives the same receipts, refusals and rows", async () => {
    const request = { customer: "Same Ltd", destination: "Oslo", units: 4, crates: 2, credit_terms: false };
    const steps: [KeyPair, string, Record<string, unknown>][] = [
      [owner, "Ship", {}], [ada, "Request", request], [ada, "CheckCrate", {}], [ada, "Confirm", {}], [ada, "CheckCrate", {}],
      [ada, "CheckCrate", {}], [bob, "Confirm", {}], [owner, "Ship", {}], [bob, "Pay", {}], [owner, "Ship", {}], [ada, "Pay", {}],
    ];
    for (const [who, action, args] of steps) {
      const rest = await act(c.url, who, { namespace: NS, action, subject: "same-rest", args });
      const viaGraphql = await mutate(who, action, "same-gql", args);
      assert.deepEqual(comparable(viaGraphql), comparable(rest.body.receipt), `${action} agrees`);
      const grpcAnswer = await viaGrpc(who, action, "same-grpc", args);
      assert.deepEqual(comparable(grpcAnswer.receipt), comparable(rest.body.receipt), `${action} agrees over gRPC`);
      assert.equal(grpcAnswer.replayed, false);
    }
    const shipped = await gql(`{ ByStatus(status: Shipped) { rows { key status units crates_checked paid requested_by confirmed_by } artifact } }`, { authorization: bearer(bob) });
    const rest = await post(`${c.url}/v1/acme/${NS}/queries/ByStatus`, JSON.stringify({ params: { status: "Shipped" } }));
    assert.equal(rest.status, 401, "REST asks for the bearer token as GraphQL does");
    const restRows = await fetch(`${c.url}/v1/acme/${NS}/queries/ByStatus`, { method: "POST", headers: { "content-type": "application/json", authorization: bearer(bob) }, body: JSON.stringify({ params: { status: "Shipped" } }) });
    const fromRest = (await restRows.json()) as { rows: Record<string, unknown>[]; artifact: string };
    const pick = (row: Record<string, unknown>) => ({ key: row.key, status: row.status, units: row.units, crates_checked: row.crates_checked, paid: row.paid, requested_by: row.requested_by, confirmed_by: row.confirmed_by });
    assert.deepEqual(shipped.body.data.ByStatus.rows, fromRest.rows.map(pick));
    assert.deepEqual(shipped.body.data.ByStatus.rows.map((r: { key: string }) => r.key), ["same-gql", "same-grpc", "same-rest"]);
    assert.equal(shipped.body.data.ByStatus.artifact, fromRest.artifact);

    const viaRpc = await rpc.call("ByStatus", { params: { status: "OrderStatus_Shipped" } }, { authorization: bearer(bob) });
    assert.ok(viaRpc.ok, viaRpc.ok ? "" : viaRpc.error.message);
    assert.deepEqual(rowsViaGrpc(viaRpc.value.rows), fromRest.rows);
    assert.equal(viaRpc.value.artifact, fromRest.artifact);
    const anonymous = await rpc.call("ByStatus", { params: { status: "OrderStatus_Shipped" } });
    assert.equal(anonymous.ok ? 0 : anonymous.error.code, grpc.status.UNAUTHENTICATED, "gRPC asks for the bearer token as REST does");
  });

  test("the same command again is the original receipt, replayed", async () => {
    const command = signed(ada, { namespace: NS, action: "Request", subject: "replay-1", args: { customer: "R", destination: "X", units: 1, crates: 1, credit_terms: false } });
    const query = `mutation($c: String!) { Request(command: $c) { receipt { id seq } jws replayed } }`;
    const first = await gql(query, { variables: { c: command } });
    const again = await gql(query, { variables: { c: command } });
    assert.equal(first.body.data.Request.replayed, false);
    assert.equal(again.body.data.Request.replayed, true);
    assert.deepEqual(again.body.data.Request.receipt, first.body.data.Request.receipt);
    const viaRpc = await rpc.call("Request", { command });
    assert.ok(viaRpc.ok && viaRpc.value.replayed, "the same command over gRPC is the same receipt, replayed");
    assert.deepEqual([viaRpc.value.receipt.id, Number(viaRpc.value.receipt.seq)], [first.body.data.Request.receipt.id, first.body.data.Request.receipt.seq]);
  });
});

describe("GraphQL bad input changes nothing", () => {
  const refusedWith = async (r: Promise<{ status: number; body: any }>, status: number, message: RegExp, code?: string) => {
    const before = historyCount();
    const { status: got, body } = await r;
    assert.equal(got, status, JSON.stringify(body));
    assert.ok(Array.isArray(body.errors) && body.errors.length > 0, "a GraphQL errors list");
    assert.match(body.errors[0].message, message);
    if (code !== undefined) assert.equal(body.errors[0].extensions?.code, code);
    assert.equal(historyCount(), before, "nothing recorded");
    return body;
  };

  test("wrong types, missing fields and unknown operations are validation errors", async () => {
    await refusedWith(gql(`{ ByStatus(status: Lost) { rows { key } } }`, { authorization: bearer(ada) }), 400, /Lost/, "GRAPHQL_VALIDATION_FAILED");
    await refusedWith(gql(`{ Find(text: 7) { rows { key } } }`, { authorization: bearer(ada) }), 400, /String/, "GRAPHQL_VALIDATION_FAILED");
    await refusedWith(gql(`{ ByStatus { rows { key } } }`), 400, /ByStatus\(status:\)" of type "OrderStatus!" is required/, "GRAPHQL_VALIDATION_FAILED");
    await refusedWith(gql(`{ Nope { rows { key } } }`), 400, /Cannot query field "Nope"/, "GRAPHQL_VALIDATION_FAILED");
    await refusedWith(gql(`mutation { Request { receipt { id } } }`), 400, /Request\(command:\)" of type "String!" is required/);
    await refusedWith(gql(`{ ByStatus(status: New) { rows { key } `), 400, /Syntax Error/, "GRAPHQL_PARSE_FAILED");
  });

  test("a bad command or missing token is a field error with the problem's status", async () => {
    const junk = await refusedWith(gql(`mutation { Request(command: "not-a-jws") { receipt { id } } }`), 200, /./);
    assert.equal(junk.errors[0].extensions.status, 400);
    assert.equal(junk.data, null);
    const wrongArgs = await refusedWith(gql(`mutation($c: String!) { Request(command: $c) { receipt { id } } }`, { variables: { c: signed(ada, { namespace: NS, action: "Request", subject: "bad-1", args: { customer: "A", destination: "B", units: "four", crates: 1, credit_terms: false } }) } }), 200, /units|argument/i);
    assert.equal(wrongArgs.errors[0].extensions.status, 400);
    const anonymous = await refusedWith(gql(`{ ByStatus(status: New) { rows { key } } }`), 200, /Bearer/);
    assert.equal(anonymous.errors[0].extensions.status, 401);
  });

  test("a query nested 100 deep, or too costly, is refused before it runs", async () => {
    const deep = `{ __schema { types { ${"fields { type { ".repeat(50)}name${" } }".repeat(50)} } } }`;
    await refusedWith(gql(deep), 400, /nested more than 15 levels/, "QUERY_TOO_DEEP");
    const many = Array.from({ length: 60 }, (_, i) => `q${i}: ByStatus(status: New) { rows { key } }`).join(" ");
    await refusedWith(gql(`{ ${many} }`, { authorization: bearer(ada) }), 400, /costs \d+, more than the limit of 5000/, "QUERY_TOO_COSTLY");
  });

  test("malformed requests, unknown namespaces, GET and oversized bodies", async () => {
    const notJson = await fetch(`${c.url}/v1/acme/${NS}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: "{query" });
    assert.equal(notJson.status, 400);
    assert.match(((await notJson.json()) as { errors: { message: string }[] }).errors[0]?.message ?? "", /not valid JSON/);
    await refusedWith(gql(`{ _contract { namespace } }`, { ns: "acme.nothing" }), 404, /no such tenant, namespace, query or action for this caller/);
    const get = await fetch(`${c.url}/v1/acme/${NS}/graphql`);
    assert.equal(get.status, 405);
    const big = await fetch(`${c.url}/v1/acme/${NS}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: `{ _contract { namespace } } # ${"x".repeat(2 * 1024 * 1024)}` }) });
    assert.equal(big.status, 413);
    assert.match(((await big.json()) as { errors: { message: string }[] }).errors[0]?.message ?? "", /over the limit of 1048576 bytes/);
  });
});

describe("gRPC", () => {
  test("the api.proto charter describe writes is the golden one, parses with protobufjs, and is what the node serves", async () => {
    assert.equal(readFileSync(proto.proto, "utf8"), readFileSync(new URL("./golden/describe/shipping.api.proto", import.meta.url), "utf8"));
    const parsed = protobuf.parse(readFileSync(proto.proto, "utf8"), { keepCase: true });
    assert.deepEqual(Object.keys(parsed.root.lookupService(`charter.${NS}.ShippingService`).methods), ["CheckCrate", "Confirm", "Pay", "Request", "Ship", "ByStatus", "Find"]);
    const address = await grpcAddress(c.url);
    assert.match(c.stdout, new RegExp(`gRPC listening on ${address?.replaceAll(".", "\\.")}\n`), "the address is printed and in /.well-known/charter.json");
    const found = await rpc.call("Find", { params: { text: "Same" } }, { authorization: bearer(ada) });
    assert.ok(found.ok, found.ok ? "" : found.error.message);
  });

  /** Calls `path` with raw bytes (what no generated client would send). */
  const raw = (path: string, bytes: Uint8Array, tenant = "acme") =>
    new Promise<grpc.ServiceError | null>((resolve) => {
      const metadata = new grpc.Metadata();
      metadata.set("charter-tenant", tenant);
      rpc.client.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, Buffer.from(bytes), metadata, (error) => resolve(error));
    });
  const refusedWith = async (call: Promise<{ ok: boolean; error?: grpc.ServiceError } | grpc.ServiceError | null>, code: grpc.status, message: RegExp) => {
    const before = historyCount();
    const answer = await call;
    const error = answer === null ? null : "ok" in answer ? (answer.error ?? null) : answer;
    assert.ok(error !== null, "an error status");
    assert.equal(error.code, code, `${grpc.status[error.code]}: ${error.details}`);
    assert.match(error.details, message);
    assert.equal(historyCount(), before, "nothing recorded");
    return error;
  };
  const service = `/charter.${NS}.ShippingService`;

  test("wrong types, missing fields and unknown methods are INVALID_ARGUMENT or UNIMPLEMENTED", async () => {
    // ByStatusRequest{params{status: "Shipped"}}: a string where the proto has an enum.
    const stringStatus = protobuf.Writer.create().uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).string("Shipped").ldelim().finish();
    await refusedWith(raw(`${service}/ByStatus`, stringStatus), grpc.status.INVALID_ARGUMENT, /field params\.status is OrderStatus, but the message carries a length-delimited value/);
    await refusedWith(raw(`${service}/Request`, Uint8Array.from([0x08, 0x01])), grpc.status.INVALID_ARGUMENT, /field command is string, but the message carries a varint value/);
    await refusedWith(raw(`${service}/Request`, Uint8Array.from([0x0a, 0x7f, 0x01])), grpc.status.INVALID_ARGUMENT, /not a valid CommandBody message/);
    await refusedWith(rpc.call("ByStatus", { params: {} }, { authorization: bearer(ada) }), grpc.status.INVALID_ARGUMENT, /#\/params\/status is required/);
    await refusedWith(rpc.call("Request", {}), grpc.status.INVALID_ARGUMENT, /command is missing/);
    await refusedWith(raw(`${service}/Nope`, new Uint8Array()), grpc.status.UNIMPLEMENTED, /Nope/);
    await refusedWith(raw(`/charter.acme.nothing.NothingService/Nope`, new Uint8Array()), grpc.status.UNIMPLEMENTED, /NothingService/);
  });

  test("bad commands, tenants and tokens get the REST problem's status and message", async () => {
    await refusedWith(rpc.call("Request", { command: "not-a-jws" }), grpc.status.INVALID_ARGUMENT, /./);
    const units = signed(ada, { namespace: NS, action: "Request", subject: "bad-grpc", args: { customer: "A", destination: "B", units: "four", crates: 1, credit_terms: false } });
    const wrongArgs = await refusedWith(rpc.call("Request", { command: units }), grpc.status.INVALID_ARGUMENT, /units|argument/i);
    assert.equal(wrongArgs.metadata.get("charter-http-status")[0], "400");
    assert.equal(JSON.parse(String(wrongArgs.metadata.get("charter-problem-bin")[0])).status, 400, "the whole problem document travels in the trailers");
    const elsewhere = signed(ada, { namespace: NS, action: "Ship", subject: "bad-grpc", args: {} });
    await refusedWith(rpc.call("Request", { command: elsewhere }), grpc.status.INVALID_ARGUMENT, /Ship|action|path/i);
    await refusedWith(rpc.call("Request", { command: signed(ada, { namespace: NS, action: "Request", subject: "x", args: {} }) }, { tenant: null }), grpc.status.INVALID_ARGUMENT, /charter-tenant/);
    await refusedWith(rpc.call("Request", { command: signed(ada, { namespace: NS, action: "Request", subject: "x", args: {} }) }, { tenant: "nobody" }), grpc.status.NOT_FOUND, /no such tenant, namespace, query or action for this caller/);
    await refusedWith(rpc.call("ByStatus", { params: { status: "OrderStatus_New" } }, { authorization: "Bearer nonsense" }), grpc.status.UNAUTHENTICATED, /./);
  });

  test("an oversized message is RESOURCE_EXHAUSTED", async () => {
    await refusedWith(rpc.call("Request", { command: "x".repeat(2 * 1024 * 1024) }), grpc.status.RESOURCE_EXHAUSTED, /larger than max/);
  });
});

test("installing an upgrade changes openapi.json and the GraphQL schema without a restart", async () => {
  const v1 = compileContract(shipping).artifact?.id as string;
  const v2 = shipping
    .replace("version 1.0.0", `version 1.1.0\nupgrades ${v1}`)
    .replace("query Find(", "query Paid() returns List<Order> api public pipe\n  Order\n  | where paid == true\n\nquery Find(");
  const installed = await post(`${c.url}/v1/acme/_install`, JSON.stringify({ install: signInstall(owner, { tenant: "acme", source: v2, issuedAt: new Date().toISOString(), id: newInstallId() }) }));
  assert.equal(installed.status, 200, JSON.stringify(installed.body));
  const doc = (await (await fetch(`${c.url}/v1/acme/${NS}/openapi.json`)).json()) as { info: { version: string }; paths: Record<string, unknown> };
  assert.equal(doc.info.version, "1.1.0");
  assert.ok(`/v1/{tenant}/${NS}/queries/Paid` in doc.paths);
  const paid = await gql(`{ _contract { version artifact } Paid { rows { key paid } } }`);
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  assert.equal(paid.body.data._contract.version, "1.1.0");
  assert.equal(paid.body.data._contract.artifact, installed.body.artifact);
  assert.ok(paid.body.data.Paid.rows.every((r: { paid: boolean }) => r.paid));

  const v2proto = describeProto(v2);
  const upgraded = serviceClient(v2proto.proto, `charter.${NS}.ShippingService`, (await grpcAddress(c.url)) as string);
  try {
    const rows = await upgraded.call("Paid", { params: {} });
    assert.ok(rows.ok, rows.ok ? "" : rows.error.message);
    assert.equal(rows.value.artifact, installed.body.artifact, "the new method is served at once");
    assert.deepEqual(rows.value.rows.map((r: { key: string }) => r.key), paid.body.data.Paid.rows.map((r: { key: string }) => r.key));
  } finally {
    upgraded.close();
    removeDir(v2proto.dir);
  }
});
