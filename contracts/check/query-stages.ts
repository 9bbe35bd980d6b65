/**
 * @module Types each pipe stage of a query (reference §6) and computes the columns after it.
 * Choices where the reference is silent: `explode F [as N]` replaces the list column by one of its
 * element type (named N, else F); `summarize` yields the `by` columns, then the aggregates, an
 * aggregate named by `as`, else `count` / `FN_COLUMN`; `search` adds `score` and `nearest` adds
 * `distance` (Float); the source-bound stages (search, nearest, latest, asof, traverse, shortest)
 * must come before the stages that reshape rows (select, let, explode, summarize).
 */
import type { Column, CountExpr, Expr, Ident, Stage, Type } from "../ast.ts";
import { baseEnv, type ExprEnv } from "./env.ts";
import { checkExpr, columnList } from "./expressions.ts";
import type { SourceInfo } from "./query-sources.ts";
import type { Scope } from "./scope.ts";
import { BOOL, FLOAT, orderable, typeName } from "./types.ts";

/** The running state of a query's pipe. */
export interface PipeState {
  columns: Column[];
  reshaped: boolean;
  readonly sources: readonly SourceInfo[];
  readonly params: ReadonlyMap<string, Type>;
}

/** Checks one stage and updates `state.columns`. */
export function checkStage(scope: Scope, state: PipeState, stage: Stage): void {
  const env = stageEnv(scope, state);
  switch (stage.kind) {
    case "Where": {
      const t = checkExpr(env, stage.expr, BOOL);
      if (t !== null && t.kind !== "Bool") scope.report("C0405", stage.expr.span, typeName(t));
      return;
    }
    case "Sort":
      for (const key of stage.keys) {
        const column = findColumn(scope, state, key.field);
        if (column !== null && !orderable(column.type, true)) scope.report("C0406", key.field.span, key.field.name, typeName(column.type));
      }
      return;
    case "Take":
    case "Drop":
      checkCount(env, stage.count, stage.kind.toLowerCase());
      return;
    case "Select": {
      const next: Column[] = [];
      for (const item of stage.items) {
        const t = checkExpr(env, item.expr);
        const name = item.alias ?? (item.expr.kind === "Name" ? { name: item.expr.name, span: item.expr.span } : null);
        if (name === null) scope.report("C0408", item.span);
        else if (t !== null) addColumn(scope, next, name, t);
      }
      state.columns = next;
      state.reshaped = true;
      return;
    }
    case "Let": {
      const t = checkExpr(env, stage.expr);
      if (t !== null) addColumn(scope, state.columns, stage.name, t);
      state.reshaped = true;
      return;
    }
    case "Explode":
      explode(scope, state, stage.field, stage.alias);
      return;
    case "Summarize":
      summarize(scope, state, stage);
      return;
    default:
      checkSourceStage(scope, state, env, stage);
  }
}

function checkSourceStage(scope: Scope, state: PipeState, env: ExprEnv, stage: Stage): void {
  const name = stage.kind.toLowerCase();
  if (state.reshaped) scope.report("C0416", stage.span, name);
  switch (stage.kind) {
    case "Search": {
      const t = checkExpr(env, stage.text);
      if (t !== null && t.kind !== "Text") scope.report("C0413", stage.text.span, "search", "Text", typeName(t));
      const known = stage.fields.every((f) => findColumn(scope, state, f) !== null);
      const names = stage.fields.map((f) => f.name);
      const indexed = state.sources.every((s) => s.indexes.some((i) => i.index === "fulltext" && names.every((n) => i.fields.includes(n))));
      if (known && !indexed) scope.report("C0412", stage.span, names.join(", "));
      setColumn(state, "score", FLOAT);
      return;
    }
    case "Nearest": {
      const column = findColumn(scope, state, stage.field);
      const indexed = state.sources.every((s) => s.indexes.some((i) => i.index === "vector" && i.fields.includes(stage.field.name)));
      if (column !== null && !indexed) scope.report("C0414", stage.field.span, stage.field.name);
      const t = checkExpr(env, stage.to);
      const want = column?.type.kind === "Vector" ? column.type : null;
      if (t !== null && want !== null && (t.kind !== "Vector" || t.dim !== want.dim)) scope.report("C0413", stage.to.span, "nearest", typeName(want), typeName(t));
      checkCount(env, stage.k, "nearest … take");
      setColumn(state, "distance", FLOAT);
      return;
    }
    case "Asof": {
      const t = checkExpr(env, stage.time);
      if (t !== null && t.kind !== "Int" && t.kind !== "Date") scope.report("C0413", stage.time.span, "asof", "an Int time in milliseconds or a Date", typeName(t));
      return;
    }
    case "Traverse":
      refColumn(scope, state, stage.field, "traverse");
      if (stage.depth !== null) checkCount(env, stage.depth, "traverse … depth");
      return;
    case "Shortest": {
      const target = refColumn(scope, state, stage.field, "shortest");
      const t = checkExpr(env, stage.to);
      const ok = t === null || t.kind === "Text" || (t.kind === "Ref" && (target === null || t.aggregate === target));
      if (!ok) scope.report("C0413", stage.to.span, "shortest", `a subject (Text) or a Ref<${target ?? "…"}>`, typeName(t));
      return;
    }
    default:
      return;
  }
}

