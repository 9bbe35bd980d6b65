/**
 * @module Expressions → WebAssembly. Operands are evaluated left to right; `and`/`or` short-circuit;
 * Int arithmetic refuses `overflow` / `division_by_zero` instead of wrapping or trapping.
 */
import type { BinaryOp, Expr, Type } from "../ast.ts";
import { parseDate } from "../dates.ts";
import { assertNever, strideOf } from "../layout.ts";
import { refusals } from "../refusals.ts";
import type { X } from "./binaryen.ts";
import { i32, i64, plus } from "./binaryen.ts";
import type { FnGen } from "./context.ts";
import { listContains, listRemove, textCmp } from "./helpers.ts";
import { eqValues, layoutKey, ld32, loadValue, st32, storeValue, valType } from "./values.ts";

/** Where names resolve: absolute slot addresses and types of state fields and parameters. */
export interface Scope {
  readonly fields: ReadonlyMap<string, { readonly type: Type; readonly at: number }>;
  readonly params: ReadonlyMap<string, { readonly type: Type; readonly at: number }>;
}

const INT64_MIN = -(2n ** 63n);

export function typeOf(e: Expr): Type {
  if (e.type === undefined) throw new Error(`unchecked expression ${e.kind} at ${e.span[0]}`);
  return e.type;
}

/** The narrowing reasons of the current site. */
export function narrowing(fn: FnGen): { tooLong: (len: number) => ReturnType<typeof refusals.textTooLong>; full: (cap: number) => ReturnType<typeof refusals.listFull> } {
  const site = fn.site;
  return { tooLong: (len) => refusals.textTooLong(site, len), full: (cap) => refusals.listFull(site, cap) };
}

export function compileExpr(fn: FnGen, scope: Scope, e: Expr): X {
  const m = fn.m;
  switch (e.kind) {
    case "IntLit":
      return m.i64.const(BigInt.asIntN(64, BigInt(e.value)));
    case "BoolLit":
      return m.i32.const(e.value ? 1 : 0);
    case "TextLit": {
      const t = typeOf(e);
      if (t.kind === "Date") {
        const days = parseDate(e.value);
        if (days === null) throw new Error(`checker passed an invalid date literal ${e.value}`);
        return m.i32.const(days);
      }
      return m.i32.const(fn.g.textLiteral(e.value));
    }
    case "Name": {
      const r = e.resolved;
      if (r?.kind === "enum-value") return m.i32.const(enumIndex(typeOf(e), r.value));
      if (r?.kind === "param") {
        const p = scope.params.get(r.name);
        if (p === undefined) throw new Error(`unknown parameter ${r.name}`);
        return loadValue(m, p.type, m.i32.const(p.at));
      }
      throw new Error(`name ${e.name} is not resolved to a parameter or an enum value`);
    }
    case "StateField": {
      const f = scope.fields.get(e.field.name);
      if (f === undefined) throw new Error(`unknown field ${e.field.name}`);
      return loadValue(m, f.type, m.i32.const(f.at));
    }
    case "Context":
      if (e.field.name === "signer") return m.i32.const(fn.g.layout.context.signer);
      if (e.field.name === "time") return m.i64.load(0, 8, m.i32.const(fn.g.layout.context.time));
      throw new Error(`unknown context.${e.field.name}`);
    case "Unary": {
      const v = compileExpr(fn, scope, e.operand);
      if (e.op === "not") return m.i32.eqz(v);
      const a = fn.local(i64);
      return m.block(null, [
        m.local.set(a, v),
        m.if(m.i64.eq(m.local.get(a, i64), m.i64.const(INT64_MIN)), fn.refuse(refusals.overflow(fn.site))),
        m.i64.sub(m.i64.const(0n), m.local.get(a, i64)),
      ], i64);
    }
    case "Binary":
      return compileBinary(fn, scope, e.op, e.left, e.right, typeOf(e));
    case "Call":
      return compileCall(fn, scope, e.fn.name, e.args, typeOf(e));
    case "OldField":
    case "QueryParam":
      throw new Error(`${e.kind} cannot appear in an action`);
    default:
      return assertNever(e);
  }
}

function enumIndex(t: Type, value: string): number {
  if (t.kind !== "Enum") throw new Error(`enum value ${value} typed ${t.kind}`);
  const i = t.values.indexOf(value);
  if (i < 0) throw new Error(`${value} is not a value of its enum`);
  return i;
}

/** Evaluates `left` then `right` (each once) and builds `combine` over them. */
function both(fn: FnGen, scope: Scope, left: Expr, right: Expr, combine: (a: () => X, b: () => X) => X, result: number): X {
  const m = fn.m;
  const a = fn.hold(m, compileExpr(fn, scope, left), valType(typeOf(left)));
  const b = fn.hold(m, compileExpr(fn, scope, right), valType(typeOf(right)));
  const body = combine(a.get, b.get);
  return a.pre.length + b.pre.length === 0 ? body : m.block(null, [...a.pre, ...b.pre, body], result);
}

