/**
 * The gRPC codec on the library example (enums, repeated fields, int64, optional fields): requests
 * become the REST bodies, answers the proto messages a generated client reads, and a message with
 * the wrong wire types is refused by name.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import protobuf from "protobufjs";
import { compileContract } from "../../../contracts/compile.ts";
import { describe as described } from "../../../contracts/describe/names.ts";
import { decodeRequest, encodeResponse, grpcCodec, MessageError } from "./grpc-codec.ts";

const source = readFileSync(new URL("../../../contracts/examples/library.charter.md", import.meta.url), "utf8");
const schema = compileContract(source).artifact?.schema;
if (schema === undefined) throw new Error("library does not compile");
const codec = grpcCodec("art_x", schema, described(schema));
const service = "/charter.acme.library.LibraryService";
const method = (name: string) => {
  const m = codec.methods.get(`${service}/${name}`);
  assert.ok(m !== undefined, name);
  return m;
};

describe("gRPC codec", () => {
  it("has one method per exposed action and query, by path", () => {
    assert.deepEqual([...codec.methods.keys()].map((p) => p.slice(service.length + 1)), ["Add", "Borrow", "Browse", "Return", "Tag", "Untag", "Ancestors", "ByShelf", "Loans", "Search"]);
    assert.equal(method("Borrow").kind, "action");
    assert.deepEqual([method("Loans").kind, method("Loans").operation], ["query", "Loans"]);
  });

  it("decodes a request as its REST body: proto3 defaults for absent fields", () => {
    const loans = method("Loans");
    const bytes = loans.request.encode(loans.request.fromObject({ params: { borrower: "did:key:z6Mk", skip: "9007199254740993" } })).finish();
    assert.deepEqual(decodeRequest(loans.request, bytes), { params: { borrower: "did:key:z6Mk", skip: "9007199254740993" } });
    assert.deepEqual(decodeRequest(loans.request, new Uint8Array()), { params: { borrower: "", skip: "0" } });
    const borrow = method("Borrow");
    assert.deepEqual(decodeRequest(borrow.request, new Uint8Array()), { command: "" });
  });

  it("encodes an answer with enum constants, int64 beyond 2^53, lists, and nulls left out", () => {
    const borrow = method("Borrow");
    const state = { title: "Dune", pages: 412, shelf: null, condition: "Good", tags: ["sf", "classic"], published_on: "1965-08-01", due_on: "", borrower: null, on_loan: false, times_lent: "9007199254740993" };
    const receipt = { id: "rcpt_1", seq: 7, outcome: "refused", reason: { code: "condition_failed", condition: "x", line: 3, message: "no" }, state, committedAt: "2026-01-01T00:00:00Z" };
    const bytes = encodeResponse(borrow.response, { receipt, jws: "j", replayed: true });
    const back = borrow.response.toObject(borrow.response.decode(bytes), { longs: String, enums: String }) as any;
    assert.equal(back.receipt.outcome, "Outcome_refused");
    assert.equal(back.receipt.committed_at, "2026-01-01T00:00:00Z", "a fixed snake_case field from its camelCase REST member");
    assert.equal(back.receipt.state.condition, "Condition_Good");
    assert.deepEqual(back.receipt.state.tags, ["sf", "classic"]);
    assert.equal(back.receipt.state.times_lent, "9007199254740993");
    assert.equal(back.receipt.state.pages, "412");
    assert.equal("shelf" in back.receipt.state, false);
    assert.deepEqual([back.receipt.reason.line, back.replayed], [3, true]);
  });

  it("refuses a field sent with the wrong wire type, naming it", () => {
    const search = method("Search");
    const varintWords = protobuf.Writer.create().uint32((1 << 3) | 2).fork().uint32((1 << 3) | 0).uint32(5).ldelim().finish();
    assert.throws(() => decodeRequest(search.request, varintWords), (e: Error) => e instanceof MessageError && /field params\.words is string, but the message carries a varint value/.test(e.message));
    assert.throws(() => decodeRequest(search.request, Uint8Array.from([0x0a, 0x05, 0x01])), MessageError);
  });
});
