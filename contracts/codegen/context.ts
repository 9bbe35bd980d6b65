/**
 * @module Code generation state: the module being built (literal pool, helper registry) and the
 * function being built (locals, labels, arena slots, the action's refusal table).
 */
import type { ActionLayout, MemoryLayout } from "../layout.ts";
import { alignUp } from "../layout.ts";
import type { Reason, Site } from "../refusals.ts";
import type { Module, WasmType, X } from "./binaryen.ts";
import { isReusable } from "./binaryen.ts";

/** Module-wide state: the binaryen module, the layout, text literals and generated helpers. */
export class ModuleGen {
  readonly m: Module;
  readonly layout: MemoryLayout;
  readonly segments: { offset: number; data: Uint8Array }[] = [];
  private dataEnd: number;
  private readonly literals = new Map<string, number>();
  private sealed = false;
  private readonly helpers = new Set<string>();

  constructor(m: Module, layout: MemoryLayout) {
    this.m = m;
    this.layout = layout;
    this.dataEnd = layout.data;
  }

  /** Address of a text literal laid out as a Text slot (byte length, code points, bytes). */
  textLiteral(value: string): number {
    const known = this.literals.get(value);
    if (known !== undefined) return known;
    if (this.sealed) throw new Error(`text literal ${JSON.stringify(value)} was missed by the literal pre-pass`);
    const bytes = new TextEncoder().encode(value);
    const data = new Uint8Array(8 + bytes.length);
    const view = new DataView(data.buffer);
    view.setUint32(0, bytes.length, true);
    view.setUint32(4, [...value].length, true);
    data.set(bytes, 8);
    const offset = this.dataEnd;
    this.segments.push({ offset, data });
    this.literals.set(value, offset);
    this.dataEnd = alignUp(offset + data.length, 4);
    return offset;
  }

  /** Closes the literal pool; the arena starts after it. */
  seal(): number {
    this.sealed = true;
    return alignUp(this.dataEnd, 8);
  }

  /** Adds the helper `name` once, building it with `build` on first use; returns `name`. */
  helper(name: string, build: () => void): string {
    if (!this.helpers.has(name)) {
      this.helpers.add(name);
      build();
    }
    return name;
  }
}

/** Locals and labels of one function under construction. */
export class Locals {
  readonly vars: WasmType[] = [];
  private readonly paramCount: number;
  private labels = 0;

  constructor(paramCount: number) {
    this.paramCount = paramCount;
  }

  /** A fresh local of type `t`; its index. */
  local(t: WasmType): number {
    this.vars.push(t);
    return this.paramCount + this.vars.length - 1;
  }

  /**
   * Evaluates `x` once: `pre` (a local.set, or nothing when `x` may simply be repeated) must run
   * before any `get()`.
   */
  hold(m: Module, x: X, t: WasmType): { pre: X[]; get: () => X } {
    if (isReusable(x)) return { pre: [], get: () => m.copyExpression(x) };
    const i = this.local(t);
    return { pre: [m.local.set(i, x)], get: () => m.local.get(i, t) };
  }

  label(prefix: string): string {
    return `${prefix}${this.labels++}`;
  }
}

/** One action's function: its locals, its arena slots and its refusal table. */
export class FnGen extends Locals {
  readonly g: ModuleGen;
  readonly action: ActionLayout;
  /** The condition or assignment being compiled, for overflow and length messages. */
  site: Site = { condition: null, text: "", line: 0 };
  private arenaUsed = 0;
  private readonly refusalIndex = new Map<string, number>();

  constructor(g: ModuleGen, action: ActionLayout) {
    super(0);
    this.g = g;
    this.action = action;
  }

  get m(): Module {
    return this.g.m;
  }

  /** `return r` where r names `reason` in the action's refusal table (1-based). */
  refuse(reason: Reason): X {
    const key = `${reason.code}\u0000${reason.line}\u0000${reason.condition}\u0000${reason.message}`;
    let index = this.refusalIndex.get(key);
    if (index === undefined) {
      index = this.action.refusals.push(reason) - 1;
      this.refusalIndex.set(key, index);
    }
    return this.m.return(this.m.i32.const(index + 1));
  }

  /** Offset of `size` fresh bytes of arena, relative to the arena's start. */
  alloc(size: number): number {
    const at = this.arenaUsed;
    this.arenaUsed = alignUp(at + size, 8);
    return at;
  }

  /** Arena bytes this function needs. */
  get arenaSize(): number {
    return this.arenaUsed;
  }

  /** The absolute address of an arena offset (the pool is sealed before any function is built). */
  arenaAddress(offset: number): X {
    return this.m.i32.const(this.g.layout.arena + offset);
  }
}