function compileBinary(fn: FnGen, scope: Scope, op: BinaryOp, left: Expr, right: Expr, type: Type): X {
  const m = fn.m;
  const lt = typeOf(left);
  const rt = typeOf(right);
  switch (op) {
    case "and":
      return m.if(compileExpr(fn, scope, left), compileExpr(fn, scope, right), m.i32.const(0));
    case "or":
      return m.if(compileExpr(fn, scope, left), m.i32.const(1), compileExpr(fn, scope, right));
    case "==":
      return both(fn, scope, left, right, (a, b) => eqValues(fn.g, lt, rt, a(), b()), i32);
    case "!=":
      return both(fn, scope, left, right, (a, b) => m.i32.eqz(eqValues(fn.g, lt, rt, a(), b())), i32);
    case "<":
    case "<=":
    case ">":
    case ">=":
      return both(fn, scope, left, right, (a, b) => order(fn, op, lt, a(), b()), i32);
    case "in": {
      if (rt.kind !== "List") throw new Error("`in` needs a list on the right");
      return both(fn, scope, left, right, (a, b) => m.call(listContains(fn.g, rt, lt), [b(), a()], i32), i32);
    }
    case "+":
      if (type.kind === "Text") return concat(fn, scope, left, right, type);
      return both(fn, scope, left, right, (a, b) => checkedAdd(fn, a, b, false), i64);
    case "-":
      return both(fn, scope, left, right, (a, b) => checkedAdd(fn, a, b, true), i64);
    case "*":
      return both(fn, scope, left, right, (a, b) => checkedMul(fn, a, b), i64);
    case "/":
    case "%":
      return both(fn, scope, left, right, (a, b) => checkedDiv(fn, a, b, op === "%"), i64);
    default:
      return assertNever(op);
  }
}

function order(fn: FnGen, op: "<" | "<=" | ">" | ">=", t: Type, a: X, b: X): X {
  const m = fn.m;
  if (t.kind === "Int") return { "<": m.i64.lt_s, "<=": m.i64.le_s, ">": m.i64.gt_s, ">=": m.i64.ge_s }[op](a, b);
  const ops = { "<": m.i32.lt_s, "<=": m.i32.le_s, ">": m.i32.gt_s, ">=": m.i32.ge_s }[op];
  if (t.kind === "Date") return ops(a, b);
  if (t.kind === "Text") return ops(m.call(textCmp(fn.g), [a, b], i32), m.i32.const(0));
  throw new Error(`cannot order ${t.kind} values`);
}

/** a + b (or a - b): overflow when the result's sign disagrees with what the operands allow. */
function checkedAdd(fn: FnGen, a: () => X, b: () => X, subtract: boolean): X {
  const m = fn.m;
  const r = fn.local(i64);
  const g = (): X => m.local.get(r, i64);
  const sign = subtract ? m.i64.and(m.i64.xor(a(), b()), m.i64.xor(a(), g())) : m.i64.and(m.i64.xor(a(), g()), m.i64.xor(b(), g()));
  return m.block(null, [
    m.local.set(r, subtract ? m.i64.sub(a(), b()) : m.i64.add(a(), b())),
    m.if(m.i64.lt_s(sign, m.i64.const(0n)), fn.refuse(refusals.overflow(fn.site))),
    g(),
  ], i64);
}

/** a * b: overflow unless r / a == b (with a == -1 handled first so the check cannot trap). */
function checkedMul(fn: FnGen, a: () => X, b: () => X): X {
  const m = fn.m;
  const r = fn.local(i64);
  const overflowed = m.if(
    m.i64.eq(a(), m.i64.const(-1n)),
    m.i64.eq(b(), m.i64.const(INT64_MIN)),
    m.if(m.i64.eqz(a()), m.i32.const(0), m.i64.ne(m.i64.div_s(m.local.get(r, i64), a()), b())),
  );
  return m.block(null, [
    m.local.set(r, m.i64.mul(a(), b())),
    m.if(overflowed, fn.refuse(refusals.overflow(fn.site))),
    m.local.get(r, i64),
  ], i64);
}

/** a / b truncates toward zero, a % b takes the dividend's sign; b == 0 and MIN / -1 refuse. */
function checkedDiv(fn: FnGen, a: () => X, b: () => X, remainder: boolean): X {
  const m = fn.m;
  const steps = [m.if(m.i64.eqz(b()), fn.refuse(refusals.divisionByZero(fn.site)))];
  // i64.rem_s(MIN, -1) is 0 in WebAssembly (no trap), which is the true remainder; only the
  // quotient MIN / -1 overflows.
  if (!remainder) steps.push(m.if(m.i32.and(m.i64.eq(a(), m.i64.const(INT64_MIN)), m.i64.eq(b(), m.i64.const(-1n))), fn.refuse(refusals.overflow(fn.site))));
  return m.block(null, [...steps, remainder ? m.i64.rem_s(a(), b()) : m.i64.div_s(a(), b())], i64);
}

