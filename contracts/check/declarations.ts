/**
 * @module Checks the declarations themselves: names unique where they share a namespace (enums,
 * records and aggregates share one; queries another; fields, indexes and actions are per aggregate),
 * every written type resolved (`resolvedType` filled), defaults that fit their fields, and indexes
 * over existing fields of the right type (a fulltext index over public or private fields, not both).
 */
import type { AggregateDecl, Contract, FieldDecl, Ident, IndexDecl, Type } from "../ast.ts";
import { quotedValueAdvice } from "./advice.ts";
import { checkExpr } from "./expressions.ts";
import { baseEnv } from "./env.ts";
import { codePoints } from "./literals.ts";
import { checkDistinct, resolveType } from "./resolve-type.ts";
import type { Scope } from "./scope.ts";
import { assignable, typeName } from "./types.ts";

const BUILTIN_TYPES = new Set(["Text", "Int", "Bool", "Date", "Identity", "Enum", "Ref", "List", "Vector", "Float"]);
const METRICS = new Set(["cosine", "l2", "dot"]);

/** Duplicate and reserved top-level names. */
export function checkNames(scope: Scope, contract: Contract): void {
  const types: Ident[] = [];
  const queries: Ident[] = [];
  for (const decl of contract.decls) {
    if (decl.kind === "EnumDecl" || decl.kind === "RecordDecl" || decl.kind === "AggregateDecl") {
      types.push(decl.name);
      if (BUILTIN_TYPES.has(decl.name.name)) scope.report("C0223", decl.name.span, decl.name.name, "it is a built-in type");
    }
    if (decl.kind === "QueryDecl") queries.push(decl.name);
  }
  checkDistinct(scope, types, "name", "(enums, records and aggregates need distinct names)");
  checkDistinct(scope, queries, "query", "");
}

/** Resolves the types of enums, records, aggregate fields and action parameters (queries resolve their own). */
export function resolveDeclaredTypes(scope: Scope, contract: Contract): void {
  for (const decl of contract.decls) {
    if (decl.kind === "EnumDecl") {
      checkDistinct(scope, decl.values, "value", `in enum ${decl.name.name}`);
      resolveType(scope, { kind: "NamedType", name: decl.name, span: decl.name.span }, "field");
    } else if (decl.kind === "RecordDecl") {
      checkDistinct(scope, decl.fields.map((f) => f.name), "field", `in record ${decl.name.name}`);
      for (const f of decl.fields) {
        const t = resolveType(scope, f.type, "record");
        if (t !== null) f.resolvedType = t;
      }
    } else if (decl.kind === "AggregateDecl") {
      for (const f of decl.fields) {
        const t = resolveType(scope, f.type, "field");
        if (t !== null) f.resolvedType = t;
      }
      for (const a of decl.actions) {
        for (const p of a.params) {
          const t = resolveType(scope, p.type, "param");
          if (t !== null) p.resolvedType = t;
        }
      }
    }
  }
}

/** Field names, defaults and indexes of one aggregate. */
export function checkAggregateShape(scope: Scope, aggregate: AggregateDecl): void {
  const where = `in aggregate ${aggregate.name.name}`;
  checkDistinct(scope, aggregate.fields.map((f) => f.name), "field", where);
  checkDistinct(scope, aggregate.indexes.map((i) => i.name), "index", where);
  checkDistinct(scope, aggregate.actions.map((a) => a.name), "action", where);
  for (const f of aggregate.fields) {
    if (f.name.name === "subject" || f.name.name === "key") scope.report("C0223", f.name.span, f.name.name, "every row already has subject and key");
    checkDefault(scope, aggregate, f);
  }
  for (const index of aggregate.indexes) checkIndex(scope, aggregate, index);
}

function checkDefault(scope: Scope, aggregate: AggregateDecl, field: FieldDecl): void {
  const value = field.default;
  const type = field.resolvedType;
  if (value === null) return;
  const literal =
    value.kind === "IntLit" || value.kind === "TextLit" || value.kind === "BoolLit" || value.kind === "Name" ||
    (value.kind === "Unary" && value.op === "-" && value.operand.kind === "IntLit");
  if (!literal) {
    scope.report("C0222", value.span);
    return;
  }
  if (type === undefined) return;
  if (type.kind === "Identity" || type.kind === "Ref" || type.kind === "Vector") {
    scope.report("C0311", value.span, type.kind);
    return;
  }
  const found = checkExpr(baseEnv(scope, "default", aggregate), value, type);
  if (found === null) return;
  if (!assignable(type, found) || type.kind === "List") scope.report("C0310", value.span, valueText(value, found), typeName(type), quotedValueAdvice(type, value, field.name.name));
  else if (type.kind === "Text" && value.kind === "TextLit" && codePoints(value.value) > type.len) {
    scope.report("C0319", value.span, codePoints(value.value), typeName(type));
  }
}

function valueText(value: NonNullable<FieldDecl["default"]>, found: Type): string {
  if (value.kind === "TextLit") return JSON.stringify(value.value.length > 30 ? `${value.value.slice(0, 24)}…` : value.value);
  if (value.kind === "IntLit" || value.kind === "Name") return String(value.kind === "IntLit" ? value.value : value.name);
  if (value.kind === "BoolLit") return String(value.value);
  return `of type ${typeName(found)}`;
}

function checkIndex(scope: Scope, aggregate: AggregateDecl, index: IndexDecl): void {
  for (const name of index.fields) {
    const field = aggregate.fields.find((f) => f.name.name === name.name);
    if (field === undefined) {
      scope.report("C0213", name.span, name.name, aggregate.name.name);
      continue;
    }
    const t = field.resolvedType;
    if (t === undefined) continue;
    if (index.index === "fulltext" && t.kind !== "Text") scope.report("C0318", name.span, index.name.name, name.name, "Text", typeName(t));
    if (index.index === "vector" && t.kind !== "Vector") scope.report("C0318", name.span, index.name.name, name.name, "a Vector", typeName(t));
  }
  if (index.metric !== null && !METRICS.has(index.metric.name)) scope.report("C0224", index.metric.span, index.metric.name);
  if (index.index === "fulltext") checkFulltextVisibility(scope, aggregate, index);
}

/**
 * A fulltext index is public or private, never both: a search ranks by the whole
 * indexed document, so a public query's scores would reveal how many words a private field holds.
 * Reported at the first field whose visibility differs from the index's first field.
 */
function checkFulltextVisibility(scope: Scope, aggregate: AggregateDecl, index: IndexDecl): void {
  const fields = index.fields.flatMap((name) => {
    const field = aggregate.fields.find((f) => f.name.name === name.name);
    return field === undefined ? [] : [{ name, visibility: field.visibility }];
  });
  const first = fields[0];
  const other = fields.find((f) => f.visibility !== first?.visibility);
  if (first === undefined || other === undefined) return;
  const [hidden, shown] = first.visibility === "private" ? [first, other] : [other, first];
  scope.report("C0228", other.name.span, index.name.name, hidden.name.name, shown.name.name);
}
