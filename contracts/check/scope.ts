/**
 * @module What every checking pass shares: the contract's declarations by name, the options, the
 * enum types seen so far (to type a bare enum value), and the diagnostic sink. Passes report into
 * the scope and never throw.
 */
import type { AggregateDecl, Column, Contract, EnumDecl, RecordDecl, Span, Type } from "../ast.ts";
import { diagnostic, type Code, type catalog } from "../diagnostic-catalog.ts";
import type { Diagnostic } from "../diagnostics.ts";

/** An index another contract's collection declares, for `search` and `nearest` over it. */
export interface CollectionIndex {
  readonly index: "fulltext" | "vector";
  readonly fields: readonly string[];
}

/** What `resolveCollection` may answer: the row's columns, optionally with the collection's indexes. */
export type CollectionInfo = readonly Column[] | { readonly columns: readonly Column[]; readonly indexes?: readonly CollectionIndex[] };

/** The fields of one aggregate in the version an upgrade replaces. */
export interface PreviousAggregate {
  readonly name: string;
  readonly fields: readonly { readonly name: string; readonly type: Type }[];
}

/** Options of `checkContract` / `analyze`. */
export interface CheckOptions {
  /** Columns of a query source that is not an aggregate of this contract (`acme.billing.Invoice`, `std.invoices`); null when unknown. */
  readonly resolveCollection?: (name: string) => CollectionInfo | null;
  /** The replaced version's aggregates, for the cross-version upgrade rules; without it they are skipped. */
  readonly previous?: { readonly aggregates: readonly PreviousAggregate[] };
}

/** The checker's shared state for one contract. */
export interface Scope {
  readonly contract: Contract;
  readonly options: CheckOptions;
  readonly enums: Map<string, EnumDecl>;
  readonly records: Map<string, RecordDecl>;
  readonly aggregates: Map<string, AggregateDecl>;
  /** Every enum type declared or written inline, in source order; a bare value takes the first that lists it. */
  readonly enumTypes: Type[];
  readonly diagnostics: Diagnostic[];
  report<C extends Code>(code: C, span: Span, ...args: Parameters<(typeof catalog)[C]["message"]>): void;
}

/** A scope with the contract's top-level declarations indexed by name (the first of duplicates wins). */
export function createScope(contract: Contract, options: CheckOptions): Scope {
  const diagnostics: Diagnostic[] = [];
  const scope: Scope = {
    contract,
    options,
    enums: new Map(),
    records: new Map(),
    aggregates: new Map(),
    enumTypes: [],
    diagnostics,
    report(code, span, ...args) {
      diagnostics.push(diagnostic(code, span, ...args));
    },
  };
  for (const decl of contract.decls) {
    if (decl.kind === "EnumDecl" && !scope.enums.has(decl.name.name)) scope.enums.set(decl.name.name, decl);
    if (decl.kind === "RecordDecl" && !scope.records.has(decl.name.name)) scope.records.set(decl.name.name, decl);
    if (decl.kind === "AggregateDecl" && !scope.aggregates.has(decl.name.name)) scope.aggregates.set(decl.name.name, decl);
  }
  return scope;
}

/** Remembers an enum type for bare-value inference, once per distinct value list. */
export function noteEnumType(scope: Scope, t: Type): void {
  if (t.kind !== "Enum") return;
  const key = t.values.join(",");
  if (!scope.enumTypes.some((e) => e.kind === "Enum" && e.values.join(",") === key)) scope.enumTypes.push(t);
}