/** Text `+`: refuses when the joined text is longer than the expression's type allows. */
function concat(fn: FnGen, scope: Scope, left: Expr, right: Expr, type: Type & { kind: "Text" }): X {
  const m = fn.m;
  const la = typeOf(left);
  const lb = typeOf(right);
  if (la.kind !== "Text" || lb.kind !== "Text") throw new Error("text + non-text");
  const [ba, bb] = [textBound(left, la.len), textBound(right, lb.len)];
  const bound = Math.min(type.len, ba + bb);
  const dst = fn.alloc(8 + 4 * bound);
  const n = fn.local(i32);
  const p = (): X => fn.arenaAddress(dst);
  return both(fn, scope, left, right, (a, b) => {
    const steps: X[] = [];
    const cp = m.i32.add(m.i32.load(4, 4, a()), m.i32.load(4, 4, b()));
    if (ba + bb > type.len) {
      steps.push(m.if(m.i32.gt_u(cp, m.i32.const(type.len)), fn.refuse(refusals.textTooLong(fn.site, type.len))));
      steps.push(m.i32.store(4, 4, p(), m.i32.add(m.i32.load(4, 4, a()), m.i32.load(4, 4, b()))));
    } else {
      steps.push(m.i32.store(4, 4, p(), cp));
    }
    steps.push(
      m.local.set(n, ld32(m, a())),
      st32(m, p(), m.i32.add(m.local.get(n, i32), ld32(m, b()))),
      m.memory.copy(plus(m, p(), 8), plus(m, a(), 8), m.local.get(n, i32)),
      m.memory.copy(m.i32.add(plus(m, p(), 8), m.local.get(n, i32)), plus(m, b(), 8), ld32(m, b())),
      p(),
    );
    return m.block(null, steps, i32);
  }, i32);
}

/** The type a value is copied as: a text literal may be longer than the type the checker gave it. */
export function storedType(e: Expr): Type {
  const t = typeOf(e);
  return e.kind === "TextLit" && t.kind === "Text" ? { kind: "Text", len: textBound(e, t.len) } : t;
}

/** Most code points a text operand can hold: its type's length, or a literal's own length if longer. */
function textBound(e: Expr, len: number): number {
  return e.kind === "TextLit" ? Math.max(len, [...e.value].length) : len;
}

function compileCall(fn: FnGen, scope: Scope, name: string, args: readonly Expr[], type: Type): X {
  const m = fn.m;
  const [first, second] = args;
  if (first === undefined) throw new Error(`${name}() without arguments in an action`);
  const t0 = typeOf(first);
  if (name === "len") {
    const v = compileExpr(fn, scope, first);
    if (t0.kind === "Text") return m.i64.extend_u(m.i32.load(4, 4, v));
    if (t0.kind === "List") return m.i64.extend_u(ld32(m, v));
    throw new Error(`len of ${t0.kind}`);
  }
  if (second === undefined || t0.kind !== "List" || type.kind !== "List") throw new Error(`bad call ${name}`);
  const tx = storedType(second);
  if (name === "remove") {
    if (layoutKey(type) !== layoutKey(t0)) throw new Error("remove() result must share its list's layout");
    const dst = fn.alloc(8 + t0.cap * strideOf(t0.element));
    return both(fn, scope, first, second, (l, x) => m.call(listRemove(fn.g, t0, tx), [l(), x(), fn.arenaAddress(dst)], i32), i32);
  }
  if (name === "append") {
    const dst = fn.alloc(8 + type.cap * strideOf(type.element));
    const p = (): X => fn.arenaAddress(dst);
    const count = fn.local(i32);
    return both(fn, scope, first, second, (l, x) => m.block(null, [
      m.local.set(count, ld32(m, l())),
      m.if(m.i32.ge_u(m.local.get(count, i32), m.i32.const(type.cap)), fn.refuse(refusals.listFull(fn.site, type.cap))),
      storeValue(fn, t0, type, l(), p(), narrowing(fn)),
      storeValue(fn, tx, type.element, x(), m.i32.add(plus(m, p(), 8), m.i32.mul(m.local.get(count, i32), m.i32.const(strideOf(type.element)))), narrowing(fn)),
      st32(m, p(), m.i32.add(m.local.get(count, i32), m.i32.const(1))),
      p(),
    ], i32), i32);
  }
  throw new Error(`unknown function ${name} in an action`);
}
