/**
 * @module Typing of operators (reference §5): `==`/`!=` need one type on both sides (an enum against
 * text is "invalid eq types", reported at the left operand's start, which is where the comparison
 * begins); `< <= > >=` need two Int, Date or Text values; arithmetic needs Int, and `+` also joins
 * Text; `and`/`or`/`not` need Bool; `x in list` needs a List of x's type. Vectors are never operands.
 * A mismatch caused by a quoted value (`"New"` for an enum value, `"5"` for a number) carries advice.
 */
import type { Expr, Type } from "../ast.ts";
import type { ExprEnv } from "./env.ts";
import { enumTextAdvice, operandName, quotedValueAdvice } from "./advice.ts";
import { checkExpr, isContextual } from "./expressions.ts";
import { MAX_TEXT_LEN } from "../limits.ts";
import { BOOL, INT, comparable, orderable, typeName } from "./types.ts";

type Binary = Extract<Expr, { kind: "Binary" }>;
type Unary = Extract<Expr, { kind: "Unary" }>;

/** The type of a binary expression. */
export function checkBinary(env: ExprEnv, e: Binary): Type | null {
  const report = env.scope.report;
  switch (e.op) {
    case "and":
    case "or": {
      const l = checkExpr(env, e.left, BOOL);
      const r = checkExpr(env, e.right, BOOL);
      if (l !== null && r !== null && (l.kind !== "Bool" || r.kind !== "Bool")) report("C0304", e.span, e.op, typeName(l), typeName(r));
      return BOOL;
    }
    case "==":
    case "!=": {
      const [l, r] = checkPair(env, e.left, e.right);
      if (l === null || r === null) return BOOL;
      if (l.kind === "Vector" || r.kind === "Vector") report("C0316", e.span);
      else if (!comparable(l, r)) {
        if (l.kind === "Enum" && r.kind === "Text") report("C0201", e.span, typeName(l), e.op, typeName(r), enumTextAdvice(l, operandName(e.left), e.right));
        else if (l.kind === "Text" && r.kind === "Enum") report("C0201", e.span, typeName(l), e.op, typeName(r), enumTextAdvice(r, operandName(e.right), e.left));
        else report("C0202", e.span, e.op, typeName(l), typeName(r), pairAdvice(l, r, e));
      }
      return BOOL;
    }
    case "<":
    case "<=":
    case ">":
    case ">=": {
      const [l, r] = checkPair(env, e.left, e.right);
      if (l === null || r === null) return BOOL;
      if (l.kind === "Vector" || r.kind === "Vector") report("C0316", e.span);
      else if (!(orderable(l, env.place === "query") && l.kind === r.kind)) report("C0302", e.span, e.op, typeName(l), typeName(r), pairAdvice(l, r, e));
      return BOOL;
    }
    case "+":
    case "-":
    case "*":
    case "/":
    case "%": {
      const l = checkExpr(env, e.left, INT);
      const r = checkExpr(env, e.right, INT);
      if (l === null || r === null) return null;
      if (l.kind === "Vector" || r.kind === "Vector") {
        report("C0316", e.span);
        return null;
      }
      if (l.kind === "Int" && r.kind === "Int") return INT;
      if (e.op === "+" && l.kind === "Text" && r.kind === "Text") return { kind: "Text", len: Math.min(MAX_TEXT_LEN, l.len + r.len) };
      report("C0303", e.span, e.op, typeName(l), typeName(r), pairAdvice(l, r, e));
      return null;
    }
    case "in": {
      const list = checkExpr(env, e.right);
      const element = checkExpr(env, e.left, list?.kind === "List" ? list.element : null);
      if (list === null || element === null) return BOOL;
      if (list.kind === "Vector" || element.kind === "Vector") report("C0316", e.span);
      else if (list.kind !== "List" || !comparable(element, list.element)) report("C0307", e.span, typeName(element), typeName(list));
      return BOOL;
    }
    default: {
      const never: never = e.op;
      return never;
    }
  }
}

/** The type of `not x` or `-x`. */
export function checkUnary(env: ExprEnv, e: Unary): Type | null {
  const expected = e.op === "not" ? BOOL : INT;
  const t = checkExpr(env, e.operand, expected);
  if (t === null) return expected;
  if (t.kind === "Vector") env.scope.report("C0316", e.span);
  else if (t.kind !== expected.kind) env.scope.report("C0305", e.span, e.op === "not" ? "not" : "unary -", expected.kind, typeName(t));
  return expected;
}

/** Advice when one operand is a quoted value the other side's type writes bare. */
function pairAdvice(l: Type, r: Type, e: Binary): string {
  return quotedValueAdvice(l, e.right, operandName(e.left)) || quotedValueAdvice(r, e.left, operandName(e.right));
}

/** Types two operands that must agree, letting a context-typed side (enum value, text) follow the other. */
function checkPair(env: ExprEnv, left: Expr, right: Expr): [Type | null, Type | null] {
  if (isContextual(env, left) && !isContextual(env, right)) {
    const r = checkExpr(env, right);
    return [checkExpr(env, left, r), r];
  }
  const l = checkExpr(env, left);
  return [l, checkExpr(env, right, l)];
}
