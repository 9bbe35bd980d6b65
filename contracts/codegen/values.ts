/**
 * @module How typed values live in WebAssembly: Int is an i64, Bool/Date/Enum an i32, and Text,
 * Identity, Ref, List and Vector an i32 address of their slot. Loading, comparing and storing
 * values of any type goes through here.
 */
import type { Type } from "../ast.ts";
import { assertNever, IDENTITY_BYTES, slotOf, strideOf } from "../layout.ts";
import type { Reason } from "../refusals.ts";
import type { Module, WasmType, X } from "./binaryen.ts";
import { i32, i64 } from "./binaryen.ts";
import type { FnGen, Locals, ModuleGen } from "./context.ts";
import { identEq, listEq, textEq } from "./helpers.ts";

/** The WebAssembly type a value of `t` travels as. */
export function valType(t: Type): WasmType {
  return t.kind === "Int" ? i64 : i32;
}

/** True when values of `t` are addresses of slots rather than immediate numbers. */
export function isAddressed(t: Type): boolean {
  return !(t.kind === "Int" || t.kind === "Bool" || t.kind === "Date" || t.kind === "Enum");
}

/** A key naming the byte layout of `t` (two types with one key can be copied byte for byte). */
export function layoutKey(t: Type): string {
  switch (t.kind) {
    case "Int":
      return "i";
    case "Bool":
    case "Date":
    case "Enum":
      return "w";
    case "Text":
      return `t${t.len}`;
    case "Identity":
    case "Ref":
      return "id";
    case "List":
      return `l${t.cap}_${layoutKey(t.element)}_`;
    case "Vector":
      return `v${t.dim}`;
    case "Float":
      throw new Error("Float values exist only in query results");
    default:
      return assertNever(t);
  }
}

export const ld32 = (m: Module, addr: X): X => m.i32.load(0, 4, addr);
export const st32 = (m: Module, addr: X, v: X): X => m.i32.store(0, 4, addr, v);

/** The value of type `t` held in the slot at `addr`. */
export function loadValue(m: Module, t: Type, addr: X): X {
  if (t.kind === "Int") return m.i64.load(0, 8, addr);
  if (isAddressed(t)) return addr;
  return m.i32.load(0, 4, addr);
}

/** `a == b` for values of types `ta` and `tb` (the checker made them one type). */
export function eqValues(g: ModuleGen, ta: Type, tb: Type, a: X, b: X): X {
  const m = g.m;
  switch (ta.kind) {
    case "Int":
      return m.i64.eq(a, b);
    case "Bool":
    case "Date":
    case "Enum":
      return m.i32.eq(a, b);
    case "Text":
      return m.call(textEq(g), [a, b], i32);
    case "Identity":
    case "Ref":
      return m.call(identEq(g), [a, b], i32);
    case "List":
      if (tb.kind !== "List") throw new Error("list compared with a non-list");
      return m.call(listEq(g, ta, tb), [a, b], i32);
    case "Vector":
    case "Float":
      throw new Error(`${ta.kind} values cannot be compared in actions`);
    default:
      return assertNever(ta);
  }
}

/** Reasons `storeValue` may refuse with when the target is narrower than the source. */
export interface Narrowing {
  readonly tooLong: (len: number) => Reason;
  readonly full: (cap: number) => Reason;
}

/**
 * Stores `value` (of type `src`) into the slot of type `dst` at `dst address`, refusing when a
 * text or list does not fit. Identity and Ref sources are always whole slots.
 */
export function storeValue(fn: FnGen, src: Type, dst: Type, value: X, addr: X, why: Narrowing): X {
  const m = fn.m;
  switch (dst.kind) {
    case "Int":
      return m.i64.store(0, 8, addr, value);
    case "Bool":
    case "Date":
    case "Enum":
      return m.i32.store(0, 4, addr, value);
    case "Identity":
    case "Ref":
      return m.memory.copy(addr, value, m.i32.const(4 + IDENTITY_BYTES));
    case "Vector":
      return m.memory.copy(addr, value, m.i32.const(slotOf(dst).size));
    case "Text": {
      if (src.kind !== "Text") throw new Error("text stored from a non-text");
      const v = fn.hold(m, value, i32);
      const d = fn.hold(m, addr, i32);
      const steps = [...v.pre, ...d.pre];
      if (src.len > dst.len) steps.push(m.if(m.i32.gt_u(m.i32.load(4, 4, v.get()), m.i32.const(dst.len)), fn.refuse(why.tooLong(dst.len))));
      steps.push(m.memory.copy(d.get(), v.get(), m.i32.add(ld32(m, v.get()), m.i32.const(8))));
      return m.block(null, steps);
    }
    case "List": {
      if (src.kind !== "List") throw new Error("list stored from a non-list");
      const v = fn.hold(m, value, i32);
      const d = fn.hold(m, addr, i32);
      const n = fn.local(i32);
      const get = (i: number): X => m.local.get(i, i32);
      const steps = [...v.pre, ...d.pre, m.local.set(n, ld32(m, v.get()))];
      if (src.cap > dst.cap) steps.push(m.if(m.i32.gt_u(get(n), m.i32.const(dst.cap)), fn.refuse(why.full(dst.cap))));
      if (layoutKey(src.element) === layoutKey(dst.element)) {
        steps.push(m.memory.copy(d.get(), v.get(), m.i32.add(m.i32.const(8), m.i32.mul(get(n), m.i32.const(strideOf(dst.element))))));
      } else {
        steps.push(st32(m, d.get(), get(n)), m.i32.store(4, 4, d.get(), m.i32.const(0)));
        steps.push(forEach(m, fn, get(n), (i) => {
          const from = m.i32.add(v.get(), m.i32.add(m.i32.const(8), m.i32.mul(i(), m.i32.const(strideOf(src.element)))));
          const to = m.i32.add(d.get(), m.i32.add(m.i32.const(8), m.i32.mul(i(), m.i32.const(strideOf(dst.element)))));
          return storeValue(fn, src.element, dst.element, loadValue(m, src.element, from), to, why);
        }));
      }
      return m.block(null, steps);
    }
    case "Float":
      throw new Error("Float values exist only in query results");
    default:
      return assertNever(dst);
  }
}

/** `for (i = 0; i < count; i++) body(i)`; `count` is evaluated once, `i()` reads the index. */
export function forEach(m: Module, fn: Locals, count: X, body: (i: () => X) => X): X {
  const i = fn.local(i32);
  const n = fn.local(i32);
  const exit = fn.label("done");
  const top = fn.label("each");
  return m.block(null, [
    m.local.set(n, count),
    m.local.set(i, m.i32.const(0)),
    m.block(exit, [
      m.loop(top, m.block(null, [
        m.br(exit, m.i32.ge_u(m.local.get(i, i32), m.local.get(n, i32))),
        body(() => m.local.get(i, i32)),
        m.local.set(i, m.i32.add(m.local.get(i, i32), m.i32.const(1))),
        m.br(top),
      ])),
    ]),
  ]);
}
