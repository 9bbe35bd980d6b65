/**
 * @module Checks `state.FIELD = EXPR` lines, shared by `apply` and `migrate`: the field exists, is
 * assigned at most once, and the value's type can be stored in it. A Text value longer than the
 * field is refused at run time (`text_too_long`), except a literal, whose length is known now.
 * In a migrate block an enum value may also move to a changed enum that still lists it by name
 * (`state.status = old.status` after adding a value); a value the new enum lacks is a type error.
 */
import type { AggregateDecl, Assignment, Type } from "../ast.ts";
import type { ExprEnv } from "./env.ts";
import { fieldAdvice, quotedValueAdvice } from "./advice.ts";
import { checkExpr } from "./expressions.ts";
import { codePoints } from "./literals.ts";
import { assignable, typeName } from "./types.ts";

/** Checks each assignment against the aggregate's fields. */
export function checkAssignments(env: ExprEnv, aggregate: AggregateDecl, assignments: readonly Assignment[]): void {
  const fits = (target: Type, found: Type) =>
    assignable(target, found) || (env.place === "migrate" && target.kind === "Enum" && found.kind === "Enum" && found.values.every((v) => target.values.includes(v)));
  const assigned = new Set<string>();
  for (const a of assignments) {
    const name = a.field.name;
    const field = aggregate.fields.find((f) => f.name.name === name);
    if (field === undefined) env.scope.report("C0213", a.field.span, name, aggregate.name.name, fieldAdvice(aggregate, name));
    else if (assigned.has(name)) env.scope.report("C0219", a.field.span, name);
    assigned.add(name);
    const target = field?.resolvedType ?? null;
    const found = checkExpr(env, a.value, target);
    if (target === null || found === null) continue;
    if (!fits(target, found)) env.scope.report("C0313", a.value.span, typeName(found), name, typeName(target), quotedValueAdvice(target, a.value, `state.${name}`));
    else if (target.kind === "Text" && a.value.kind === "TextLit" && codePoints(a.value.value) > target.len) {
      env.scope.report("C0319", a.value.span, codePoints(a.value.value), typeName(target));
    }
  }
}
