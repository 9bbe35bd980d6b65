/**
 * @module The linear-memory layout shared by the code generator (which bakes the offsets into the
 * WebAssembly) and the runtime (which reads them from the schema to marshal JSON values).
 *
 * Memory, in order (every region 8-byte aligned, bytes 0–15 stay zero):
 *
 *   context   signer (an Identity slot), time (i64 milliseconds)
 *   state     one aggregate's state (sized for the largest aggregate): the old state on entry,
 *             the new state after an accepted call (only the written fields change)
 *   out       same shape as `state`: the new values of written non-scalar fields are staged here
 *             so every right-hand side reads the old state, then copied back to `state`
 *   args      one action's arguments (sized for the largest parameter list)
 *   data      text literals (active data segments)
 *   arena     temporaries (concatenations, appended/removed lists); every allocation site of an
 *             action owns a fixed offset, since the language has no loops each runs at most once
 *
 * Value slots are fixed-size, little-endian:
 *
 *   Int            i64
 *   Bool           i32 0 / 1
 *   Date           i32 days since 1970-01-01 (negative before)
 *   Enum           i32 index of the value in its declaration
 *   Text(len=N)    u32 UTF-8 byte length, u32 code-point count, 4·N bytes (4 bytes per code point at
 *                  most). An argument too long to fit is written with count N+1 and no bytes, so the
 *                  program still refuses it with `text_too_long`.
 *   Identity, Ref  u32 (byte length + 1; 0 = unset), 128 bytes of ASCII (a did:key or a subject)
 *   List<T>(cap=N) u32 count, u32 zero, N elements of T's slot, each padded to T's alignment; an
 *                  argument over capacity is written with count N+1 and no elements (`list_full`)
 *   Vector(dim=N)  u32 (1 = set, 0 = unset), N float32 values (copied, never computed with)
 */
import type { ActionDecl, AggregateDecl, Contract, Expr, Type } from "./ast.ts";
import type { Reason } from "./refusals.ts";

export const PAGE_SIZE = 65536;
/** Largest did:key or subject, in bytes, that an Identity or Ref slot holds. */
export const IDENTITY_BYTES = 128;

/** One aggregate's state: its size and each field's offset inside the `state` region. */
export interface AggregateLayout {
  readonly size: number;
  readonly fields: Record<string, number>;
}

/** One action: where its arguments go, what it reads and writes, and its refusal table. */
export interface ActionLayout {
  /** The WebAssembly export, `Aggregate.Action`. */
  readonly export: string;
  readonly aggregate: string;
  readonly action: string;
  /** Offsets of the parameters inside the `args` region. */
  readonly params: Record<string, number>;
  /** State fields the program reads (the runtime writes only these into memory). */
  readonly reads: readonly string[];
  /** State fields the program assigns (the runtime decodes only these afterwards). */
  readonly writes: readonly string[];
  readonly context: { readonly signer: boolean; readonly time: boolean };
  /** A result r > 0 of the exported function is the refusal `refusals[r - 1]`. */
  readonly refusals: Reason[];
}

export interface MemoryLayout {
  pages: number;
  readonly identityBytes: number;
  readonly context: { readonly signer: number; readonly time: number };
  readonly state: number;
  readonly out: number;
  readonly args: number;
  readonly data: number;
  arena: number;
  arenaSize: number;
  readonly aggregates: Record<string, AggregateLayout>;
  readonly actions: Record<string, ActionLayout>;
}

/** Size and alignment of a value slot of type `t`. */
export function slotOf(t: Type): { readonly size: number; readonly align: number } {
  switch (t.kind) {
    case "Int":
      return { size: 8, align: 8 };
    case "Bool":
    case "Date":
    case "Enum":
      return { size: 4, align: 4 };
    case "Text":
      return { size: 8 + 4 * t.len, align: 4 };
    case "Identity":
    case "Ref":
      return { size: 4 + IDENTITY_BYTES, align: 4 };
    case "List":
      return { size: 8 + t.cap * strideOf(t.element), align: 8 };
    case "Vector":
      return { size: 4 + 4 * t.dim, align: 4 };
    case "Float":
      throw new Error("Float values exist only in query results");
    default:
      return assertNever(t);
  }
}

/** Distance between two list elements of type `t`. */
export function strideOf(t: Type): number {
  const { size, align } = slotOf(t);
  return alignUp(size, align);
}

