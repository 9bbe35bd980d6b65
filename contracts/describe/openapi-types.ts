/**
 * @module JSON Schema (OpenAPI 3.1, draft 2020-12) for contract types and for the fixed shapes of the
 * wire: problem documents, refusals, 64-bit integers, did:keys. Values are described exactly as the
 * runtime accepts and answers them (contracts/back-end.md): an Int is a JSON number within
 * ±(2^53−1), otherwise a decimal string; Text counts characters (JSON Schema's `maxLength` does too).
 */
import type { Column, Type } from "../ast.ts";
import { type Described, nullable } from "./names.ts";

export type JsonSchema = Record<string, unknown>;

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The schema of a value of `type`; `orNull` admits null for the types that have no default. */
export function typeSchema(type: Type, d: Described, orNull = false): JsonSchema {
  const base = plain(type, d);
  if (!orNull || !nullable(type)) return base;
  if (type.kind === "Vector") return { ...base, type: ["array", "null"] };
  return { oneOf: [base, { type: "null" }] };
}

function plain(type: Type, d: Described): JsonSchema {
  switch (type.kind) {
    case "Text":
      return { type: "string", maxLength: type.len };
    case "Int":
      return ref("Int64");
    case "Bool":
      return { type: "boolean" };
    case "Date":
      return ref("Date");
    case "Identity":
      return ref("DidKey");
    case "Enum":
      return ref(d.enumName(type));
    case "Ref":
      return { ...ref("Subject"), description: `the subject of a ${type.aggregate}` };
    case "List":
      return { type: "array", items: plain(type.element, d), maxItems: type.cap };
    case "Vector":
      return { type: "array", items: { type: "number" }, minItems: type.dim, maxItems: type.dim };
    case "Float":
      return { type: "number" };
    default: {
      const never: never = type;
      throw new Error(`no JSON Schema for ${JSON.stringify(never)}`);
    }
  }
}

/** An object with exactly `columns`, all required; `closed` forbids other members (for input). */
export function objectSchema(columns: readonly Column[], d: Described, options: { closed: boolean; orNull: boolean }): JsonSchema {
  return {
    type: "object",
    ...(columns.length > 0 ? { required: columns.map((c) => c.name) } : {}),
    properties: Object.fromEntries(columns.map((c) => [c.name, typeSchema(c.type, d, options.orNull)])),
    ...(options.closed ? { additionalProperties: false } : {}),
  };
}

const MAX_SAFE = 9007199254740991;

/** The fixed component schemas every OpenAPI document carries (names in `FIXED`). */
export function fixedSchemas(): Record<string, JsonSchema> {
  return {
    Problem: {
      type: "object",
      description: "An RFC 9457 problem document (application/problem+json): the request was not a command or could not be answered, and nothing changed.",
      required: ["type", "title", "status", "detail", "code"],
      properties: {
        type: { type: "string", description: "a stable URN naming the kind of problem, e.g. urn:charter:problem:bad-parameters" },
        title: { type: "string" },
        status: { type: "integer" },
        detail: { type: "string", description: "what was wrong, for a person" },
        code: { type: "string", description: "the stable machine-readable code (kebab-case, from the node's one catalogue); `type` is urn:charter:problem:CODE" },
        errors: { type: "array", items: ref("FieldProblem") },
      },
    },
    FieldProblem: {
      type: "object",
      description: "One wrong part of the input: a JSON pointer into the body and why, or a line and column of a contract.",
      properties: { pointer: { type: "string" }, detail: { type: "string" }, message: { type: "string" }, line: { type: "integer" }, column: { type: "integer" } },
    },
    Int64: {
      description: "A 64-bit signed integer: a JSON number within ±(2^53−1), otherwise a decimal string.",
      oneOf: [
        { type: "integer", format: "int64", minimum: -MAX_SAFE, maximum: MAX_SAFE },
        { type: "string", pattern: "^-?[0-9]{1,19}$" },
      ],
    },
    Date: { type: "string", format: "date", description: "a calendar date, YYYY-MM-DD" },
    DidKey: { type: "string", pattern: "^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$", description: "an Ed25519 identity as a did:key" },
    Subject: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$", description: "the subject (key) of an aggregate instance" },
    Refusal: {
      type: "object",
      description: "Why a command was refused: condition_failed (with the condition and its line), unauthorized, text_too_long, list_full, overflow, division_by_zero, merge_conflict, …",
      required: ["code"],
      properties: {
        code: { type: "string" },
        condition: { type: ["string", "null"] },
        line: { type: ["integer", "null"] },
        message: { type: "string" },
      },
    },
    Outcome: { type: "string", enum: ["accepted", "refused"] },
    CommandBody: {
      type: "object",
      description: "A signed command: a compact JWS with header {alg: EdDSA, kid: <signer did:key>, typ: charter-command+jws}.",
      required: ["command"],
      properties: { command: { type: "string", pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$" } },
      additionalProperties: false,
    },
  };
}
