/**
 * @module The artifact's schema: everything the engine, the gateway and the API generators need to
 * know about a compiled contract, as canonical JSON. Query plans are the checker's typed stages
 * with spans removed, so the schema (and the artifact id) depends on the block's text, not on where
 * the block sits in the Markdown file; the block's exact text is digested into `source.sha256` so
 * that comments count too. Lines (for refusals) are those of the Markdown file.
 */
import { createHash } from "node:crypto";
import type { AggregateDecl, Contract, EffectDecl, EnumDecl, Expr, MigrateDecl, QueryDecl, RecordDecl, Type } from "./ast.ts";
import { templateParts } from "./check/effects.ts";
import type { MemoryLayout } from "./layout.ts";
import { aggregatesOf, resolved } from "./layout.ts";

/** A JSON-style value as the API carries it (see the runtime). */
export type Value = null | boolean | number | string | readonly Value[];

export interface SchemaField {
  readonly name: string;
  readonly visibility: "public" | "private";
  readonly type: Type;
  readonly default: Value;
}

/**
 * Who may run an action (`authorize …`). The engine decides every mode but `field`, which the
 * program checks against the record's state.
 */
export type SchemaAuthorize =
  | { readonly mode: "anyone" }
  | { readonly mode: "member" }
  | { readonly mode: "owner" }
  | { readonly mode: "delegate"; readonly scope: string }
  | { readonly mode: "field"; readonly field: string };

export interface SchemaAction {
  readonly aggregate: string;
  readonly name: string;
  readonly params: readonly { readonly name: string; readonly type: Type }[];
  readonly exposure: "public" | "authenticated" | "internal";
  readonly authorize: SchemaAuthorize;
  readonly merge: "replay" | "reject" | "commute";
  readonly durability: "memory" | "local" | "quorum";
  readonly validate: readonly { readonly text: string; readonly line: number }[];
  readonly apply: readonly { readonly field: string; readonly text: string; readonly line: number }[];
  /** The effects the action declares; absent when it declares none (so older contracts keep their artifact ids). */
  readonly effects?: readonly SchemaEffect[];
}

/**
 * One part of an effect field's template: literal text (a number, `true`/`false` or an enum value
 * already written as text), a parameter, a field of the record's state after the action, or
 * `context.signer`/`context.time`.
 */
export type EffectPart =
  | { readonly text: string }
  | { readonly param: string }
  | { readonly state: string }
  | { readonly context: "signer" | "time" };

/** `effect KIND { … }` as the engine renders it once the command is accepted. */
export interface SchemaEffect {
  readonly effect: string;
  readonly line: number;
  readonly fields: readonly { readonly field: string; readonly parts: readonly EffectPart[] }[];
}

export interface Schema {
  readonly format: "charter-schema/1";
  readonly namespace: string;
  readonly version: string;
  readonly upgrades: string | null;
  readonly source: { readonly sha256: string };
  readonly enums: Record<string, readonly string[]>;
  readonly records: Record<string, readonly { readonly name: string; readonly type: Type }[]>;
  readonly aggregates: Record<string, { readonly fields: readonly SchemaField[]; readonly indexes: readonly unknown[]; readonly actions: readonly string[] }>;
  /** Keyed `Aggregate.Action`. */
  readonly actions: Record<string, SchemaAction>;
  readonly queries: Record<string, unknown>;
  readonly migrations: Record<string, readonly { readonly field: string; readonly text: string; readonly line: number; readonly value: unknown }[]>;
  readonly layout: MemoryLayout;
}

/**
 * Whether a delegate holding `scopes` acts in this contract: one of its actions is
 * `authorize delegate` one of them. Only such a delegate may use the contract's `api authenticated`
 * actions and queries; to any other contract the delegate is a stranger.
 */
export function delegatesTo(schema: Pick<Schema, "actions">, scopes: readonly string[]): boolean {
  if (scopes.length === 0) return false;
  return Object.values(schema.actions).some((a) => a.authorize.mode === "delegate" && scopes.includes(a.authorize.scope));
}

/** A copy of an AST fragment without `span` members (positions must not reach the digest). */
export function withoutSpans(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSpans);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) if (k !== "span") out[k] = withoutSpans(v);
  return out;
}

/** The value a field starts with: its `= EXPR` default, else its type's default (§2). */
export function defaultValue(type: Type, expr: Expr | null): Value {
  if (expr !== null) return literalValue(expr);
  switch (type.kind) {
    case "Text":
      return "";
    case "Int":
      return 0;
    case "Bool":
      return false;
    case "Date":
      return "1970-01-01";
    case "Enum":
      return type.values[0] ?? null;
    case "List":
      return [];
    default:
      return null;
  }
}

function literalValue(e: Expr): Value {
  switch (e.kind) {
    case "IntLit":
      return intJson(BigInt(e.value));
    case "Unary":
      if (e.op === "-" && e.operand.kind === "IntLit") return intJson(-BigInt(e.operand.value));
      break;
    case "TextLit":
    case "BoolLit":
      return e.value;
    case "Name":
      if (e.resolved?.kind === "enum-value") return e.resolved.value;
      return e.name;
    default:
      break;
  }
  throw new Error(`a default must be a literal or an enum value, not ${e.kind}`);
}

