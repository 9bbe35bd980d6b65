/**
 * @module A contract parameter's type as JSON Schema, for the assistant's model: the bounds the
 * engine enforces (`contracts/runtime/codecs.ts`) written where the model can see them, so its
 * first try is usually a valid call. The engine still checks every value itself: this schema is
 * advice to the model, never the check. Types come from installed contracts, not from callers, and
 * a type nests only as deep as the contract wrote it, so the recursion into list elements is bounded.
 */
import type { Type } from "../../../../contracts/ast.ts";
import { IDENTITY_BYTES } from "../../../../contracts/layout.ts";

/** A JSON Schema document (draft 2020-12 vocabulary, the subset model providers accept). */
export type JsonSchema = Record<string, unknown>;

/**
 * The largest integer a JSON number carries exactly. The language's `Int` is 64-bit, and the
 * engine takes values beyond this only as decimal strings; a model writes numbers, so its range is
 * the safe one.
 */
const SAFE_INT = Number.MAX_SAFE_INTEGER;

/** The longest subject (reference §3). */
export const SUBJECT_MAX = 128;

/** What a subject (and so a `Ref`) is: 1–128 characters of `[A-Za-z0-9._:-]`, as the engine checks it. */
export const SUBJECT_PATTERN = `^[A-Za-z0-9._:-]{1,${SUBJECT_MAX}}$`;

/** The JSON Schema of a value of type `type`. */
export function typeSchema(type: Type): JsonSchema {
  switch (type.kind) {
    case "Text":
      return { type: "string", maxLength: type.len };
    case "Int":
      return { type: "integer", minimum: -SAFE_INT, maximum: SAFE_INT };
    case "Float":
      return { type: "number" };
    case "Bool":
      return { type: "boolean" };
    case "Date":
      return { type: "string", format: "date", description: "a calendar date, YYYY-MM-DD" };
    case "Identity":
      return { type: "string", pattern: "^did:key:", maxLength: IDENTITY_BYTES, description: "a did:key identity" };
    case "Enum":
      return { type: "string", enum: [...type.values] };
    case "Ref":
      return { type: "string", pattern: SUBJECT_PATTERN, maxLength: SUBJECT_MAX, description: `the id (subject) of a ${type.aggregate} record` };
    case "List":
      return { type: "array", items: typeSchema(type.element), maxItems: type.cap };
    case "Vector":
      return { type: "array", items: { type: "number" }, minItems: type.dim, maxItems: type.dim };
    default: {
      const never: never = type;
      throw new Error(`no JSON Schema for type ${JSON.stringify(never)}`);
    }
  }
}

/** One property of an object schema. */
export interface SchemaProperty {
  readonly name: string;
  readonly schema: JsonSchema;
  /** Left out of `required` (the caller may omit it). */
  readonly optional?: boolean;
}

/**
 * An object of exactly these properties, in this order: every one required unless marked optional,
 * nothing else allowed. Both a record of fields and a call's parameters take this shape.
 */
export function objectSchema(properties: readonly SchemaProperty[]): JsonSchema {
  const props: Record<string, JsonSchema> = {};
  // Contract names are identifiers, but define rather than assign, so no name can reach a prototype.
  for (const p of properties) Object.defineProperty(props, p.name, { value: p.schema, enumerable: true, writable: true, configurable: true });
  return { type: "object", properties: props, required: properties.filter((p) => p.optional !== true).map((p) => p.name), additionalProperties: false };
}

/** A record type's fields (a query's row, a declared `record`) as an object schema. */
export function recordSchema(fields: readonly { readonly name: string; readonly type: Type }[]): JsonSchema {
  return objectSchema(fields.map((f) => ({ name: f.name, schema: typeSchema(f.type) })));
}
