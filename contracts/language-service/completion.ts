/**
 * @module Completion, decided by what comes before the cursor on its line and the blocks around it:
 * fields after `state.` / `old.`, `context.` names, `$` parameters and stage names after `|` in a
 * query, modes after `authorize` / `merge` / `durability` / `api`, effects after `effect` and their fields inside one, types after `:`, keywords at the
 * start of a line, and in expressions the parameters, enum values (only the expected enum's after a
 * comparison with an enum), columns in a query, and the operators and functions.
 */
import type { CompletionItem, CompletionItemKind } from "vscode-languageserver-protocol";
import type { ActionDecl, AggregateDecl, Contract, QueryDecl, Type } from "../ast.ts";
import { typeName } from "../check/types.ts";
import { cursorContext, type CursorContext } from "./cursor-context.ts";
import { inBlock, namesAt, type ContractDocument } from "./document.ts";
import { EFFECT_KINDS } from "../check/effects.ts";
import { CONTEXT, EFFECTS, MODES, STAGES } from "./meanings.ts";
import { aggregateNamed } from "./targets.ts";

/** LSP's completion item kinds used here. */
const KIND = { Function: 3, Field: 5, Variable: 6, Class: 7, Value: 12, Enum: 13, Keyword: 14, Snippet: 15, EnumMember: 20, Struct: 22, TypeParameter: 25 } as const satisfies Record<string, CompletionItemKind>;
const SNIPPET = 2;

const TOP = ["enum", "record", "aggregate", "query", "migrate", "namespace", "version", "upgrades"];
const MEMBERS = ["public", "private", "index", "action"];
const CLAUSES = ["authorize", "merge", "durability", "validate", "apply", "effect"];
const OPERATORS = ["and", "or", "not", "in", "true", "false"];
const FUNCTIONS = ["len", "append", "remove"];
const TYPES: readonly [string, string][] = [
  ["Text(len=N)", "Text(len=${1:200})"], ["Int", "Int"], ["Bool", "Bool"], ["Date", "Date"], ["Identity", "Identity"],
  ["Enum(A, B)", "Enum(${1:A}, ${2:B})"], ["Ref<Aggregate>", "Ref<${1:Aggregate}>"], ["List<T>(cap=N)", "List<${1:Int}>(cap=${2:10})"], ["Vector(dim=N)", "Vector(dim=${1:3})"],
];

/** Completion items at `offset`; none outside the `charter` block. */
export function completion(doc: ContractDocument, offset: number): CompletionItem[] {
  if (doc.block === null || !inBlock(doc, offset)) return [];
  const ctx = cursorContext(doc.text, doc.block[0], offset);
  const contract = namesAt(doc, offset).contract;
  return itemsFor(ctx, contract);
}

function itemsFor(ctx: CursorContext, contract: Contract | null): CompletionItem[] {
  const before = ctx.lineBefore;
  const owner = ctx.blocks.find((b) => b.keyword === "aggregate" || b.keyword === "migrate");
  const aggregate = contract && owner?.name ? aggregateNamed(contract, owner.name) : null;
  const actionName = ctx.blocks.find((b) => b.keyword === "action")?.name;
  const action = aggregate?.actions.find((a) => a.name.name === actionName) ?? null;
  const query = ctx.query && contract ? ((contract.decls.find((d) => d.kind === "QueryDecl" && d.name.name === ctx.query?.name) as QueryDecl | undefined) ?? null) : null;

  if (/\bstate\.\w*$/.test(before)) {
    const identityOnly = /^\s*authorize\s+state\.\w*$/.test(before);
    return fields(aggregate).filter((f) => !identityOnly || f.detail === "Identity");
  }
  if (/\bold\.\w*$/.test(before)) return fields(aggregate);
  if (/\bcontext\.\w*$/.test(before)) return Object.entries(CONTEXT).map(([name, c]) => ({ label: name, kind: KIND.Field, detail: c.type, documentation: c.meaning }));
  if (ctx.query && /\$\w*$/.test(before)) return params(query);
  if (ctx.query && /^\s*\|\s*\w*$/.test(before)) return Object.entries(STAGES).map(([name, s]) => ({ label: name, kind: KIND.Keyword, detail: s.form, documentation: s.meaning }));
  const mode = /^\s*(authorize|merge|durability)\s+\w*$/.exec(before)?.[1] ?? (/\bapi\s+\w*$/.test(before) ? "api" : null);
  if (mode === "authorize" || mode === "merge" || mode === "durability" || mode === "api") {
    return Object.entries(MODES[mode]).map(([name, meaning]) => ({ label: name, kind: KIND.Keyword, documentation: meaning }));
  }
  if (/^\s*effect\s+\w*$/.test(before)) return Object.entries(EFFECTS).map(([name, meaning]) => ({ label: name, kind: KIND.Keyword, documentation: meaning }));
  if (/\bRef\s*<\s*\w*$/.test(before)) return declared(contract, "AggregateDecl", KIND.Class);
  if (!ctx.query && /(?::|\bList\s*<)\s*\w*$/.test(before)) return types(contract);
  if (/^\s*\w*$/.test(before)) {
    const inner = ctx.blocks.at(-1)?.keyword;
    if (ctx.query) return ctx.query.stages === 0 ? [...declared(contract, "AggregateDecl", KIND.Class), keyword("union")] : expression(ctx, contract, action, query);
    if (inner === undefined) return TOP.map(keyword);
    if (inner === "aggregate") return MEMBERS.map(keyword);
    if (inner === "action") return CLAUSES.map(keyword);
    if (inner === "apply" || inner === "migrate") return [keyword("state.")];
    if (inner === "effect") return (EFFECT_KINDS[ctx.blocks.at(-1)?.name ?? ""]?.fields ?? []).map((f) => ({ label: f, kind: KIND.Field }));
    if (inner !== "validate") return [];
  }
  const expected = expectedEnum(before, aggregate, action, query, ctx);
  if (expected !== null) return expected.values.map((v) => ({ label: v, kind: KIND.EnumMember, detail: typeName(expected) }));
  return expression(ctx, contract, action, query);
}

