/**
 * @module Written types to checked types (`TypeExpr` → `Type`): sizes are declared, positive and
 * within the limits of `contracts/limits.ts`, a named type is an enum (or, in a
 * record, Float), `Ref<A>` names an aggregate, and lists hold scalar values. Problems are
 * reported; a usable type is still returned where one can be, so one mistake does not cascade.
 */
import type { Ident, Type, TypeExpr } from "../ast.ts";
import { noteEnumType, type Scope } from "./scope.ts";
import { MAX_LIST_CAP, MAX_TEXT_LEN, MAX_VECTOR_DIM } from "../limits.ts";
import { typeName } from "./types.ts";

/** Where a type is written: record fields may use Float (query rows); list elements must be scalar. */
export type TypePlace = "field" | "param" | "record" | "element";

/** The checked type of `texpr`, or null when it names nothing usable. */
export function resolveType(scope: Scope, texpr: TypeExpr, place: TypePlace): Type | null {
  switch (texpr.kind) {
    case "TextType":
      checkSize(scope, texpr.len, texpr, "Text", "length", MAX_TEXT_LEN, "Text(len=200)");
      return { kind: "Text", len: texpr.len };
    case "IntType":
      return { kind: "Int" };
    case "BoolType":
      return { kind: "Bool" };
    case "DateType":
      return { kind: "Date" };
    case "IdentityType":
      return { kind: "Identity" };
    case "EnumType": {
      checkDistinct(scope, texpr.values, "value", `in Enum(${texpr.values.map((v) => v.name).join(", ")})`);
      const t: Type = { kind: "Enum", values: texpr.values.map((v) => v.name) };
      noteEnumType(scope, t);
      return t;
    }
    case "RefType":
      if (!scope.aggregates.has(texpr.aggregate.name)) scope.report("C0210", texpr.aggregate.span, texpr.aggregate.name);
      return { kind: "Ref", aggregate: texpr.aggregate.name };
    case "ListType": {
      checkSize(scope, texpr.cap, texpr, "List", "capacity", MAX_LIST_CAP, "List<Int>(cap=100)");
      const element = resolveType(scope, texpr.element, "element");
      if (element === null) return null;
      if (element.kind === "List" || element.kind === "Vector" || element.kind === "Float") {
        scope.report("C0317", texpr.element.span, typeName(element));
        return null;
      }
      return { kind: "List", element, cap: texpr.cap };
    }
    case "VectorType":
      checkSize(scope, texpr.dim, texpr, "Vector", "dimension", MAX_VECTOR_DIM, "Vector(dim=384)");
      return { kind: "Vector", dim: texpr.dim };
    case "NamedType":
      return resolveNamed(scope, texpr.name, place);
    default: {
      const never: never = texpr;
      return never;
    }
  }
}

function resolveNamed(scope: Scope, name: Ident, place: TypePlace): Type | null {
  const declared = scope.enums.get(name.name);
  if (declared !== undefined) {
    const t: Type = { kind: "Enum", values: declared.values.map((v) => v.name), name: declared.name.name };
    noteEnumType(scope, t);
    return t;
  }
  if (name.name === "Float") {
    if (place === "record") return { kind: "Float" };
    scope.report("C0321", name.span);
    return null;
  }
  if (scope.aggregates.has(name.name)) scope.report("C0208", name.span, name.name);
  else if (scope.records.has(name.name)) scope.report("C0209", name.span, name.name);
  else scope.report("C0207", name.span, name.name);
  return null;
}

/** A size must be written and at least 1 (C0309), and at most its limit (C0322): sizes drive the program's memory. */
function checkSize(scope: Scope, size: number, texpr: TypeExpr, type: string, param: string, limit: number, example: string): void {
  if (!Number.isInteger(size) || size < 1) scope.report("C0309", texpr.span, type, param, limit, example);
  else if (size > limit) scope.report("C0322", texpr.span, type, param, size, limit);
}

/** Reports every repeat in a list of names: "duplicate WHAT `name` WHERE". */
export function checkDistinct(scope: Scope, names: readonly Ident[], what: string, where: string): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n.name)) scope.report("C0206", n.span, what, n.name, where === "" ? "" : ` ${where}`);
    seen.add(n.name);
  }
}
