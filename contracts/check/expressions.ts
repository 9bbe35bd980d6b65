/**
 * @module Types an expression (reference §5) and annotates it in place: `type` on every node that
 * has one, `resolved` on bare names. Typing is bidirectional only where the language needs it: a
 * bare enum value takes the enum type its context expects (`state.status == New`), and a text
 * literal where a Date is expected must be a calendar date (`state.due < "2026-12-31"`). A node
 * whose type cannot be known is left untyped and reported once; its parents stay quiet.
 */
import type { Expr, Type } from "../ast.ts";
import { didYouMean, enumValuesAdvice, fieldAdvice } from "./advice.ts";
import { checkCall } from "./calls.ts";
import { placeName, type ExprEnv } from "./env.ts";
import { codePoints, intInRange, isDate } from "./literals.ts";
import { checkBinary, checkUnary } from "./operators.ts";
import { BOOL, DATE, IDENTITY, INT, typeName } from "./types.ts";

/** The type of `expr` in `env` (null when it cannot be typed), with `expected` guiding enum values and dates. */
export function checkExpr(env: ExprEnv, expr: Expr, expected?: Type | null): Type | null {
  const t = infer(env, expr, expected ?? null);
  if (t !== null) expr.type = t;
  return t;
}

/** Whether an expression's type depends on what its context expects (a bare enum value, a text literal). */
export function isContextual(env: ExprEnv, expr: Expr): boolean {
  if (expr.kind === "TextLit") return true;
  if (expr.kind !== "Name") return false;
  if (env.place === "action" && env.params.has(expr.name)) return false;
  if (env.place === "query" && env.columns.some((c) => c.name === expr.name)) return false;
  return true;
}

function infer(env: ExprEnv, expr: Expr, expected: Type | null): Type | null {
  switch (expr.kind) {
    case "IntLit":
      if (!intInRange(expr.value)) env.scope.report("C0315", expr.span, expr.value.length > 30 ? `${expr.value.slice(0, 24)}…` : expr.value);
      return INT;
    case "TextLit":
      if (expected?.kind !== "Date") return { kind: "Text", len: codePoints(expr.value) };
      if (isDate(expr.value)) return DATE;
      env.scope.report("C0320", expr.span, expr.value.length > 30 ? `${expr.value.slice(0, 24)}…` : expr.value);
      return null;
    case "BoolLit":
      return BOOL;
    case "Name":
      return checkName(env, expr, expected);
    case "StateField":
      return checkStateField(env, expr);
    case "OldField":
      return checkOldField(env, expr);
    case "Context":
      if (env.place !== "action") {
        env.scope.report("C0225", expr.span, placeName(env.place));
        return null;
      }
      if (expr.field.name === "signer") return IDENTITY;
      if (expr.field.name === "time") return INT;
      env.scope.report("C0215", expr.field.span, expr.field.name);
      return null;
    case "QueryParam":
      if (env.place !== "query") {
        env.scope.report("C0217", expr.span);
        return null;
      }
      return env.params.get(expr.name.name) ?? reportNull(env, () => env.scope.report("C0404", expr.name.span, expr.name.name));
    case "Binary":
      return checkBinary(env, expr);
    case "Unary":
      return checkUnary(env, expr);
    case "Call":
      return checkCall(env, expr, expected);
    default: {
      const never: never = expr;
      return never;
    }
  }
}

function checkName(env: ExprEnv, expr: Extract<Expr, { kind: "Name" }>, expected: Type | null): Type | null {
  const param = env.place === "action" ? env.params.get(expr.name) : undefined;
  if (param !== undefined) {
    expr.resolved = { kind: "param", name: expr.name };
    return param;
  }
  const column = env.place === "query" ? env.columns.find((c) => c.name === expr.name) : undefined;
  if (column !== undefined) {
    expr.resolved = { kind: "column", name: expr.name };
    return column.type;
  }
  const owners = env.scope.enumTypes.filter((t) => t.kind === "Enum" && t.values.includes(expr.name));
  // Where an enum is expected, a bare name can only be one of its values (a parameter or column was tried first).
  if (expected?.kind === "Enum" && (owners.length > 0 || env.place === "default")) {
    if (!expected.values.includes(expr.name)) {
      env.scope.report("C0226", expr.span, expr.name, typeName(expected), enumValuesAdvice(expected));
      return null;
    }
    expr.resolved = { kind: "enum-value", value: expr.name };
    return expected;
  }
  const owner = owners[0];
  if (owner !== undefined) {
    expr.resolved = { kind: "enum-value", value: expr.name };
    return owner;
  }
  if (env.place !== "query") {
    const known = [...env.params.keys(), ...env.scope.enumTypes.flatMap((t) => (t.kind === "Enum" ? t.values : []))];
    env.scope.report("C0214", expr.span, expr.name, didYouMean(expr.name, known));
  } else {
    const aggregate = env.privateFields.get(expr.name);
    if (aggregate !== undefined) env.scope.report("C0421", expr.span, expr.name, aggregate);
    else env.scope.report("C0403", expr.span, expr.name, columnList(env));
  }
  return null;
}

function checkStateField(env: ExprEnv, expr: Extract<Expr, { kind: "StateField" }>): Type | null {
  if (env.place !== "action") {
    const hint = env.place === "migrate" ? ": read the previous version with old.FIELD" : env.place === "query" ? ": name the column without state." : "";
    env.scope.report("C0218", expr.span, placeName(env.place), hint);
    return null;
  }
  const aggregate = env.aggregate;
  if (aggregate === null) return null;
  const field = aggregate.fields.find((f) => f.name.name === expr.field.name);
  if (field === undefined) {
    env.scope.report("C0213", expr.field.span, expr.field.name, aggregate.name.name, fieldAdvice(aggregate, expr.field.name));
    return null;
  }
  return field.resolvedType ?? null;
}

function checkOldField(env: ExprEnv, expr: Extract<Expr, { kind: "OldField" }>): Type | null {
  if (env.place !== "migrate") {
    env.scope.report("C0216", expr.span);
    return null;
  }
  const name = expr.field.name;
  if (env.previous !== null) {
    const t = env.previous.get(name);
    if (t === undefined) env.scope.report("C0504", expr.field.span, name, env.aggregate?.name.name ?? "");
    return t ?? null;
  }
  // Without the previous version, assume an unchanged field; the cross-version rules are skipped.
  return env.aggregate?.fields.find((f) => f.name.name === name)?.resolvedType ?? null;
}

/** The current columns, for "no column x here" messages. */
export function columnList(env: ExprEnv): string {
  return env.columns.length === 0 ? "none" : env.columns.map((c) => c.name).join(", ");
}

function reportNull(_env: ExprEnv, report: () => void): null {
  report();
  return null;
}
