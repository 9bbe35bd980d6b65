/**
 * @module A contract's actions as the node describes them: `GET /v1/{tenant}/{namespace}/openapi.json`
 * (the OpenAPI 3.1 document the node serves for the contract a namespace has active now) read into
 * one `ActionSpec` per exposed action — its aggregate, and each argument's kind, limits and
 * whether it may be null — so a form can be generated from it. Nothing here knows a contract: every
 * type, enum, length and range is the description's.
 */
import { api } from "../lib/api.ts";

/** A JSON Schema, as much of it as the forms read. */
export interface JsonSchema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly oneOf?: readonly JsonSchema[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly maxItems?: number;
  readonly minItems?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly pattern?: string;
  readonly description?: string;
}

interface OpenApiDoc {
  readonly paths?: Readonly<Record<string, { readonly post?: { readonly summary?: string; readonly tags?: readonly string[]; readonly description?: string; readonly "x-charter-exposure"?: string } }>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, JsonSchema>> };
}

/** How a value is entered. */
export type ValueKind = "text" | "int" | "number" | "date" | "bool" | "enum" | "list" | "json";

/** One value's input, as described: its kind and limits. */
export interface ValueSpec {
  readonly kind: ValueKind;
  /** May be null (left empty). */
  readonly nullable: boolean;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly options?: readonly string[];
  readonly format?: string;
  readonly description?: string;
  /** A list's elements, and its bounds. */
  readonly items?: ValueSpec;
  readonly maxItems?: number;
  readonly minItems?: number;
}

export interface ArgSpec extends ValueSpec {
  readonly name: string;
  readonly required: boolean;
}

export interface ActionSpec {
  readonly name: string;
  readonly aggregate: string;
  /** What the description says of it (who may run it). */
  readonly description: string;
  readonly args: readonly ArgSpec[];
}

export interface ContractSpec {
  readonly namespace: string;
  readonly actions: readonly ActionSpec[];
  /** The subject's own schema (pattern, length), when described. */
  readonly subject: ValueSpec | null;
}

const cache = new Map<string, Promise<ContractSpec>>();

/** The actions of `namespace` as the node describes them (kept per artifact). */
export function loadContract(tenant: string, namespace: string, artifact: string): Promise<ContractSpec> {
  const key = `${tenant}/${namespace}/${artifact}`;
  let found = cache.get(key);
  if (found === undefined) {
    found = api<OpenApiDoc>("GET", `/v1/${encodeURIComponent(tenant)}/${encodeURIComponent(namespace)}/openapi.json`).then((doc) => readContract(namespace, doc));
    found.catch(() => cache.delete(key));
    cache.set(key, found);
  }
  return found;
}

/** The actions of an OpenAPI document: each `…/actions/{Action}` operation, its payload's `args`. */
function readContract(namespace: string, doc: OpenApiDoc): ContractSpec {
  const schemas = doc.components?.schemas ?? {};
  const actions: ActionSpec[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const op = item.post;
    const match = /\/actions\/([^/]+)$/.exec(path);
    if (op === undefined || match === null) continue;
    const name = decodeURIComponent(match[1] ?? "");
    const aggregate = (op.summary ?? "").split(".")[0] ?? "";
    // The payload schema is the one whose `namespace` and `action` are this operation's constants.
    const payload = Object.values(schemas).find((s) => s.properties?.["action"]?.const === name && s.properties?.["namespace"]?.const === namespace);
    const argsSchema = payload?.properties?.["args"] === undefined ? { type: "object" } : resolve(payload.properties["args"], schemas);
    const required = new Set(argsSchema.required ?? []);
    const args = Object.entries(argsSchema.properties ?? {}).map(([arg, schema]): ArgSpec => ({ name: arg, required: required.has(arg), ...valueSpec(schema, schemas) }));
    actions.push({ name, aggregate, description: op.description ?? "", args });
  }
  actions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const subject = schemas["Subject"] === undefined ? null : valueSpec(schemas["Subject"], schemas);
  return { namespace, actions, subject };
}

