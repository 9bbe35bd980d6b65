/**
 * @module A checked contract → its WebAssembly program: one exported function per action
 * (`Aggregate.Action`), the memory imported as `env.memory` with the text literals as active data
 * segments. Nothing else is imported: every refusal is a return value and the arena is sized
 * statically, so the program has no failure path that would need a host hook.
 */
import type { Contract } from "../ast.ts";
import type { Expr } from "../ast.ts";
import { aggregatesOf, computeLayout, finishLayout, walkExpr } from "../layout.ts";
import type { MemoryLayout } from "../layout.ts";
import { MAX_MEMORY_BYTES } from "../limits.ts";
import { compileAction } from "./action.ts";
import { newModule, optimize } from "./binaryen.ts";
import { ModuleGen } from "./context.ts";

export interface Program {
  readonly wasm: Uint8Array;
  readonly layout: MemoryLayout;
  /** The WebAssembly text format of the optimised module, when asked for. */
  readonly wat: string | null;
}

/** Generates, validates and optimises the program of a checked contract. */
export function generateProgram(contract: Contract, lineOf: (offset: number) => number, options: { readonly wat?: boolean } = {}): Program {
  const m = newModule();
  try {
    const layout = computeLayout(contract);
    const g = new ModuleGen(m, layout);
    // binaryen resolves the memory when each load is built; the real size is set once known.
    m.setMemory(1, 1, null, []);
    for (const agg of aggregatesOf(contract)) {
      for (const action of agg.actions) {
        for (const c of action.validate) walkExpr(c.expr, (e) => literal(g, e));
        for (const a of action.apply) walkExpr(a.value, (e) => literal(g, e));
      }
    }
    layout.arena = g.seal();
    let arena = 0;
    for (const agg of aggregatesOf(contract)) {
      for (const action of agg.actions) arena = Math.max(arena, compileAction(g, agg, action, lineOf));
    }
    finishLayout(layout, arena);
    // The checker bounds the memory (check/memory.ts); a program over the limit means that bound is wrong.
    if (layout.arena + arena > MAX_MEMORY_BYTES) throw new Error(`the program needs ${layout.arena + arena} bytes of memory, over the checked limit of ${MAX_MEMORY_BYTES}`);
    const segments = g.segments.map((s) => ({ offset: m.i32.const(s.offset), data: s.data, passive: false }));
    m.setMemory(layout.pages, layout.pages, null, segments);
    m.addMemoryImport("0", "env", "memory");
    if (!m.validate()) throw new Error("generated WebAssembly does not validate");
    optimize(m);
    const wasm = m.emitBinary();
    return { wasm, layout, wat: options.wat === true ? m.emitText() : null };
  } finally {
    m.dispose();
  }
}

/** Lays out a text literal in the pool (Date literals become constants, not data). */
function literal(g: ModuleGen, e: Expr): void {
  if (e.kind === "TextLit" && e.type?.kind === "Text") g.textLiteral(e.value);
}
