/**
 * @module The one module that imports binaryen (≈0.5 s and 110 MB to load, so only the compiler
 * may reach it): typed aliases and the few module-wide settings that keep output deterministic.
 */
import binaryen from "binaryen";

export type Module = binaryen.Module;
/** A binaryen expression handle. */
export type X = binaryen.ExpressionRef;
export type WasmType = binaryen.Type;

export const i32: WasmType = binaryen.i32;
export const i64: WasmType = binaryen.i64;
export const none: WasmType = binaryen.none;
export const unreachable: WasmType = binaryen.unreachable;

/** Tuple of parameter types, as binaryen wants them for `addFunction`. */
export function params(...types: WasmType[]): WasmType {
  return binaryen.createType(types);
}

/** A fresh module restricted to MVP plus bulk memory, sign extension and mutable globals. */
export function newModule(): Module {
  const m = new binaryen.Module();
  const f = binaryen.Features;
  m.setFeatures(f.MutableGlobals | f.BulkMemory | f.BulkMemoryOpt | f.SignExt);
  return m;
}

/**
 * The optimisation passes, in order. Measured on a 500-action contract: the full -O2 pipeline
 * costs ~4 ms per action function (2 s) for a program ~15% smaller than this list gives in
 * ~0.3 s; adding `simplify-locals` would cost another 0.2 s for 6%. V8 optimises the hot
 * functions itself, so runtime speed is the same. Constant addresses are folded while building
 * (`plus`) and operands that may be re-read are not kept in locals (`isReusable`), which spares
 * `precompute` and most of `simplify-locals`.
 */
const PASSES = ["vacuum", "remove-unused-brs", "coalesce-locals", "reorder-locals", "remove-unused-module-elements"];

/**
 * Optimises with fixed global settings (binaryen keeps them process-wide, so they are set every
 * time: the same tree must give the same bytes whatever ran before).
 */
export function optimize(m: Module): void {
  binaryen.setOptimizeLevel(2);
  binaryen.setShrinkLevel(1);
  binaryen.setDebugInfo(false);
  binaryen.setLowMemoryUnused(false);
  binaryen.setZeroFilledMemory(false);
  binaryen.setTrapsNeverHappen(false);
  binaryen.setFastMath(false);
  binaryen.setClosedWorld(false);
  m.runPasses(PASSES);
}

/**
 * True for an expression that may be evaluated again instead of kept in a local: a constant, a
 * local, or a load from a constant address (state, arguments and context do not change while an
 * action runs, and each arena slot is written once before it is read).
 */
export function isReusable(x: X): boolean {
  const id = binaryen.getExpressionId(x);
  if (id === binaryen.ConstId || id === binaryen.LocalGetId) return true;
  if (id !== binaryen.LoadId) return false;
  const info = binaryen.getExpressionInfo(x) as binaryen.LoadInfo;
  return binaryen.getExpressionId(info.ptr) === binaryen.ConstId;
}

/** `x + k` on i32, folded when `x` is a constant (most addresses are), so no pass has to. */
export function plus(m: Module, x: X, k: number): X {
  if (binaryen.getExpressionId(x) === binaryen.ConstId) {
    const info = binaryen.getExpressionInfo(x) as binaryen.ConstInfo;
    return m.i32.const((info.value as number) + k);
  }
  return k === 0 ? x : m.i32.add(x, m.i32.const(k));
}
