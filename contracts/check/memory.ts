/**
 * @module The memory a contract's program will reserve, bounded: each aggregate's
 * state (C0323), each action's arguments (C0324), and each action's whole memory — context, state
 * and its staged copy, arguments, text literals and the temporaries it builds (C0325). Sizes come
 * from `contracts/layout.ts`, the same slots the code generator lays out, so the limits of
 * `contracts/limits.ts` hold for the program it emits.
 *
 * Runs last and only on an otherwise clean contract: it needs every type resolved and every
 * expression typed, and a size already reported (C0309, C0322) would only be reported again.
 */
import type { ActionDecl, Contract, Expr } from "../ast.ts";
import { aggregatesOf, alignUp, computeLayout, layoutFields, slotOf, walkExpr } from "../layout.ts";
import { MAX_ARGS_BYTES, MAX_MEMORY_BYTES, MAX_STATE_BYTES } from "../limits.ts";
import type { Scope } from "./scope.ts";

/** Reports every state, argument list and action whose memory is over its limit. */
export function checkMemory(scope: Scope, contract: Contract): void {
  const layout = computeLayout(contract);
  let over = false;
  for (const agg of aggregatesOf(contract)) {
    const size = layout.aggregates[agg.name.name]?.size ?? 0;
    if (size > MAX_STATE_BYTES) {
      scope.report("C0323", agg.name.span, agg.name.name, size, MAX_STATE_BYTES);
      over = true;
    }
    for (const action of agg.actions) {
      const { size: args } = layoutFields(action.params);
      if (args > MAX_ARGS_BYTES) {
        scope.report("C0324", action.name.span, `${agg.name.name}.${action.name.name}`, args, MAX_ARGS_BYTES);
        over = true;
      }
    }
  }
  // Over either limit, the total is over too: one diagnostic says what to shorten.
  if (over) return;
  const actions = aggregatesOf(contract).flatMap((agg) => agg.actions.map((action) => ({ name: `${agg.name.name}.${action.name.name}`, action })));
  const arenaStart = alignUp(layout.data + literalPoolBound(actions.map((a) => a.action)), 8);
  for (const { name, action } of actions) {
    const total = arenaStart + arenaBound(action);
    if (total > MAX_MEMORY_BYTES) scope.report("C0325", action.name.span, name, total, MAX_MEMORY_BYTES);
  }
}

function actionExprs(action: ActionDecl): Expr[] {
  return [...action.validate.map((c) => c.expr), ...action.apply.map((a) => a.value)];
}

/** Bytes of the text literal pool (codegen/context.ts `textLiteral`): each distinct text once, 4-aligned. */
function literalPoolBound(actions: readonly ActionDecl[]): number {
  const texts = new Set<string>();
  for (const action of actions) {
    for (const root of actionExprs(action)) walkExpr(root, (e) => {
      if (e.kind === "TextLit" && e.type?.kind === "Text") texts.add(e.value);
    });
  }
  let size = 0;
  for (const text of texts) size += alignUp(8 + new TextEncoder().encode(text).length, 4);
  return size;
}

/**
 * An upper bound of the arena one action uses. The code generator allocates at exactly three
 * sites (codegen/expressions.ts): text `+` (a Text slot no longer than the expression's type),
 * `append` and `remove` (a slot of the resulting list's type), each 8-aligned and run at most once.
 */
function arenaBound(action: ActionDecl): number {
  let size = 0;
  for (const root of actionExprs(action)) walkExpr(root, (e) => {
    const t = e.type;
    if (t === undefined) return;
    const allocates = (e.kind === "Binary" && e.op === "+" && t.kind === "Text") || (e.kind === "Call" && (e.fn.name === "append" || e.fn.name === "remove") && t.kind === "List");
    if (allocates) size += alignUp(slotOf(t).size, 8);
  });
  return size;
}