function summarize(scope: Scope, state: PipeState, stage: Extract<Stage, { kind: "Summarize" }>): void {
  const next: Column[] = [];
  for (const by of stage.by) {
    const column = findColumn(scope, state, by);
    if (column !== null) addColumn(scope, next, by, column.type);
  }
  const env: ExprEnv = { ...stageEnv(scope, state), aggregates: true };
  for (const agg of stage.aggregations) {
    const t = checkExpr(env, agg.call);
    const name = agg.alias ?? defaultAggregateName(agg.call);
    if (name === null) scope.report("C0408", agg.span);
    else if (t !== null) addColumn(scope, next, name, t);
  }
  state.columns = next;
  state.reshaped = true;
}

function defaultAggregateName(call: Expr): Ident | null {
  if (call.kind !== "Call") return null;
  const arg = call.args[0];
  if (call.args.length === 0) return { name: call.fn.name, span: call.span };
  return arg?.kind === "Name" && call.args.length === 1 ? { name: `${call.fn.name}_${arg.name}`, span: call.span } : null;
}

function explode(scope: Scope, state: PipeState, field: Ident, alias: Ident | null): void {
  state.reshaped = true;
  const column = findColumn(scope, state, field);
  if (column === null) return;
  if (column.type.kind !== "List") {
    scope.report("C0410", field.span, field.name, typeName(column.type));
    return;
  }
  const name = alias ?? field;
  const element = column.type.element;
  if (alias !== null && alias.name !== field.name && state.columns.some((c) => c.name === alias.name)) scope.report("C0409", alias.span, alias.name);
  state.columns = state.columns.map((c) => (c.name === field.name ? { name: name.name, type: element } : c));
}

/** The aggregate a Ref column must point to for traverse/shortest (the source's own), or null. */
function refColumn(scope: Scope, state: PipeState, field: Ident, stage: string): string | null {
  const column = findColumn(scope, state, field);
  const target = state.sources[0]?.refTarget ?? "";
  if (column === null) return null;
  const type = column.type;
  if (type.kind !== "Ref" || state.sources.some((s) => s.refTarget !== type.aggregate)) {
    scope.report("C0415", field.span, stage, field.name, typeName(column.type), target);
    return null;
  }
  return target;
}

function checkCount(env: ExprEnv, count: CountExpr, stage: string): void {
  const t = checkExpr(env, count);
  if (t !== null && t.kind !== "Int") env.scope.report("C0407", count.span, stage, typeName(t));
}

function findColumn(scope: Scope, state: PipeState, name: Ident): Column | null {
  const column = state.columns.find((c) => c.name === name.name);
  if (column !== undefined) return column;
  const owner = state.reshaped ? undefined : state.sources[0]?.privateFields.get(name.name);
  if (owner !== undefined) scope.report("C0421", name.span, name.name, owner);
  else scope.report("C0403", name.span, name.name, columnList(stageEnv(scope, state)));
  return null;
}

function addColumn(scope: Scope, columns: Column[], name: Ident, type: Type): void {
  if (columns.some((c) => c.name === name.name)) scope.report("C0409", name.span, name.name);
  else columns.push({ name: name.name, type });
}

function setColumn(state: PipeState, name: string, type: Type): void {
  state.columns = [...state.columns.filter((c) => c.name !== name), { name, type }];
}

function stageEnv(scope: Scope, state: PipeState): ExprEnv {
  const privateFields = state.reshaped ? new Map<string, string>() : (state.sources[0]?.privateFields ?? new Map<string, string>());
  return { ...baseEnv(scope, "query", null), params: state.params, columns: state.columns, privateFields };
}
