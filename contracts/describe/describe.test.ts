/**
 * Issue 6: every example contract's descriptions pass their standard validators — OpenAPI 3.1
 * (@seriousme/openapi-schema-validator), graphql's own schema validation, protobufjs — agree on
 * what is exposed, and are byte-identical for the same schema however its keys are ordered.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { buildSchema, isEnumType, validateSchema } from "graphql";
import protobuf from "protobufjs";
import { compileContract } from "../compile.ts";
import type { Schema } from "../schema.ts";
import { describeSchema } from "./index.ts";
import { describe as described } from "./names.ts";
import { rpcName } from "./proto.ts";

const dir = new URL("../examples/", import.meta.url);
const examples = readdirSync(dir).filter((f) => f.endsWith(".charter.md")).sort();

function schemaOf(file: string): Schema {
  const result = compileContract(readFileSync(new URL(file, dir), "utf8"));
  assert.ok(result.artifact !== undefined, `${file} compiles`);
  return JSON.parse(new TextDecoder().decode(result.artifact.schemaBytes)) as Schema;
}

/** The same value with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.keys(value).reverse().map((k) => [k, reversed((value as Record<string, unknown>)[k])]));
}

for (const file of examples) {
  describe(`describe ${file}`, () => {
    const schema = schemaOf(file);
    const files = describeSchema(schema);
    const d = described(schema);

    it("writes a valid OpenAPI 3.1 document with a path per exposed action and query", async () => {
      const doc = JSON.parse(files["openapi.json"]) as { openapi: string; paths: Record<string, unknown> };
      const result = await new Validator().validate(doc);
      assert.deepEqual(result.errors ?? [], [], "validator errors");
      assert.equal(result.valid, true);
      assert.equal(doc.openapi, "3.1.0");
      const expected = [...d.actions.map((a) => `/v1/{tenant}/${schema.namespace}/actions/${a.name}`), ...d.queries.map((q) => `/v1/{tenant}/${schema.namespace}/queries/${q.name}`)];
      assert.deepEqual(Object.keys(doc.paths), expected);
      for (const [key, a] of Object.entries(schema.actions)) {
        if (a.exposure === "internal") assert.ok(!(`/v1/{tenant}/${schema.namespace}/actions/${a.name}` in doc.paths), `internal ${key} is not described`);
      }
    });

    it("writes a GraphQL schema that graphql validates, with a field per exposed query and action", () => {
      const gql = buildSchema(files["schema.graphql"]);
      assert.deepEqual(validateSchema(gql), []);
      assert.deepEqual(Object.keys(gql.getQueryType()?.getFields() ?? {}), ["_contract", ...d.queries.map((q) => q.name)]);
      assert.deepEqual(Object.keys(gql.getMutationType()?.getFields() ?? {}), d.actions.map((a) => a.name));
      for (const [name, values] of d.enums) {
        const type = gql.getType(name);
        assert.ok(isEnumType(type), `${name} is a GraphQL enum`);
        assert.deepEqual(type.getValues().map((v) => v.name), [...values]);
      }
    });

    it("writes a proto3 file protobufjs parses, with one unary method per exposed operation", () => {
      const parsed = protobuf.parse(files["api.proto"], { keepCase: true });
      assert.equal(parsed.package, `charter.${schema.namespace}`);
      const service = parsed.root.lookupService(`charter.${schema.namespace}.${d.service}`);
      assert.deepEqual(Object.keys(service.methods), [...d.actions.map((a) => a.name), ...d.queries.map((q) => rpcName(d, q.name))]);
      for (const m of Object.values(service.methods)) assert.ok(!m.requestStream && !m.responseStream, `${m.name} is unary`);
      parsed.root.resolveAll();
    });

    it("gives byte-identical files for the same schema, whatever the order of its keys", () => {
      assert.deepEqual(describeSchema(reversed(schema) as Schema), files);
      assert.deepEqual(describeSchema(schemaOf(file)), files);
    });
  });
}

describe("describe types", () => {
  it("describes Int as a number within ±(2^53−1) or a decimal string, Text with maxLength, enums by name", () => {
    const doc = JSON.parse(describeSchema(schemaOf("shipping.charter.md"))["openapi.json"]) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    const args = doc.components.schemas.RequestArgs as { properties: Record<string, unknown>; additionalProperties: boolean; required: string[] };
    assert.deepEqual(args.properties.customer, { type: "string", maxLength: 200 });
    assert.deepEqual(args.properties.units, { $ref: "#/components/schemas/Int64" });
    assert.equal(args.additionalProperties, false);
    assert.deepEqual(args.required, ["customer", "destination", "units", "crates", "credit_terms"]);
    assert.deepEqual(doc.components.schemas.OrderStatus, { type: "string", enum: ["New", "Requested", "Confirmed", "Shipped"] });
    assert.deepEqual(doc.components.schemas.ByStatusParams?.properties.status, { $ref: "#/components/schemas/OrderStatus" });
  });

  it("uses a declared enum's own name, and Vector and List as bounded lists", () => {
    const library = described(schemaOf("library.charter.md"));
    assert.ok(library.enums.has("Condition"));
    const sdl = describeSchema(schemaOf("recommendations.charter.md"))["schema.graphql"];
    assert.match(sdl, /embedding: \[Float!\]\n/);
    const proto = describeSchema(schemaOf("library.charter.md"))["api.proto"];
    assert.match(proto, /repeated string tags = \d+; \/\/ at most 8 elements/);
  });
});
