/**
 * @module Checks a query (reference §6): its parameters, its source, every stage in order (filling
 * `columns`, the typed plan: `columns[0]` after the source, `columns[i+1]` after stage i), and that
 * the last stage's columns match the declared `returns List<ROW>` — by name, in any order, each
 * column's type fitting the row's (a shorter Text fits a longer one). The `score` and `distance`
 * columns that search and nearest add may be left out of ROW.
 */
import type { Column, QueryDecl, Type } from "../ast.ts";
import { resolveRow, resolveSources } from "./query-sources.ts";
import { checkStage, type PipeState } from "./query-stages.ts";
import { checkDistinct, resolveType } from "./resolve-type.ts";
import type { Scope } from "./scope.ts";
import { fitsColumn, typeName } from "./types.ts";

const RANK_COLUMNS = new Set(["score", "distance"]);

/** Checks one query and annotates it. */
export function checkQuery(scope: Scope, query: QueryDecl): void {
  checkDistinct(scope, query.params.map((p) => p.name), "parameter", `in query ${query.name.name}`);
  const params = new Map<string, Type>();
  for (const p of query.params) {
    const t = resolveType(scope, p.type, "param");
    if (t === null) continue;
    p.resolvedType = t;
    if (!params.has(p.name.name)) params.set(p.name.name, t);
  }
  const row = resolveRow(scope, query.returns);
  const sources = resolveSources(scope, query.source);
  if (sources === null) return;
  const first = sources[0];
  if (first === undefined) return;

  const state: PipeState = { columns: [...first.columns], reshaped: false, sources, params };
  const plan: Column[][] = [state.columns];
  const before = scope.diagnostics.length;
  for (const stage of query.stages) {
    checkStage(scope, state, stage);
    plan.push(state.columns);
  }
  query.columns = plan;
  // A stage that failed leaves its columns incomplete; comparing them with ROW would only repeat it.
  if (row !== null && scope.diagnostics.length === before) checkResult(scope, query, state.columns, row);
}

function checkResult(scope: Scope, query: QueryDecl, columns: readonly Column[], row: readonly Column[]): void {
  const at = query.stages[query.stages.length - 1]?.span ?? query.source.span;
  const rowName = query.returns.name;
  const missing = [...new Set(row.filter((r) => !columns.some((c) => c.name === r.name)).map((r) => r.name))];
  const extra = [...new Set(columns.filter((c) => !RANK_COLUMNS.has(c.name) && !row.some((r) => r.name === c.name)).map((c) => c.name))];
  if (missing.length > 0) scope.report("C0417", at, rowName, missing.join(", "));
  if (extra.length > 0) scope.report("C0418", at, rowName, extra.join(", "));
  for (const c of columns) {
    const declared = row.find((r) => r.name === c.name);
    if (declared !== undefined && !fitsColumn(declared.type, c.type)) scope.report("C0419", at, c.name, typeName(c.type), rowName, typeName(declared.type));
  }
}
