/**
 * @module Go to definition: from a use of a field, parameter, enum value, record, aggregate or query
 * column to the name where it is declared. An enum value goes to the named enum that lists it, else
 * to the first inline `Enum(…)` with the same values; a column goes to the stage that made it, else to
 * the source aggregate's field.
 */
import type { Location } from "vscode-languageserver-protocol";
import type { Contract, Ident, QueryDecl, Type, TypeExpr } from "../ast.ts";
import { inBlock, treeAt, type ContractDocument } from "./document.ts";
import { rangeOf } from "./positions.ts";
import { aggregateNamed, targetAt, type Target } from "./targets.ts";

/** Where the name at `offset` is declared, or null. */
export function definition(doc: ContractDocument, uri: string, offset: number): Location | null {
  if (!inBlock(doc, offset)) return null;
  const contract = treeAt(doc, offset);
  if (contract === null) return null;
  const target = targetAt(contract, offset);
  const name = target === null ? null : declaredAt(contract, target);
  return name === null ? null : { uri, range: rangeOf(doc.lines, name.span) };
}

function declaredAt(contract: Contract, t: Target): Ident | null {
  switch (t.kind) {
    case "field":
      return t.field.name;
    case "record-field":
      return t.field.name;
    case "param":
      return t.param.name;
    case "declaration":
      return t.decl.name;
    case "type-name": {
      const decl = contract.decls.find((d) => d.kind !== "MigrateDecl" && d.name.name === t.name);
      return decl && decl.kind !== "MigrateDecl" ? decl.name : null;
    }
    case "enum-value":
      return enumValueDeclaration(contract, t.value, t.type);
    case "column":
      return columnDeclaration(contract, t.query, t.name, t.stage);
    case "context":
    case "stage":
      return null;
    default: {
      const never: never = t;
      return never;
    }
  }
}

function enumValueDeclaration(contract: Contract, value: string, type: Type | null): Ident | null {
  const values = type?.kind === "Enum" ? type.values : null;
  const same = (list: readonly Ident[]): boolean => values === null || (list.length === values.length && list.every((v, i) => v.name === values[i]));
  for (const d of contract.decls) {
    if (d.kind === "EnumDecl" && same(d.values)) {
      const hit = d.values.find((v) => v.name === value);
      if (hit) return hit;
    }
  }
  for (const t of typeExprs(contract)) {
    if (t.kind === "EnumType" && same(t.values)) {
      const hit = t.values.find((v) => v.name === value);
      if (hit) return hit;
    }
  }
  return null;
}

/** Every type written in the contract, in source order, list elements included. */
function typeExprs(contract: Contract): TypeExpr[] {
  const out: TypeExpr[] = [];
  const add = (t: TypeExpr): void => {
    out.push(t);
    if (t.kind === "ListType") add(t.element);
  };
  for (const d of contract.decls) {
    if (d.kind === "RecordDecl") d.fields.forEach((f) => add(f.type));
    if (d.kind === "QueryDecl") d.params.forEach((p) => add(p.type));
    if (d.kind === "AggregateDecl") {
      d.fields.forEach((f) => add(f.type));
      d.actions.forEach((a) => a.params.forEach((p) => add(p.type)));
    }
  }
  return out.sort((a, b) => a.span[0] - b.span[0]);
}

function columnDeclaration(contract: Contract, q: QueryDecl, name: string, stage: number): Ident | null {
  // Walk back through the stages: a stage that names the column declares it; one that passes it on
  // (a bare `select status`, `summarize … by status`) sends the search further back.
  for (let i = Math.min(stage, q.stages.length) - 1; i >= 0; i--) {
    const s = q.stages[i];
    if (s === undefined) continue;
    if (s.kind === "Let" && s.name.name === name) return s.name;
    if (s.kind === "Explode" && s.alias?.name === name) return s.alias;
    if (s.kind === "Select") {
      const item = s.items.find((it) => (it.alias?.name ?? (it.expr.kind === "Name" ? it.expr.name : null)) === name);
      if (item === undefined) return null;
      if (item.alias !== null) return item.alias;
    }
    if (s.kind === "Summarize") {
      const made = s.aggregations.find((a) => a.alias?.name === name);
      if (made?.alias) return made.alias;
      if (!s.by.some((b) => b.name === name)) return null;
    }
  }
  const source = q.source.kind === "Union" ? q.source.sources[0] : q.source;
  const agg = source ? aggregateNamed(contract, source.name.name) : null;
  return agg?.fields.find((f) => f.name.name === name)?.name ?? null;
}
