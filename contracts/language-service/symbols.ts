/**
 * @module Document symbols, the editor's outline: enums with their values, records and aggregates
 * with their fields (aggregates also with indexes and actions), queries and migrations. When the file
 * does not parse, the line of the syntax error is left out and the rest is outlined.
 */
import type { DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import type { Decl, Ident, Span } from "../ast.ts";
import { treeAt, type ContractDocument } from "./document.ts";
import { rangeOf } from "./positions.ts";

/** LSP's symbol kinds used here. */
const KIND = { Class: 5, Method: 6, Field: 8, Enum: 10, Function: 12, Key: 20, EnumMember: 22, Struct: 23, Event: 24 } as const satisfies Record<string, SymbolKind>;

/** The outline of the document's `charter` block (empty when nothing can be parsed). */
export function documentSymbols(doc: ContractDocument): DocumentSymbol[] {
  const firstError = doc.analysis.diagnostics[0]?.span[0] ?? 0;
  const contract = treeAt(doc, firstError);
  if (contract === null) return [];
  const written = (span: Span): string => doc.text.slice(span[0], span[1]).replace(/\s+/g, " ");
  const symbol = (name: Ident, kind: SymbolKind, span: Span, detail: string, children?: DocumentSymbol[]): DocumentSymbol => ({
    name: name.name,
    detail,
    kind,
    range: rangeOf(doc.lines, span),
    selectionRange: rangeOf(doc.lines, name.span),
    ...(children ? { children } : {}),
  });
  const decl = (d: Decl): DocumentSymbol => {
    switch (d.kind) {
      case "EnumDecl":
        return symbol(d.name, KIND.Enum, d.span, "enum", d.values.map((v) => symbol(v, KIND.EnumMember, v.span, "")));
      case "RecordDecl":
        return symbol(d.name, KIND.Struct, d.span, "record", d.fields.map((f) => symbol(f.name, KIND.Field, f.span, written(f.type.span))));
      case "AggregateDecl":
        return symbol(d.name, KIND.Class, d.span, "aggregate", [
          ...d.fields.map((f) => symbol(f.name, KIND.Field, f.span, `${f.visibility} ${written(f.type.span)}`)),
          ...d.indexes.map((i) => symbol(i.name, KIND.Key, i.span, `${i.index}(${i.fields.map((f) => f.name).join(", ")})`)),
          ...d.actions.map((a) => symbol(a.name, KIND.Method, a.span, a.exposure === null ? "internal" : `api ${a.exposure}`)),
        ]);
      case "QueryDecl":
        return symbol(d.name, KIND.Function, d.span, `returns List<${d.returns.name}>`);
      case "MigrateDecl":
        return symbol({ name: `migrate ${d.aggregate.name}`, span: d.aggregate.span }, KIND.Event, d.span, "migration");
      default: {
        const never: never = d;
        return never;
      }
    }
  };
  return contract.decls.map(decl);
}