function keyword(word: string): CompletionItem {
  return { label: word, kind: KIND.Keyword };
}

function fields(aggregate: AggregateDecl | null): CompletionItem[] {
  return (aggregate?.fields ?? []).map((f) => ({ label: f.name.name, kind: KIND.Field, detail: f.resolvedType ? typeName(f.resolvedType) : f.visibility }));
}

function params(owner: ActionDecl | QueryDecl | null): CompletionItem[] {
  return (owner?.params ?? []).map((p) => ({ label: p.name.name, kind: KIND.Variable, detail: p.resolvedType ? typeName(p.resolvedType) : "parameter" }));
}

function declared(contract: Contract | null, kind: "AggregateDecl" | "EnumDecl" | "RecordDecl", item: CompletionItemKind): CompletionItem[] {
  return (contract?.decls ?? []).filter((d) => d.kind === kind).map((d) => ({ label: d.kind === "MigrateDecl" ? "" : d.name.name, kind: item }));
}

function types(contract: Contract | null): CompletionItem[] {
  return [
    ...TYPES.map(([label, snippet]): CompletionItem => ({ label, kind: KIND.TypeParameter, insertText: snippet, insertTextFormat: SNIPPET })),
    ...declared(contract, "EnumDecl", KIND.Enum),
    ...declared(contract, "RecordDecl", KIND.Struct),
  ];
}

/** The enum a value is expected of: after `state.F ==`, `state.F =`, `NAME ==` or a field's `=`. */
function expectedEnum(before: string, aggregate: AggregateDecl | null, action: ActionDecl | null, query: QueryDecl | null, ctx: CursorContext): Extract<Type, { kind: "Enum" }> | null {
  let type: Type | undefined;
  const field = /\bstate\.(\w+)\s*(?:==|!=|=)\s*\w*$/.exec(before)?.[1] ?? /^\s*(?:public|private)\s+(\w+)\s*:.*=\s*\w*$/.exec(before)?.[1];
  const name = /(?:^|[^.$\w])\$?(\w+)\s*(?:==|!=)\s*\w*$/.exec(before)?.[1];
  if (field !== undefined) type = aggregate?.fields.find((f) => f.name.name === field)?.resolvedType;
  else if (name !== undefined) {
    type = (action ?? query)?.params.find((p) => p.name.name === name)?.resolvedType;
    if (type === undefined && query && ctx.query) type = query.columns?.[Math.max(0, ctx.query.stages - 1)]?.find((c) => c.name === name)?.type;
  }
  return type?.kind === "Enum" ? type : null;
}

function enumValues(contract: Contract | null): CompletionItem[] {
  const seen = new Map<string, string>();
  const note = (t: Type | undefined): void => {
    if (t?.kind === "Enum") for (const v of t.values) if (!seen.has(v)) seen.set(v, typeName(t));
    if (t?.kind === "List") note(t.element);
  };
  for (const d of contract?.decls ?? []) {
    if (d.kind === "EnumDecl") note({ kind: "Enum", values: d.values.map((v) => v.name), name: d.name.name });
    if (d.kind === "AggregateDecl") {
      d.fields.forEach((f) => note(f.resolvedType));
      d.actions.forEach((a) => a.params.forEach((p) => note(p.resolvedType)));
    }
    if (d.kind === "QueryDecl") d.params.forEach((p) => note(p.resolvedType));
  }
  return [...seen].map(([label, detail]) => ({ label, kind: KIND.EnumMember, detail }));
}

function expression(ctx: CursorContext, contract: Contract | null, action: ActionDecl | null, query: QueryDecl | null): CompletionItem[] {
  const words = [...OPERATORS.map(keyword), ...FUNCTIONS.map((f) => ({ label: f, kind: KIND.Function }))];
  if (ctx.query) {
    const columns = query?.columns?.[Math.max(0, ctx.query.stages - 1)] ?? [];
    return [...columns.map((c) => ({ label: c.name, kind: KIND.Field, detail: typeName(c.type) })), ...enumValues(contract), ...words];
  }
  const migrating = ctx.blocks.some((b) => b.keyword === "migrate");
  return [...params(action), ...enumValues(contract), keyword(migrating ? "old." : "state."), keyword("context."), ...words];
}
