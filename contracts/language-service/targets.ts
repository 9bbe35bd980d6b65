/**
 * @module What a name under the cursor is: a field, a parameter, an enum value, a query column, a
 * `context.` name, a reference to a declared type, a declaration's own name or a stage keyword. Hover
 * and go-to-definition both start here, on a checked tree whose spans match the text.
 */
import type { ActionDecl, AggregateDecl, Contract, Expr, FieldDecl, Ident, ParamDecl, QueryDecl, RecordDecl, Span, Stage, Type, TypeExpr } from "../ast.ts";
import { touches } from "./positions.ts";

/** A declaration that has a name of its own. */
export type Named = AggregateDecl | ActionDecl | QueryDecl | RecordDecl | { readonly kind: "EnumDecl"; readonly name: Ident; readonly values: readonly Ident[]; readonly span: Span };

export type Target =
  | { readonly kind: "field"; readonly aggregate: AggregateDecl; readonly field: FieldDecl; readonly span: Span }
  | { readonly kind: "record-field"; readonly record: RecordDecl; readonly field: RecordDecl["fields"][number]; readonly span: Span }
  | { readonly kind: "param"; readonly owner: ActionDecl | QueryDecl; readonly param: ParamDecl; readonly span: Span }
  | { readonly kind: "enum-value"; readonly value: string; readonly type: Type | null; readonly span: Span }
  | { readonly kind: "column"; readonly query: QueryDecl; readonly name: string; readonly stage: number; readonly span: Span }
  | { readonly kind: "context"; readonly name: string; readonly span: Span }
  | { readonly kind: "type-name"; readonly name: string; readonly span: Span }
  | { readonly kind: "declaration"; readonly decl: Named; readonly span: Span }
  | { readonly kind: "stage"; readonly stage: Stage; readonly span: Span };

/** Where an expression sits: the aggregate whose `state.` it reads, and the action or query around it. */
interface Place {
  readonly contract: Contract;
  readonly aggregate: AggregateDecl | null;
  readonly owner: ActionDecl | QueryDecl | null;
  readonly stage: number;
}

/** The target at `offset`, or null when the cursor is on nothing with a meaning of its own. */
export function targetAt(contract: Contract, offset: number): Target | null {
  for (const d of contract.decls) {
    if (!touches(d.span, offset)) continue;
    switch (d.kind) {
      case "EnumDecl":
        if (touches(d.name.span, offset)) return { kind: "declaration", decl: d, span: d.name.span };
        return enumValues(d.values, { kind: "Enum", values: d.values.map((v) => v.name), name: d.name.name }, offset);
      case "RecordDecl":
        if (touches(d.name.span, offset)) return { kind: "declaration", decl: d, span: d.name.span };
        for (const f of d.fields) {
          if (touches(f.name.span, offset)) return { kind: "record-field", record: d, field: f, span: f.name.span };
          if (touches(f.type.span, offset)) return typeTarget(f.type, offset);
        }
        return null;
      case "AggregateDecl":
        return inAggregate(contract, d, offset);
      case "QueryDecl":
        return inQuery(contract, d, offset);
      case "MigrateDecl": {
        if (touches(d.aggregate.span, offset)) return { kind: "type-name", name: d.aggregate.name, span: d.aggregate.span };
        const aggregate = aggregateNamed(contract, d.aggregate.name);
        for (const a of d.assignments) {
          if (touches(a.field.span, offset)) return fieldTarget(aggregate, a.field);
          if (touches(a.value.span, offset)) return exprTarget({ contract, aggregate, owner: null, stage: 0 }, a.value, offset);
        }
        return null;
      }
      default: {
        const never: never = d;
        return never;
      }
    }
  }
  return null;
}

/** The aggregate called `name`, if this contract declares one. */
export function aggregateNamed(contract: Contract, name: string): AggregateDecl | null {
  return (contract.decls.find((d) => d.kind === "AggregateDecl" && d.name.name === name) as AggregateDecl | undefined) ?? null;
}

function inAggregate(contract: Contract, agg: AggregateDecl, offset: number): Target | null {
  if (touches(agg.name.span, offset)) return { kind: "declaration", decl: agg, span: agg.name.span };
  const place: Place = { contract, aggregate: agg, owner: null, stage: 0 };
  for (const f of agg.fields) {
    if (!touches(f.span, offset)) continue;
    if (touches(f.name.span, offset)) return { kind: "field", aggregate: agg, field: f, span: f.name.span };
    if (touches(f.type.span, offset)) return typeTarget(f.type, offset);
    if (f.default !== null && touches(f.default.span, offset)) return exprTarget(place, f.default, offset);
  }
  for (const index of agg.indexes) for (const f of index.fields) if (touches(f.span, offset)) return fieldTarget(agg, f);
  for (const action of agg.actions) {
    if (!touches(action.span, offset)) continue;
    if (touches(action.name.span, offset)) return { kind: "declaration", decl: action, span: action.name.span };
    const inAction: Place = { contract, aggregate: agg, owner: action, stage: 0 };
    const param = paramTarget(action, offset);
    if (param !== undefined) return param;
    if (action.authorize?.mode === "field" && touches(action.authorize.field.span, offset)) return fieldTarget(agg, action.authorize.field);
    for (const c of action.validate) if (touches(c.expr.span, offset)) return exprTarget(inAction, c.expr, offset);
    for (const a of action.apply) {
      if (touches(a.field.span, offset)) return fieldTarget(agg, a.field);
      if (touches(a.value.span, offset)) return exprTarget(inAction, a.value, offset);
    }
  }
  return null;
}

