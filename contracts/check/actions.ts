/**
 * @module Checks an action (reference §4): parameters, the required `authorize` line
 * (`state.FIELD` must name an Identity field), `validate` conditions that are Bool, `apply`
 * assignments, and the `merge commute` proof that every apply line adds an Int constant to an Int
 * field, so merged commands give the same state in any order; and its `effect` clauses (effects.ts).
 */
import type { ActionDecl, AggregateDecl, Assignment, Expr, Type } from "../ast.ts";
import { checkAssignments } from "./assignments.ts";
import { checkEffects } from "./effects.ts";
import { baseEnv, type ExprEnv } from "./env.ts";
import { fieldAdvice } from "./advice.ts";
import { checkExpr } from "./expressions.ts";
import { checkDistinct } from "./resolve-type.ts";
import type { Scope } from "./scope.ts";
import { BOOL, typeName } from "./types.ts";

/** Checks one action of `aggregate` (parameter types are already resolved). */
export function checkAction(scope: Scope, aggregate: AggregateDecl, action: ActionDecl): void {
  checkDistinct(scope, action.params.map((p) => p.name), "parameter", `in action ${action.name.name}`);
  const params = new Map<string, Type>();
  for (const p of action.params) if (p.resolvedType !== undefined && !params.has(p.name.name)) params.set(p.name.name, p.resolvedType);
  const env: ExprEnv = { ...baseEnv(scope, "action", aggregate), params };

  checkAuthorize(scope, aggregate, action);
  for (const condition of action.validate) {
    const t = checkExpr(env, condition.expr, BOOL);
    if (t !== null && t.kind !== "Bool") scope.report("C0301", condition.span, "a validate condition", typeName(t));
  }
  checkAssignments(env, aggregate, action.apply);
  checkEffects(env, action);
  if (action.merge?.mode === "commute") {
    for (const a of action.apply) if (!commutes(aggregate, a)) scope.report("C0314", a.span);
  }
}

function checkAuthorize(scope: Scope, aggregate: AggregateDecl, action: ActionDecl): void {
  const auth = action.authorize;
  if (auth === null) {
    scope.report("C0211", action.name.span, action.name.name);
    return;
  }
  if (auth.mode !== "field") return;
  const field = aggregate.fields.find((f) => f.name.name === auth.field.name);
  if (field === undefined) scope.report("C0213", auth.field.span, auth.field.name, aggregate.name.name, fieldAdvice(aggregate, auth.field.name));
  else if (field.resolvedType !== undefined && field.resolvedType.kind !== "Identity") {
    scope.report("C0312", auth.field.span, auth.field.name, typeName(field.resolvedType));
  }
}

/** `state.F = state.F + <Int literal>` or `state.F = <Int literal> + state.F`, with F an Int field. */
function commutes(aggregate: AggregateDecl, a: Assignment): boolean {
  const field = aggregate.fields.find((f) => f.name.name === a.field.name);
  if (field?.resolvedType?.kind !== "Int") return false;
  const v = a.value;
  if (v.kind !== "Binary" || v.op !== "+") return false;
  const self = (e: Expr) => e.kind === "StateField" && e.field.name === a.field.name;
  const constant = (e: Expr) => e.kind === "IntLit";
  return (self(v.left) && constant(v.right)) || (constant(v.left) && self(v.right));
}
