/**
 * @module Compiles one checked query expression (reference §5, typed by the checker) to an SQL
 * fragment over the current columns. Values never enter the SQL text: literals and `$params`
 * become named placeholders. The language's semantics are kept where SQLite's differ:
 *
 * - `==`/`!=` on values that may be unset (Identity, Ref) use `IS`/`IS NOT`: two unset values are
 *   equal, an unset and a set one are not; on other types plain `=`/`<>`, which indexes serve.
 * - ordering comparisons with an unset operand do not hold (not NULL, which `not` would keep NULL).
 * - Int arithmetic is 64-bit and fails on overflow or division by zero (int-functions.ts).
 * - `and`/`or` short-circuit, as in actions (`false and 1 / 0 == 0` fails nothing): where the
 *   right side could fail, they become a CASE, which SQLite evaluates in order; elsewhere they
 *   stay AND/OR, which the planner may reorder and serve from indexes.
 * - `len` counts characters of a text (SQLite's `length` on TEXT) or elements of a list (JSON).
 */
import type { SQLInputValue } from "node:sqlite";
import type { Expr, Type } from "../ast.ts";
import { INT_FUNCTION, NEG_FUNCTION } from "./sql-functions.ts";

/** A column visible to a stage: its SQL over the current FROM, and its type. */
export interface ColumnRef {
  readonly sql: string;
  readonly type: Type;
  /** The column may hold no value even though its type always has one (`min`/`max`/`avg` over no rows). */
  readonly unset?: boolean;
}

/** A feature the reader does not compile yet: answered 501, naming it. */
export class UnsupportedQuery extends Error {
  readonly feature: string;
  constructor(feature: string) {
    super(`queries with ${feature} are not served yet`);
    this.feature = feature;
  }
}

/** Where an expression is compiled: the columns in scope and the statement's placeholders. */
export interface ExprScope {
  readonly columns: ReadonlyMap<string, ColumnRef>;
  /** A placeholder for a constant of the query's text. */
  literal(value: SQLInputValue): string;
  /** The placeholder of `$name`. */
  param(name: string): string;
}

const nullable = (t: Type | undefined) => t?.kind === "Identity" || t?.kind === "Ref" || t?.kind === "Vector";

function column(scope: ExprScope, name: string): string {
  const ref = scope.columns.get(name);
  if (ref === undefined) throw new Error(`the checker let through an unknown column '${name}'`);
  return ref.sql;
}

/** The SQL of `e`. */
export function exprSql(scope: ExprScope, e: Expr): string {
  switch (e.kind) {
    case "IntLit":
      return scope.literal(BigInt(e.value));
    case "TextLit":
      return scope.literal(e.value);
    case "BoolLit":
      return scope.literal(e.value ? 1 : 0);
    case "Name":
      if (e.resolved?.kind === "enum-value") return scope.literal(e.resolved.value);
      if (e.resolved?.kind === "param") return scope.param(e.resolved.name);
      return column(scope, e.resolved?.name ?? e.name);
    case "QueryParam":
      return scope.param(e.name.name);
    case "Binary":
      return binarySql(scope, e);
    case "Unary": {
      const operand = exprSql(scope, e.operand);
      return e.op === "not" ? `(NOT ${operand})` : `${NEG_FUNCTION}(${operand})`;
    }
    case "Call":
      return callSql(scope, e);
    case "StateField":
    case "OldField":
    case "Context":
      throw new Error(`${e.kind} cannot appear in a query (the checker reports it)`);
    default: {
      const never: never = e;
      throw new Error(`unknown expression ${String((never as Expr).kind)}`);
    }
  }
}

/** Whether `e` may have no value: an unset Identity/Ref/Vector, or an aggregate over no rows (and what is computed from it). */
function mayBeUnset(scope: ExprScope, e: Expr): boolean {
  switch (e.kind) {
    case "Name":
      return nullable(e.type) || (e.resolved?.kind !== "param" && e.resolved?.kind !== "enum-value" && scope.columns.get(e.resolved?.kind === "column" ? e.resolved.name : e.name)?.unset === true);
    case "Binary":
      return ["+", "-", "*", "/", "%"].includes(e.op) && (mayBeUnset(scope, e.left) || mayBeUnset(scope, e.right));
    case "Unary":
      return e.op === "-" && mayBeUnset(scope, e.operand);
    case "Call":
      return e.args.some((a) => mayBeUnset(scope, a));
    default:
      return nullable(e.type);
  }
}

function binarySql(scope: ExprScope, e: Extract<Expr, { kind: "Binary" }>): string {
  const l = exprSql(scope, e.left);
  const r = exprSql(scope, e.right);
  const unset = mayBeUnset(scope, e.left) || mayBeUnset(scope, e.right);
  switch (e.op) {
    case "and":
      return mayFail(e.right) ? `(CASE WHEN ${l} THEN ${r} ELSE 0 END)` : `(${l} AND ${r})`;
    case "or":
      return mayFail(e.right) ? `(CASE WHEN ${l} THEN 1 ELSE ${r} END)` : `(${l} OR ${r})`;
    case "==":
      return unset ? `(${l} IS ${r})` : `(${l} = ${r})`;
    case "!=":
      return unset ? `(${l} IS NOT ${r})` : `(${l} <> ${r})`;
    case "<":
    case "<=":
    case ">":
    case ">=":
      return unset ? `coalesce(${l} ${e.op} ${r}, 0)` : `(${l} ${e.op} ${r})`;
    case "+":
      if (e.left.type?.kind === "Text") return `(${l} || ${r})`;
      return `${INT_FUNCTION}('+', ${l}, ${r})`;
    case "-":
    case "*":
    case "/":
    case "%":
      return `${INT_FUNCTION}('${e.op}', ${l}, ${r})`;
    case "in": {
      // Lists are stored as JSON arrays; large Ints inside them as decimal strings, hence the cast.
      const element = e.right.type?.kind === "List" && e.right.type.element.kind === "Int" ? "CAST(value AS INTEGER)" : "value";
      return `EXISTS (SELECT 1 FROM json_each(${r}) WHERE ${element} IS ${l})`;
    }
    default: {
      const never: never = e.op;
      throw new Error(`unknown operator ${String(never)}`);
    }
  }
}

/** Whether evaluating `e` can fail (Int arithmetic or negation). */
function mayFail(e: Expr): boolean {
  switch (e.kind) {
    case "Binary":
      return (["+", "-", "*", "/", "%"].includes(e.op) && e.left.type?.kind === "Int") || mayFail(e.left) || mayFail(e.right);
    case "Unary":
      return e.op === "-" || mayFail(e.operand);
    case "Call":
      return e.args.some(mayFail);
    default:
      return false;
  }
}

function callSql(scope: ExprScope, e: Extract<Expr, { kind: "Call" }>): string {
  const arg = e.args[0];
  if (e.fn.name === "len" && arg !== undefined) {
    const sql = exprSql(scope, arg);
    return arg.type?.kind === "List" ? `json_array_length(${sql})` : `length(${sql})`;
  }
  throw new UnsupportedQuery(`${e.fn.name}(…)`);
}