function inQuery(contract: Contract, q: QueryDecl, offset: number): Target | null {
  if (touches(q.name.span, offset)) return { kind: "declaration", decl: q, span: q.name.span };
  const param = paramTarget(q, offset);
  if (param !== undefined) return param;
  if (touches(q.returns.span, offset)) return { kind: "type-name", name: q.returns.name, span: q.returns.span };
  const sources = q.source.kind === "Union" ? q.source.sources : [q.source];
  for (const s of sources) if (touches(s.name.span, offset)) return { kind: "type-name", name: s.name.name, span: s.name.span };
  const column = (name: Ident, stage: number): Target => ({ kind: "column", query: q, name: name.name, stage, span: name.span });
  for (const [i, stage] of q.stages.entries()) {
    if (!touches(stage.span, offset)) continue;
    const keyword: Span = [stage.span[0], stage.span[0] + stage.kind.length];
    if (touches(keyword, offset)) return { kind: "stage", stage, span: keyword };
    const place: Place = { contract, aggregate: null, owner: q, stage: i };
    const exprs: Expr[] = [];
    const idents: Ident[] = [];
    const produced: Ident[] = [];
    switch (stage.kind) {
      case "Where": exprs.push(stage.expr); break;
      case "Sort": idents.push(...stage.keys.map((k) => k.field)); break;
      case "Take": case "Drop": exprs.push(stage.count); break;
      case "Select": for (const item of stage.items) { exprs.push(item.expr); if (item.alias) produced.push(item.alias); } break;
      case "Let": exprs.push(stage.expr); produced.push(stage.name); break;
      case "Explode": idents.push(stage.field); if (stage.alias) produced.push(stage.alias); break;
      case "Summarize": for (const a of stage.aggregations) { exprs.push(a.call); if (a.alias) produced.push(a.alias); } idents.push(...stage.by); break;
      case "Search": exprs.push(stage.text); idents.push(...stage.fields); break;
      case "Nearest": exprs.push(stage.to, stage.k); idents.push(stage.field); break;
      case "Latest": break;
      case "Asof": exprs.push(stage.time); break;
      case "Traverse": idents.push(stage.field); if (stage.depth) exprs.push(stage.depth); break;
      case "Shortest": exprs.push(stage.to); idents.push(stage.field); break;
      default: { const never: never = stage; return never; }
    }
    for (const id of idents) if (touches(id.span, offset)) return column(id, i);
    for (const id of produced) if (touches(id.span, offset)) return column(id, i + 1);
    for (const e of exprs) if (touches(e.span, offset)) return exprTarget(place, e, offset);
  }
  return null;
}

function paramTarget(owner: ActionDecl | QueryDecl, offset: number): Target | null | undefined {
  for (const p of owner.params) {
    if (touches(p.name.span, offset)) return { kind: "param", owner, param: p, span: p.name.span };
    if (touches(p.type.span, offset)) return typeTarget(p.type, offset);
  }
  return undefined;
}

function fieldTarget(agg: AggregateDecl | null, name: Ident): Target | null {
  const field = agg?.fields.find((f) => f.name.name === name.name);
  return agg && field ? { kind: "field", aggregate: agg, field, span: name.span } : null;
}

function enumValues(values: readonly Ident[], type: Type, offset: number): Target | null {
  const v = values.find((id) => touches(id.span, offset));
  return v ? { kind: "enum-value", value: v.name, type, span: v.span } : null;
}

function typeTarget(t: TypeExpr, offset: number): Target | null {
  switch (t.kind) {
    case "NamedType": return { kind: "type-name", name: t.name.name, span: t.name.span };
    case "RefType": return touches(t.aggregate.span, offset) ? { kind: "type-name", name: t.aggregate.name, span: t.aggregate.span } : null;
    case "ListType": return touches(t.element.span, offset) ? typeTarget(t.element, offset) : null;
    case "EnumType": return enumValues(t.values, { kind: "Enum", values: t.values.map((v) => v.name) }, offset);
    default: return null;
  }
}

function exprTarget(place: Place, e: Expr, offset: number): Target | null {
  switch (e.kind) {
    case "Binary":
      return touches(e.left.span, offset) ? exprTarget(place, e.left, offset) : touches(e.right.span, offset) ? exprTarget(place, e.right, offset) : null;
    case "Unary":
      return exprTarget(place, e.operand, offset);
    case "Call":
      for (const a of e.args) if (touches(a.span, offset)) return exprTarget(place, a, offset);
      return null;
    case "StateField":
    case "OldField":
      return fieldTarget(place.aggregate, e.field);
    case "Context":
      return { kind: "context", name: e.field.name, span: e.span };
    case "QueryParam": {
      const param = place.owner?.params.find((p) => p.name.name === e.name.name);
      return place.owner && param ? { kind: "param", owner: place.owner, param, span: e.span } : null;
    }
    case "Name": {
      const r = e.resolved;
      if (r?.kind === "enum-value") return { kind: "enum-value", value: r.value, type: e.type ?? null, span: e.span };
      if (r?.kind === "column" && place.owner?.kind === "QueryDecl") return { kind: "column", query: place.owner, name: r.name, stage: place.stage, span: e.span };
      const param = place.owner?.params.find((p) => p.name.name === e.name);
      return r?.kind === "param" && place.owner && param ? { kind: "param", owner: place.owner, param, span: e.span } : null;
    }
    default:
      return null;
  }
}
