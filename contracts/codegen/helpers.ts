/**
 * @module Shared WebAssembly helper functions, generated on first use: byte comparison, text
 * equality and ordering (UTF-8 byte order is code-point order), identity equality with the unset
 * rule, and list equality, membership and removal per element layout.
 */
import type { Type } from "../ast.ts";
import { strideOf } from "../layout.ts";
import type { X } from "./binaryen.ts";
import { i32, params } from "./binaryen.ts";
import { Locals } from "./context.ts";
import type { ModuleGen } from "./context.ts";
import { eqValues, forEach, layoutKey, ld32, loadValue, st32, valType } from "./values.ts";

/** `mem_eq(a, b, n)`: 1 when the n bytes at a and b are equal. */
export function memEq(g: ModuleGen): string {
  return g.helper("mem_eq", () => {
    const m = g.m;
    const [a, b, n] = [0, 1, 2];
    const get = (i: number): X => m.local.get(i, i32);
    const bump = (by: number): X =>
      m.block(null, [m.local.set(a, m.i32.add(get(a), m.i32.const(by))), m.local.set(b, m.i32.add(get(b), m.i32.const(by))), m.local.set(n, m.i32.sub(get(n), m.i32.const(by)))]);
    const body = m.block(null, [
      m.block("words_done", [
        m.loop("words", m.block(null, [
          m.br("words_done", m.i32.lt_u(get(n), m.i32.const(8))),
          m.if(m.i64.ne(m.i64.load(0, 1, get(a)), m.i64.load(0, 1, get(b))), m.return(m.i32.const(0))),
          bump(8),
          m.br("words"),
        ])),
      ]),
      m.loop("bytes", m.block(null, [
        m.if(m.i32.eqz(get(n)), m.return(m.i32.const(1))),
        m.if(m.i32.ne(m.i32.load8_u(0, 1, get(a)), m.i32.load8_u(0, 1, get(b))), m.return(m.i32.const(0))),
        bump(1),
        m.br("bytes"),
      ])),
      m.unreachable(),
    ]);
    m.addFunction("mem_eq", params(i32, i32, i32), i32, [], body);
  });
}

/** `text_eq(a, b)`: equal byte lengths and bytes. */
export function textEq(g: ModuleGen): string {
  return g.helper("text_eq", () => {
    const m = g.m;
    const get = (i: number): X => m.local.get(i, i32);
    const body = m.if(
      m.i32.ne(ld32(m, get(0)), ld32(m, get(1))),
      m.i32.const(0),
      m.call(memEq(g), [m.i32.add(get(0), m.i32.const(8)), m.i32.add(get(1), m.i32.const(8)), ld32(m, get(0))], i32),
    );
    m.addFunction("text_eq", params(i32, i32), i32, [], body);
  });
}

/** `text_cmp(a, b)`: -1, 0 or 1 by UTF-8 bytes (the same as by code points), shorter first. */
export function textCmp(g: ModuleGen): string {
  return g.helper("text_cmp", () => {
    const m = g.m;
    const [a, b, la, lb, n, i, ca, cb] = [0, 1, 2, 3, 4, 5, 6, 7];
    const get = (k: number): X => m.local.get(k, i32);
    const body = m.block(null, [
      m.local.set(la, ld32(m, get(a))),
      m.local.set(lb, ld32(m, get(b))),
      m.local.set(n, m.select(m.i32.lt_u(get(la), get(lb)), get(la), get(lb))),
      m.block("cmp_done", [
        m.loop("cmp", m.block(null, [
          m.br("cmp_done", m.i32.ge_u(get(i), get(n))),
          m.local.set(ca, m.i32.load8_u(8, 1, m.i32.add(get(a), get(i)))),
          m.local.set(cb, m.i32.load8_u(8, 1, m.i32.add(get(b), get(i)))),
          m.if(m.i32.ne(get(ca), get(cb)), m.return(m.select(m.i32.lt_u(get(ca), get(cb)), m.i32.const(-1), m.i32.const(1)))),
          m.local.set(i, m.i32.add(get(i), m.i32.const(1))),
          m.br("cmp"),
        ])),
      ]),
      m.i32.sub(m.i32.gt_u(get(la), get(lb)), m.i32.lt_u(get(la), get(lb))),
    ], i32);
    m.addFunction("text_cmp", params(i32, i32), i32, [i32, i32, i32, i32, i32, i32], body);
  });
}

