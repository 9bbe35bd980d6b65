/** The document outline (issue #10). */
import { deepStrictEqual } from "node:assert/strict";
import { describe, it } from "node:test";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import { documentSymbols } from "./symbols.ts";
import { at } from "./testing/fixture.ts";

const outline = (symbols: readonly DocumentSymbol[]): unknown[] =>
  symbols.map((s) => (s.children ? [s.name, s.kind, s.detail, outline(s.children)] : [s.name, s.kind, s.detail]));

describe("document symbols", () => {
  it("outlines every declaration with its members", () => {
    const { doc } = at("enum Status", "‸enum Status");
    deepStrictEqual(outline(documentSymbols(doc)), [
      ["Status", 10, "enum", [["New", 22, ""], ["Done", 22, ""]]],
      ["Row", 23, "record", [["id", 8, "Text(len=128)"], ["total", 8, "Int"]]],
      ["Order", 5, "aggregate", [
        ["status", 8, "public Status"], ["owner", 8, "public Identity"], ["units", 8, "public Int"], ["kind", 8, "public Enum(Small, Large)"],
        ["Place", 6, "api authenticated"],
      ]],
      ["Totals", 12, "returns List<Row>"],
    ]);
    const status = documentSymbols(doc)[0];
    deepStrictEqual([status?.range.start, status?.selectionRange], [{ line: 6, character: 0 }, { start: { line: 6, character: 5 }, end: { line: 6, character: 11 } }]);
  });

  it("still outlines a file whose one broken line does not parse", () => {
    const { doc } = at("      units > 0", "      units > ‸");
    deepStrictEqual(documentSymbols(doc).map((s) => s.name), ["Status", "Row", "Order", "Totals"]);
  });
});
