/**
 * @module Reading a model's tool call: its arguments are JSON text the model wrote, so they are
 * checked flatly against the tool's parameters before anything runs — an object, only the tool's
 * parameter names (and an action's `subject`), every required one present, within the JSON limits
 * of everything that enters (depth, count, key length; checked iteratively). The values' types are
 * the engine's to check (it knows them exactly and answers with a reason), so nothing here walks
 * into them by their types. Errors are one line the model can act on.
 */
import { checkJsonTextDepth, checkJsonValue, JSON_LIMITS, type JsonLimitViolation } from "../../../../shared/json-limits.ts";
import type { AssistantTool } from "./tool-catalogue.ts";
import { SUBJECT_PATTERN } from "./tool-schema.ts";

/** The largest arguments text read, in bytes. */
export const MAX_ARGUMENTS_BYTES = 64 * 1024;

/** What a call's arguments come to: the record to act on (null: a new one), and the contract's arguments. */
export type ParsedArguments = { ok: true; subject: string | null; args: Record<string, unknown> } | { ok: false; error: string };

const SUBJECT = new RegExp(SUBJECT_PATTERN);

/** The tool's parameters as the catalogue declared them: names, which are required, which the node fills in. */
interface Declared {
  readonly names: readonly string[];
  readonly required: ReadonlySet<string>;
  /** Parameters left out that take their type's default. */
  readonly defaults: ReadonlyMap<string, unknown>;
  readonly filled: ReadonlyMap<string, { readonly default: number; readonly minimum: number; readonly maximum: number }>;
}

/** Checks the model's arguments for `tool`; `subject` is taken apart from an action's arguments. */
export function parseToolArguments(tool: AssistantTool, argumentsJson: string): ParsedArguments {
  if (argumentsJson.length > MAX_ARGUMENTS_BYTES || Buffer.byteLength(argumentsJson, "utf8") > MAX_ARGUMENTS_BYTES) {
    return fail(`the arguments are over ${MAX_ARGUMENTS_BYTES / 1024} KiB: send shorter values`);
  }
  // The same bounds as every JSON value that enters (shared/json-limits.ts), checked without recursion.
  const deep = checkJsonTextDepth(argumentsJson);
  if (deep !== null) return fail(overLimit(deep));
  let value: unknown;
  try {
    value = argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson);
  } catch (error) {
    return fail(`the arguments are not JSON (${(error as Error).message}): send one JSON object of ${tool.callName}'s parameters`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return fail(`the arguments must be a JSON object of ${tool.callName}'s parameters, not ${value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`}`);
  }
  const over = checkJsonValue(value);
  if (over !== null) return fail(overLimit(over));
  const declared = declaredOf(tool);
  const given = value as Record<string, unknown>;
  const keys = Object.keys(given);
  const known = new Set(declared.names);
  const unknown = keys.filter((k) => !known.has(k));
  if (unknown.length > 0) {
    return fail(`${tool.callName} has no parameter ${unknown.slice(0, 5).map(quoted).join(", ")}${unknown.length > 5 ? ", …" : ""}; its parameters are ${declared.names.join(", ") || "none"}`);
  }
  const missing = [...declared.required].filter((name) => !Object.hasOwn(given, name));
  if (missing.length > 0) return fail(`missing required parameter${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of ${tool.callName}`);

  let subject: string | null = null;
  const args: [string, unknown][] = [];
  for (const key of keys) {
    const v = given[key];
    if (tool.kind === "action" && key === "subject") {
      if (v === null) continue;
      if (typeof v !== "string" || !SUBJECT.test(v)) return fail("subject must be a record's id: 1–128 characters of A-Z a-z 0-9 . _ : - (leave it out to make a new record)");
      subject = v;
    } else args.push([key, v]);
  }
  for (const [name, value] of declared.defaults) if (!Object.hasOwn(given, name)) args.push([name, value]);
  for (const [name, bounds] of declared.filled) {
    if (!Object.hasOwn(given, name)) args.push([name, bounds.default]);
    else if (!(Number.isInteger(given[name]) && (given[name] as number) >= bounds.minimum && (given[name] as number) <= bounds.maximum)) {
      return fail(`${name} must be a whole number from ${bounds.minimum} to ${bounds.maximum} (${bounds.default} when left out)`);
    }
  }
  // fromEntries defines own properties: a parameter named like a prototype member stays data.
  return { ok: true, subject, args: Object.fromEntries(args) };
}

/** The parameters of the tool's JSON Schema object (the catalogue built it, so its shape is known). */
function declaredOf(tool: AssistantTool): Declared {
  const properties = (tool.parameters.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((tool.parameters.required ?? []) as string[]);
  const filled = new Map<string, { default: number; minimum: number; maximum: number }>();
  const defaults = new Map<string, unknown>();
  for (const [name, p] of Object.entries(properties)) {
    if (required.has(name) || !Object.hasOwn(p, "default")) continue;
    // A bounded whole number (a query's limit) is checked against its bounds; any other default is only filled in.
    if (typeof p.default === "number" && (p.minimum !== undefined || p.maximum !== undefined)) filled.set(name, { default: p.default, minimum: Number(p.minimum ?? -Infinity), maximum: Number(p.maximum ?? Infinity) });
    else defaults.set(name, p.default);
  }
  return { names: Object.keys(properties), required, filled, defaults };
}

/** What a limit violation means for the model. */
function overLimit(over: JsonLimitViolation): string {
  switch (over.limit) {
    case "depth":
      return `the arguments are nested more than ${JSON_LIMITS.maxDepth} levels deep: send flatter values`;
    case "values":
      return `the arguments hold more than ${JSON_LIMITS.maxValues} values (at ${over.pointer}): send less`;
    case "key-length":
      return `a key of the arguments is longer than ${JSON_LIMITS.maxKeyLength} characters (at ${over.pointer})`;
  }
}

function quoted(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key);
}

/** A failure whose message is one line. */
function fail(error: string): ParsedArguments {
  return { ok: false, error: error.replace(/\s+/g, " ") };
}
