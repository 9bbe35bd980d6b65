import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Type } from "../../../../contracts/ast.ts";
import { objectSchema, recordSchema, SUBJECT_PATTERN, typeSchema } from "./tool-schema.ts";

describe("a contract type as JSON Schema", () => {
  it("Text(len=n) is a string of at most n characters", () => {
    assert.deepEqual(typeSchema({ kind: "Text", len: 200 }), { type: "string", maxLength: 200 });
  });

  it("Int is an integer within the range a JSON number carries exactly", () => {
    assert.deepEqual(typeSchema({ kind: "Int" }), { type: "integer", minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER });
  });

  it("Float is a number, Bool a boolean", () => {
    assert.deepEqual(typeSchema({ kind: "Float" }), { type: "number" });
    assert.deepEqual(typeSchema({ kind: "Bool" }), { type: "boolean" });
  });

  it("Date is a string in date format", () => {
    const schema = typeSchema({ kind: "Date" });
    assert.equal(schema.type, "string");
    assert.equal(schema.format, "date");
  });

  it("Identity is a did:key string no longer than the engine stores", () => {
    const schema = typeSchema({ kind: "Identity" });
    assert.equal(schema.type, "string");
    assert.equal(schema.maxLength, 128);
    assert.match("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", new RegExp(schema.pattern as string));
    assert.doesNotMatch("alice", new RegExp(schema.pattern as string));
  });

  it("an enum is a string of its values, in order", () => {
    assert.deepEqual(typeSchema({ kind: "Enum", values: ["Open", "Done"], name: "TaskStatus" }), { type: "string", enum: ["Open", "Done"] });
  });

  it("Ref<A> is a subject of A", () => {
    const schema = typeSchema({ kind: "Ref", aggregate: "Order" });
    assert.equal(schema.type, "string");
    assert.equal(schema.pattern, SUBJECT_PATTERN);
    assert.equal(schema.maxLength, 128);
    assert.match(String(schema.description), /Order/);
    assert.match("task-01HX.a:b_c", new RegExp(SUBJECT_PATTERN));
    assert.doesNotMatch("has space", new RegExp(SUBJECT_PATTERN));
    assert.doesNotMatch("x".repeat(129), new RegExp(SUBJECT_PATTERN));
  });

  it("List<T>(cap=n) is an array of T's schema with at most n items, nested lists too", () => {
    assert.deepEqual(typeSchema({ kind: "List", element: { kind: "Text", len: 40 }, cap: 20 }), { type: "array", items: { type: "string", maxLength: 40 }, maxItems: 20 });
    const nested: Type = { kind: "List", element: { kind: "List", element: { kind: "Enum", values: ["A"] }, cap: 2 }, cap: 3 };
    assert.deepEqual(typeSchema(nested), { type: "array", items: { type: "array", items: { type: "string", enum: ["A"] }, maxItems: 2 }, maxItems: 3 });
  });

  it("Vector(dim=n) is exactly n numbers", () => {
    assert.deepEqual(typeSchema({ kind: "Vector", dim: 3 }), { type: "array", items: { type: "number" }, minItems: 3, maxItems: 3 });
  });

  it("a record is an object of exactly its fields, all required", () => {
    const schema = recordSchema([
      { name: "title", type: { kind: "Text", len: 10 } },
      { name: "done", type: { kind: "Bool" } },
    ]);
    assert.deepEqual(schema, { type: "object", properties: { title: { type: "string", maxLength: 10 }, done: { type: "boolean" } }, required: ["title", "done"], additionalProperties: false });
  });

  it("an object's optional properties are left out of required, and a name like __proto__ stays a property", () => {
    const schema = objectSchema([
      { name: "__proto__", schema: { type: "integer" } },
      { name: "limit", schema: { type: "integer" }, optional: true },
    ]);
    assert.deepEqual(schema.required, ["__proto__"]);
    assert.deepEqual(Object.keys(schema.properties as object), ["__proto__", "limit"]);
    assert.equal(Object.getPrototypeOf(schema.properties), Object.prototype);
    assert.equal(JSON.parse(JSON.stringify(schema)).properties.__proto__.type, "integer");
  });
});
