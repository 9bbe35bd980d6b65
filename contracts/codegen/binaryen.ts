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
  m.optimize();
}
