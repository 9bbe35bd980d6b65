/**
 * @module Typing of function calls: `len(x)` for Text and lists, `append(list, x)` and
 * `remove(list, x)` in rules, and the aggregate functions `count()`, `sum(x)`, `min(x)`, `max(x)`,
 * `avg(x)` that only `summarize` may use.
 */
import type { Expr, Type } from "../ast.ts";
import type { ExprEnv } from "./env.ts";
import { checkExpr } from "./expressions.ts";
import { FLOAT, INT, comparable, orderable, typeName } from "./types.ts";

type Call = Extract<Expr, { kind: "Call" }>;

/** The aggregate functions of `summarize`. */
export const AGGREGATE_FUNCTIONS: readonly string[] = ["count", "sum", "min", "max", "avg"];

/** The type of a call. */
export function checkCall(env: ExprEnv, e: Call, expected: Type | null): Type | null {
  const fn = e.fn.name;
  if (AGGREGATE_FUNCTIONS.includes(fn)) return checkAggregate(env, e);
  switch (fn) {
    case "len": {
      if (!arity(env, e, 1)) return INT;
      const t = checkExpr(env, e.args[0] as Expr);
      if (t === null) return INT;
      if (t.kind === "Vector") env.scope.report("C0316", e.span);
      else if (t.kind !== "Text" && t.kind !== "List") env.scope.report("C0306", e.span, typeName(t));
      return INT;
    }
    case "append":
    case "remove": {
      if (!arity(env, e, 2)) return null;
      const list = checkExpr(env, e.args[0] as Expr, expected);
      const element = checkExpr(env, e.args[1] as Expr, list?.kind === "List" ? list.element : null);
      if (list === null || element === null) return list?.kind === "List" ? list : null;
      if (list.kind === "List" && comparable(element, list.element)) return list;
      env.scope.report("C0308", e.span, fn, typeName(list), typeName(element));
      return null;
    }
    default:
      env.scope.report("C0220", e.fn.span, fn, env.aggregates ? ": summarize uses count(), sum(), min(), max() or avg()" : ": use len(), append() or remove()");
      for (const arg of e.args) checkExpr(env, arg);
      return null;
  }
}

function checkAggregate(env: ExprEnv, e: Call): Type | null {
  const fn = e.fn.name;
  if (!env.aggregates) {
    env.scope.report("C0227", e.fn.span, fn);
    return null;
  }
  if (fn === "count") return arity(env, e, 0) ? INT : null;
  if (!arity(env, e, 1)) return null;
  const t = checkExpr(env, e.args[0] as Expr);
  if (t === null) return null;
  const numeric = t.kind === "Int" || t.kind === "Float";
  if (fn === "sum" && numeric) return t;
  if (fn === "avg" && numeric) return FLOAT;
  if ((fn === "min" || fn === "max") && orderable(t, true)) return t;
  env.scope.report("C0411", e.span, fn, typeName(t));
  return null;
}

/** Reports a wrong argument count (the arguments are still typed, for annotations); true when right. */
function arity(env: ExprEnv, e: Call, n: number): boolean {
  if (e.args.length === n) return true;
  env.scope.report("C0221", e.span, e.fn.name, n === 0 ? "no arguments" : n === 1 ? "1 argument" : `${n} arguments`, e.args.length);
  for (const arg of e.args) checkExpr(env, arg);
  return false;
}