/** `ident_eq(a, b)` for Identity/Ref slots: both unset, or both set to the same bytes. */
export function identEq(g: ModuleGen): string {
  return g.helper("ident_eq", () => {
    const m = g.m;
    const get = (i: number): X => m.local.get(i, i32);
    const body = m.if(
      m.i32.ne(ld32(m, get(0)), ld32(m, get(1))),
      m.i32.const(0),
      m.if(
        m.i32.eqz(ld32(m, get(0))),
        m.i32.const(1),
        m.call(memEq(g), [m.i32.add(get(0), m.i32.const(4)), m.i32.add(get(1), m.i32.const(4)), m.i32.sub(ld32(m, get(0)), m.i32.const(1))], i32),
      ),
    );
    m.addFunction("ident_eq", params(i32, i32), i32, [], body);
  });
}

const elementAt = (g: ModuleGen, list: X, i: X, element: Type): X =>
  g.m.i32.add(list, g.m.i32.add(g.m.i32.const(8), g.m.i32.mul(i, g.m.i32.const(strideOf(element)))));

/** Scalars compare as bytes when both lists share the element layout. */
const bytewise = (t: Type): boolean => t.kind === "Int" || t.kind === "Bool" || t.kind === "Date" || t.kind === "Enum";

/** `list_eq(a, b)`: same count and pairwise equal elements. */
export function listEq(g: ModuleGen, ta: Type & { kind: "List" }, tb: Type & { kind: "List" }): string {
  const name = `list_eq_${layoutKey(ta)}_${layoutKey(tb)}`;
  return g.helper(name, () => {
    const m = g.m;
    const fn = new Locals(2);
    const get = (k: number): X => m.local.get(k, i32);
    let compare: X;
    if (bytewise(ta.element) && layoutKey(ta.element) === layoutKey(tb.element)) {
      compare = m.call(memEq(g), [m.i32.add(get(0), m.i32.const(8)), m.i32.add(get(1), m.i32.const(8)), m.i32.mul(ld32(m, get(0)), m.i32.const(strideOf(ta.element)))], i32);
    } else {
      compare = m.block(null, [
        forEach(m, fn, ld32(m, get(0)), (i) =>
          m.if(
            m.i32.eqz(eqValues(g, ta.element, tb.element, loadValue(m, ta.element, elementAt(g, get(0), i(), ta.element)), loadValue(m, tb.element, elementAt(g, get(1), i(), tb.element)))),
            m.return(m.i32.const(0)),
          )),
        m.i32.const(1),
      ], i32);
    }
    const body = m.if(m.i32.ne(ld32(m, get(0)), ld32(m, get(1))), m.i32.const(0), compare);
    m.addFunction(name, params(i32, i32), i32, fn.vars, body);
  });
}

/** `list_has(list, x)`: 1 when some element equals x. */
export function listContains(g: ModuleGen, tl: Type & { kind: "List" }, tx: Type): string {
  const name = `list_has_${layoutKey(tl)}_${layoutKey(tx)}`;
  return g.helper(name, () => {
    const m = g.m;
    const fn = new Locals(2);
    const body = m.block(null, [
      forEach(m, fn, ld32(m, m.local.get(0, i32)), (i) =>
        m.if(eqValues(g, tl.element, tx, loadValue(m, tl.element, elementAt(g, m.local.get(0, i32), i(), tl.element)), m.local.get(1, valType(tx))), m.return(m.i32.const(1)))),
      m.i32.const(0),
    ], i32);
    m.addFunction(name, params(i32, valType(tx)), i32, fn.vars, body);
  });
}

/** `list_remove(list, x, dst)`: writes to dst the list without the elements equal to x; returns dst. */
export function listRemove(g: ModuleGen, tl: Type & { kind: "List" }, tx: Type): string {
  const name = `list_remove_${layoutKey(tl)}_${layoutKey(tx)}`;
  return g.helper(name, () => {
    const m = g.m;
    const fn = new Locals(3);
    const kept = fn.local(i32);
    const [list, x, dst] = [0, 1, 2];
    const stride = strideOf(tl.element);
    const body = m.block(null, [
      m.local.set(kept, m.i32.const(0)),
      forEach(m, fn, ld32(m, m.local.get(list, i32)), (i) =>
        m.if(
          m.i32.eqz(eqValues(g, tl.element, tx, loadValue(m, tl.element, elementAt(g, m.local.get(list, i32), i(), tl.element)), m.local.get(x, valType(tx)))),
          m.block(null, [
            m.memory.copy(elementAt(g, m.local.get(dst, i32), m.local.get(kept, i32), tl.element), elementAt(g, m.local.get(list, i32), i(), tl.element), m.i32.const(stride)),
            m.local.set(kept, m.i32.add(m.local.get(kept, i32), m.i32.const(1))),
          ]),
        )),
      st32(m, m.local.get(dst, i32), m.local.get(kept, i32)),
      m.i32.store(4, 4, m.local.get(dst, i32), m.i32.const(0)),
      m.local.get(dst, i32),
    ], i32);
    m.addFunction(name, params(i32, valType(tx), i32), i32, fn.vars, body);
  });
}
