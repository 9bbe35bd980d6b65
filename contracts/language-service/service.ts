/**
 * @module The language service's one surface: every feature as a pure function of an analysed
 * document and a position. A transport (the `charter lsp` server) keeps documents and calls these.
 */
import type { CompletionItem, Diagnostic, DocumentSymbol, Hover, Location, Position, TextEdit } from "vscode-languageserver-protocol";
import { completion } from "./completion.ts";
import { definition } from "./definition.ts";
import { documentDiagnostics } from "./diagnostics.ts";
import type { ContractDocument } from "./document.ts";
import { formatDocument } from "./format.ts";
import { hover } from "./hover.ts";
import { offsetAt } from "./positions.ts";
import { documentSymbols } from "./symbols.ts";

export { openDocument, type ContractDocument } from "./document.ts";

/** Whether the service handles a file: contracts are `*.charter.md`. */
export function isContractUri(uri: string): boolean {
  return uri.endsWith(".charter.md");
}

const at = (doc: ContractDocument, position: Position): number => offsetAt(doc.lines, doc.text.length, position);

/** Every feature, addressed by editor positions. */
export const languageService = {
  diagnostics: (doc: ContractDocument): Diagnostic[] => documentDiagnostics(doc),
  completion: (doc: ContractDocument, position: Position): CompletionItem[] => completion(doc, at(doc, position)),
  hover: (doc: ContractDocument, position: Position): Hover | null => hover(doc, at(doc, position)),
  definition: (doc: ContractDocument, uri: string, position: Position): Location | null => definition(doc, uri, at(doc, position)),
  symbols: (doc: ContractDocument): DocumentSymbol[] => documentSymbols(doc),
  format: (doc: ContractDocument): TextEdit[] => formatDocument(doc),
};
