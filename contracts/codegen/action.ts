/**
 * @module One action → one exported WebAssembly function `() → i32` over the memory layout:
 * authorize (`state.FIELD` mode only), argument lengths and capacities, each `validate` condition
 * in order, then `apply` (every right-hand side against the old state, then the assignments).
 * It returns 0 when accepted, else the 1-based index of the refusal in the action's table.
 */
import type { ActionDecl, AggregateDecl, Type } from "../ast.ts";
import { IDENTITY_BYTES, resolved, slotOf, strideOf } from "../layout.ts";
import { refusals } from "../refusals.ts";
import type { X } from "./binaryen.ts";
import { i32, none } from "./binaryen.ts";
import { FnGen } from "./context.ts";
import type { ModuleGen } from "./context.ts";
import { compileExpr, narrowing, storedType } from "./expressions.ts";
import type { Scope } from "./expressions.ts";
import { identEq } from "./helpers.ts";
import { forEach, isAddressed, ld32, storeValue, valType } from "./values.ts";

/** Adds the function for `action`; returns the arena bytes it needs. */
export function compileAction(g: ModuleGen, agg: AggregateDecl, action: ActionDecl, lineOf: (offset: number) => number): number {
  const m = g.m;
  const layout = g.layout;
  const name = `${agg.name.name}.${action.name.name}`;
  const al = layout.actions[name];
  const aggLayout = layout.aggregates[agg.name.name];
  if (al === undefined || aggLayout === undefined) throw new Error(`no layout for ${name}`);
  const fn = new FnGen(g, al);
  const fields = new Map<string, { type: Type; at: number; out: number }>();
  for (const f of agg.fields) {
    const offset = aggLayout.fields[f.name.name] as number;
    fields.set(f.name.name, { type: resolved(f), at: layout.state + offset, out: layout.out + offset });
  }
  const paramSlots = new Map(action.params.map((p) => [p.name.name, { type: resolved(p), at: layout.args + (al.params[p.name.name] as number) }]));
  const scope: Scope = { fields, params: paramSlots };
  const steps: X[] = [];

  const auth = action.authorize;
  if (auth?.mode === "field") {
    const f = fields.get(auth.field.name);
    if (f === undefined) throw new Error(`authorize names unknown field ${auth.field.name}`);
    const line = lineOf(auth.span[0]);
    steps.push(m.if(m.i32.eqz(ld32(m, m.i32.const(f.at))), fn.refuse(refusals.unsetAuthorizer(auth.field.name, line))));
    steps.push(m.if(m.i32.eqz(m.call(identEq(g), [m.i32.const(f.at), m.i32.const(layout.context.signer)], i32)), fn.refuse(refusals.wrongSigner(auth.field.name, line))));
  }

  for (const p of action.params) {
    const slot = paramSlots.get(p.name.name);
    if (slot !== undefined) steps.push(...checkArgument(fn, slot.type, () => m.i32.const(slot.at), p.name.name));
  }

  for (const c of action.validate) {
    fn.site = { condition: c.text, text: c.text, line: lineOf(c.span[0]) };
    steps.push(m.if(m.i32.eqz(compileExpr(fn, scope, c.expr)), fn.refuse(refusals.conditionFailed(c.text, fn.site.line))));
  }

  const commits: X[] = [];
  for (const a of action.apply) {
    const f = fields.get(a.field.name);
    if (f === undefined) throw new Error(`assignment to unknown field ${a.field.name}`);
    fn.site = { condition: null, text: a.text, line: lineOf(a.span[0]) };
    const value = compileExpr(fn, scope, a.value);
    if (isAddressed(f.type)) {
      steps.push(storeValue(fn, storedType(a.value), f.type, value, m.i32.const(f.out), narrowing(fn)));
      commits.push(m.memory.copy(m.i32.const(f.at), m.i32.const(f.out), usedSize(fn, f.type, f.out)));
    } else {
      const tmp = fn.local(valType(f.type));
      steps.push(m.local.set(tmp, value));
      commits.push(f.type.kind === "Int" ? m.i64.store(0, 8, m.i32.const(f.at), m.local.get(tmp, valType(f.type))) : m.i32.store(0, 4, m.i32.const(f.at), m.local.get(tmp, i32)));
    }
  }

  m.addFunction(name, none, i32, fn.vars, m.block(null, [...steps, ...commits, m.i32.const(0)], i32));
  m.addFunctionExport(name, name);
  return fn.arenaSize;
}

/** Bytes of a staged value worth copying back: the used part of a text or list, else the slot. */
function usedSize(fn: FnGen, t: Type, at: number): X {
  const m = fn.m;
  if (t.kind === "Text") return m.i32.add(ld32(m, m.i32.const(at)), m.i32.const(8));
  if (t.kind === "List") return m.i32.add(m.i32.const(8), m.i32.mul(ld32(m, m.i32.const(at)), m.i32.const(strideOf(t.element))));
  if (t.kind === "Identity" || t.kind === "Ref") return m.i32.const(4 + IDENTITY_BYTES);
  return m.i32.const(slotOf(t).size);
}

/** Refusals for an argument longer (text) or fuller (list) than its declared type, elements included. */
function checkArgument(fn: FnGen, t: Type, addr: () => X, param: string): X[] {
  const m = fn.m;
  if (t.kind === "Text") {
    return [m.if(m.i32.gt_u(m.i32.load(4, 4, addr()), m.i32.const(t.len)), fn.refuse(refusals.argumentTooLong(param, t.len)))];
  }
  if (t.kind !== "List") return [];
  const steps = [m.if(m.i32.gt_u(ld32(m, addr()), m.i32.const(t.cap)), fn.refuse(refusals.argumentListFull(param, t.cap)))];
  const el = t.element;
  if (el.kind === "Text" || el.kind === "List") {
    const stride = strideOf(el);
    steps.push(forEach(m, fn, ld32(m, addr()), (i) => m.block(null, checkArgument(fn, el, () => m.i32.add(addr(), m.i32.add(m.i32.const(8), m.i32.mul(i(), m.i32.const(stride)))), param))));
  }
  return steps;
}
