/**
 * @module What a query reads from: an aggregate of this contract (its public row: `subject`, `key`
 * and the public fields), another installed contract's collection or a standard-library collection
 * (answered by the `resolveCollection` option), or a `union(…)` of sources with the same columns.
 * Also the rows a query may declare it returns: an aggregate's public row or a record type.
 */
import type { AggregateDecl, Column, Ident, QuerySource } from "../ast.ts";
import type { CollectionIndex, Scope } from "./scope.ts";
import { SUBJECT, comparable } from "./types.ts";

/** One source's shape and what stages over it may use. */
export interface SourceInfo {
  readonly name: string;
  readonly columns: readonly Column[];
  readonly indexes: readonly CollectionIndex[];
  /** The aggregate a self-reference points to (`Ref<Category>` in Category), for traverse/shortest. */
  readonly refTarget: string;
  /** Private field name → aggregate name, to explain why a query cannot read one. */
  readonly privateFields: ReadonlyMap<string, string>;
}

/** The public row of an aggregate; null when a field's type did not resolve. */
export function aggregateRow(aggregate: AggregateDecl): Column[] | null {
  const columns: Column[] = [
    { name: "subject", type: SUBJECT },
    { name: "key", type: SUBJECT },
  ];
  for (const f of aggregate.fields) {
    if (f.visibility !== "public") continue;
    if (f.resolvedType === undefined) return null;
    columns.push({ name: f.name.name, type: f.resolvedType });
  }
  return columns;
}

/** The row type a query returns (`List<ROW>`), or null when it is unknown or did not resolve. */
export function resolveRow(scope: Scope, row: Ident): Column[] | null {
  const aggregate = scope.aggregates.get(row.name);
  if (aggregate !== undefined) return aggregateRow(aggregate);
  const record = scope.records.get(row.name);
  if (record === undefined) {
    scope.report("C0402", row.span, row.name);
    return null;
  }
  const columns: Column[] = [];
  for (const f of record.fields) {
    if (f.resolvedType === undefined) return null;
    columns.push({ name: f.name.name, type: f.resolvedType });
  }
  return columns;
}

/** The sources of a query (one, or each of a union's), or null after reporting an unknown one. */
export function resolveSources(scope: Scope, source: QuerySource): SourceInfo[] | null {
  const collections = source.kind === "Union" ? source.sources : [source];
  const infos: SourceInfo[] = [];
  for (const c of collections) {
    const info = resolveCollection(scope, c.name);
    if (info === null) return null;
    const first = infos[0];
    if (first !== undefined && !sameShape(first.columns, info.columns)) {
      scope.report("C0420", c.name.span, c.name.name, first.name);
      return null;
    }
    infos.push(info);
  }
  return infos;
}

function resolveCollection(scope: Scope, name: Ident): SourceInfo | null {
  const aggregate = scope.aggregates.get(name.name);
  if (aggregate !== undefined) {
    const columns = aggregateRow(aggregate);
    if (columns === null) return null;
    const privateFields = new Map(aggregate.fields.filter((f) => f.visibility === "private").map((f) => [f.name.name, aggregate.name.name]));
    const indexes = aggregate.indexes.map((i) => ({ index: i.index, fields: i.fields.map((f) => f.name) }));
    return { name: name.name, columns, indexes, refTarget: aggregate.name.name, privateFields };
  }
  const answer = name.name.includes(".") ? (scope.options.resolveCollection?.(name.name) ?? null) : null;
  if (answer === null) {
    scope.report("C0401", name.span, name.name);
    return null;
  }
  const columns = isColumnList(answer) ? answer : answer.columns;
  const indexes = isColumnList(answer) ? [] : (answer.indexes ?? []);
  return { name: name.name, columns, indexes, refTarget: name.name.slice(name.name.lastIndexOf(".") + 1), privateFields: new Map() };
}

function isColumnList(answer: NonNullable<ReturnType<NonNullable<Scope["options"]["resolveCollection"]>>>): answer is readonly Column[] {
  return Array.isArray(answer);
}

function sameShape(a: readonly Column[], b: readonly Column[]): boolean {
  return a.length === b.length && a.every((col) => b.some((other) => other.name === col.name && comparable(other.type, col.type)));
}