function intJson(n: bigint): number | string {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
}

function aggregateSchema(agg: AggregateDecl): Schema["aggregates"][string] {
  return {
    fields: agg.fields.map((f) => ({ name: f.name.name, visibility: f.visibility, type: resolved(f), default: defaultValue(resolved(f), f.default) })),
    indexes: agg.indexes.map((i) => ({ name: i.name.name, kind: i.index, fields: i.fields.map((f) => f.name), metric: i.metric?.name ?? null })),
    actions: agg.actions.map((a) => a.name.name),
  };
}

function actionSchemas(agg: AggregateDecl, lineOf: (offset: number) => number): [string, SchemaAction][] {
  return agg.actions.map((a) => {
    const auth = a.authorize;
    if (auth === null) throw new Error(`action ${a.name.name} has no authorize line (the checker reports it)`);
    const authorize: SchemaAuthorize = auth.mode === "field" ? { mode: "field", field: auth.field.name } : auth.mode === "delegate" ? { mode: "delegate", scope: auth.scope.name } : { mode: auth.mode };
    return [`${agg.name.name}.${a.name.name}`, {
      aggregate: agg.name.name,
      name: a.name.name,
      params: a.params.map((p) => ({ name: p.name.name, type: resolved(p) })),
      exposure: a.exposure ?? "internal",
      authorize,
      merge: a.merge?.mode ?? "replay",
      durability: a.durability?.mode ?? "quorum",
      validate: a.validate.map((c) => ({ text: c.text, line: lineOf(c.span[0]) })),
      apply: a.apply.map((s) => ({ field: s.field.name, text: s.text, line: lineOf(s.span[0]) })),
      ...(a.effects.length === 0 ? {} : { effects: a.effects.map((e) => effectSchema(e, lineOf)) }),
    }];
  });
}

function effectSchema(e: EffectDecl, lineOf: (offset: number) => number): SchemaEffect {
  return {
    effect: e.effect.name,
    line: lineOf(e.span[0]),
    fields: e.fields.map((f) => ({ field: f.name.name, parts: templateParts(f.value).map(effectPart) })),
  };
}

/** A checked template part as the schema keeps it (effects.ts allows nothing else). */
function effectPart(e: Expr): EffectPart {
  switch (e.kind) {
    case "TextLit":
      return { text: e.value };
    case "IntLit":
      return { text: e.value };
    case "BoolLit":
      return { text: e.value ? "true" : "false" };
    case "Name":
      return e.resolved?.kind === "enum-value" ? { text: e.resolved.value } : { param: e.name };
    case "StateField":
      return { state: e.field.name };
    case "Context":
      return { context: e.field.name === "time" ? "time" : "signer" };
    default:
      throw new Error(`an effect template part cannot be ${e.kind} (the checker reports it)`);
  }
}

function querySchema(q: QueryDecl): unknown {
  return {
    params: q.params.map((p) => ({ name: p.name.name, type: resolved(p) })),
    returns: q.returns.name,
    exposure: q.exposure ?? "internal",
    source: withoutSpans(q.source),
    stages: withoutSpans(q.stages),
    columns: q.columns ?? null,
  };
}

/** Builds the schema of a checked contract; `source` is the whole Markdown file. */
export function buildSchema(contract: Contract, source: string, layout: MemoryLayout, lineOf: (offset: number) => number): Schema {
  const enums: Schema["enums"] = {};
  const records: Schema["records"] = {};
  const aggregates: Schema["aggregates"] = {};
  const actions: Schema["actions"] = {};
  const queries: Schema["queries"] = {};
  const migrations: Schema["migrations"] = {};
  for (const d of contract.decls) {
    if (d.kind === "EnumDecl") enums[d.name.name] = (d as EnumDecl).values.map((v) => v.name);
    else if (d.kind === "RecordDecl") records[d.name.name] = (d as RecordDecl).fields.map((f) => ({ name: f.name.name, type: resolved(f) }));
    else if (d.kind === "QueryDecl") queries[d.name.name] = querySchema(d);
    else if (d.kind === "MigrateDecl") {
      migrations[d.aggregate.name] = (d as MigrateDecl).assignments.map((a) => ({ field: a.field.name, text: a.text, line: lineOf(a.span[0]), value: withoutSpans(a.value) }));
    }
  }
  for (const agg of aggregatesOf(contract)) {
    aggregates[agg.name.name] = aggregateSchema(agg);
    for (const [name, a] of actionSchemas(agg, lineOf)) actions[name] = a;
  }
  const block = source.slice(contract.span[0], contract.span[1]);
  return {
    format: "charter-schema/1",
    namespace: contract.namespace.name,
    version: contract.version.name,
    upgrades: contract.upgrades?.name ?? null,
    source: { sha256: createHash("sha256").update(block, "utf8").digest("hex") },
    enums,
    records,
    aggregates,
    actions,
    queries,
    migrations,
    layout,
  };
}