export function alignUp(n: number, align: number): number {
  return Math.ceil(n / align) * align;
}

export function assertNever(x: never): never {
  throw new Error(`unexpected ${JSON.stringify(x)}`);
}

/** The checker's resolved type of a field or parameter; a missing one is a bug upstream. */
export function resolved(node: { readonly name: { readonly name: string }; resolvedType?: Type }): Type {
  if (node.resolvedType === undefined) throw new Error(`unchecked declaration ${node.name.name}: no resolvedType`);
  return node.resolvedType;
}

export function aggregatesOf(contract: Contract): AggregateDecl[] {
  return contract.decls.filter((d): d is AggregateDecl => d.kind === "AggregateDecl");
}

/** Lays out fields or parameters in order, each at its slot's alignment; the total is 8-aligned. */
export function layoutFields(items: readonly { name: { name: string }; resolvedType?: Type }[]): { size: number; offsets: Record<string, number> } {
  const offsets: Record<string, number> = {};
  let at = 0;
  for (const item of items) {
    const { size, align } = slotOf(resolved(item));
    at = alignUp(at, align);
    offsets[item.name.name] = at;
    at += size;
  }
  return { size: alignUp(at, 8), offsets };
}

/** Calls `visit` on every sub-expression of `e`, parents first. */
export function walkExpr(e: Expr, visit: (e: Expr) => void): void {
  visit(e);
  if (e.kind === "Binary") {
    walkExpr(e.left, visit);
    walkExpr(e.right, visit);
  } else if (e.kind === "Unary") walkExpr(e.operand, visit);
  else if (e.kind === "Call") for (const a of e.args) walkExpr(a, visit);
}

function actionUses(action: ActionDecl, fieldOrder: readonly string[]): Pick<ActionLayout, "reads" | "writes" | "context"> {
  const reads = new Set<string>();
  const context = { signer: false, time: false };
  const visit = (e: Expr): void => {
    if (e.kind === "StateField") reads.add(e.field.name);
    else if (e.kind === "Context") {
      if (e.field.name === "signer") context.signer = true;
      else context.time = true;
    }
  };
  if (action.authorize?.mode === "field") {
    reads.add(action.authorize.field.name);
    context.signer = true;
  }
  for (const c of action.validate) walkExpr(c.expr, visit);
  for (const a of action.apply) walkExpr(a.value, visit);
  const writes = new Set(action.apply.map((a) => a.field.name));
  return {
    reads: fieldOrder.filter((f) => reads.has(f)),
    writes: fieldOrder.filter((f) => writes.has(f)),
    context,
  };
}

/** The static part of the layout; the code generator fills refusals, the arena size and pages. */
export function computeLayout(contract: Contract): MemoryLayout {
  const context = { signer: 16, time: alignUp(16 + 4 + IDENTITY_BYTES, 8) };
  const aggregates: Record<string, AggregateLayout> = {};
  const actions: Record<string, ActionLayout> = {};
  let stateSize = 8;
  let argsSize = 8;
  for (const agg of aggregatesOf(contract)) {
    const { size, offsets } = layoutFields(agg.fields);
    aggregates[agg.name.name] = { size, fields: offsets };
    stateSize = Math.max(stateSize, size);
    const fieldOrder = agg.fields.map((f) => f.name.name);
    for (const action of agg.actions) {
      const params = layoutFields(action.params);
      argsSize = Math.max(argsSize, params.size);
      const name = `${agg.name.name}.${action.name.name}`;
      actions[name] = { export: name, aggregate: agg.name.name, action: action.name.name, params: params.offsets, ...actionUses(action, fieldOrder), refusals: [] };
    }
  }
  const state = alignUp(context.time + 8, 8);
  const out = state + stateSize;
  const args = out + stateSize;
  const data = args + argsSize;
  return { pages: 1, identityBytes: IDENTITY_BYTES, context, state, out, args, data, arena: data, arenaSize: 0, aggregates, actions };
}

/** Sets the arena's size and the number of pages that hold it all. */
export function finishLayout(layout: MemoryLayout, arenaSize: number): void {
  layout.arenaSize = arenaSize;
  layout.pages = Math.max(1, Math.ceil((layout.arena + arenaSize) / PAGE_SIZE));
}