function resolve(schema: JsonSchema, schemas: Readonly<Record<string, JsonSchema>>, depth = 0): JsonSchema {
  if (schema.$ref === undefined || depth > 8) return schema;
  const name = schema.$ref.replace(/^#\/components\/schemas\//, "");
  const target = schemas[name];
  if (target === undefined) return schema;
  const { $ref: _ref, ...rest } = schema;
  return { ...resolve(target, schemas, depth + 1), ...rest };
}

/** The input of a value of `schema`. */
function valueSpec(raw: JsonSchema, schemas: Readonly<Record<string, JsonSchema>>): ValueSpec {
  const schema = resolve(raw, schemas);
  const description = schema.description;
  const base = description === undefined ? {} : { description };
  if (schema.oneOf !== undefined) {
    const alternatives = schema.oneOf.map((s) => resolve(s, schemas));
    const nullable = alternatives.some((s) => s.type === "null");
    const rest = alternatives.filter((s) => s.type !== "null");
    const integer = rest.find((s) => s.type === "integer");
    // A 64-bit integer: a number within ±(2^53−1), or a decimal string beyond.
    if (integer !== undefined) return { ...base, ...numberBounds(integer), kind: "int", nullable };
    if (rest.length === 1 && rest[0] !== undefined) return { ...valueSpec(rest[0], schemas), ...base, nullable };
    return { ...base, kind: "json", nullable };
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const nullable = types.includes("null");
  const type = types.find((t) => t !== "null");
  if (type === "string" && schema.enum !== undefined) return { ...base, kind: "enum", nullable, options: schema.enum.map(String) };
  if (type === "string" && schema.format === "date") return { ...base, kind: "date", nullable, format: "date" };
  if (type === "string") {
    return {
      ...base,
      kind: "text",
      nullable,
      ...(schema.maxLength === undefined ? {} : { maxLength: schema.maxLength }),
      ...(schema.pattern === undefined ? {} : { pattern: schema.pattern }),
      ...(schema.format === undefined ? {} : { format: schema.format }),
    };
  }
  if (type === "boolean") return { ...base, kind: "bool", nullable };
  if (type === "integer") return { ...base, ...numberBounds(schema), kind: "int", nullable };
  if (type === "number") return { ...base, ...numberBounds(schema), kind: "number", nullable };
  if (type === "array") {
    return {
      ...base,
      kind: "list",
      nullable,
      items: schema.items === undefined ? { kind: "json", nullable: false } : valueSpec(schema.items, schemas),
      ...(schema.maxItems === undefined ? {} : { maxItems: schema.maxItems }),
      ...(schema.minItems === undefined ? {} : { minItems: schema.minItems }),
    };
  }
  return { ...base, kind: "json", nullable };
}

function numberBounds(schema: JsonSchema): { minimum?: number; maximum?: number } {
  return { ...(schema.minimum === undefined ? {} : { minimum: schema.minimum }), ...(schema.maximum === undefined ? {} : { maximum: schema.maximum }) };
}

/** The value's type in a few words, from its description. */
export function describeValue(spec: ValueSpec): string {
  const parts: string[] = [];
  switch (spec.kind) {
    case "text":
      parts.push(spec.maxLength === undefined ? "Text" : `Text, at most ${spec.maxLength} characters`);
      break;
    case "int":
      parts.push("Whole number");
      break;
    case "number":
      parts.push("Number");
      break;
    case "date":
      parts.push("Date");
      break;
    case "bool":
      parts.push("Yes or no");
      break;
    case "enum":
      parts.push(`One of ${(spec.options ?? []).join(", ")}`);
      break;
    case "list": {
      const item = spec.items === undefined ? "value" : describeValue(spec.items).toLowerCase();
      parts.push(`A list, one per line (${item})${spec.maxItems === undefined ? "" : `, at most ${spec.maxItems}`}`);
      break;
    }
    case "json":
      parts.push("JSON");
      break;
  }
  // An integer's description is how 64-bit values travel as JSON: not for the person.
  if (spec.description !== undefined && spec.kind !== "list" && spec.kind !== "int") parts.push(spec.description);
  if (spec.nullable) parts.push("may be left empty");
  return parts.join("; ");
}

/** `pattern` when the browser can use it as an input's pattern (compiled with the `v` flag), else undefined. */
export function usablePattern(pattern: string | undefined): string | undefined {
  if (pattern === undefined) return undefined;
  try {
    new RegExp(pattern, "v");
    return pattern;
  } catch {
    return undefined;
  }
}

/** An entered text as the value `spec` describes; throws an Error naming what is wrong. */
export function parseValue(spec: ValueSpec, text: string | boolean): unknown {
  if (spec.kind === "bool") return text === true;
  const raw = String(text);
  if (raw === "" && spec.nullable && spec.kind !== "text") return null;
  switch (spec.kind) {
    case "text":
    case "enum":
    case "date":
      return raw;
    case "int": {
      if (!/^-?\d+$/.test(raw.trim())) throw new Error("a whole number");
      const n = Number(raw.trim());
      return Number.isSafeInteger(n) ? n : raw.trim();
    }
    case "number": {
      const n = Number(raw);
      if (raw.trim() === "" || !Number.isFinite(n)) throw new Error("a number");
      return n;
    }
    case "list": {
      const item = spec.items ?? { kind: "json", nullable: false };
      if (item.kind === "json" || item.kind === "list") return JSON.parse(raw === "" ? "[]" : raw) as unknown;
      return raw
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => parseValue(item, item.kind === "bool" ? /^(true|yes|1)$/i.test(line.trim()) : line.trim()));
    }
    case "json":
      return JSON.parse(raw) as unknown;
  }
}
