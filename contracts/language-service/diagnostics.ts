/**
 * @module Editor diagnostics: exactly the compiler's. Each message is the printed form
 * `<phase> error: <message> at line <n>:<col>` that `charter check` prints — with the hint, what to
 * write instead, on its second line when there is one — over the diagnostic's own span in the
 * Markdown file, with its catalogue code.
 */
import type { Diagnostic as LspDiagnostic } from "vscode-languageserver-protocol";
import { formatDiagnostics } from "../diagnostics.ts";
import type { ContractDocument } from "./document.ts";
import { rangeOf } from "./positions.ts";

/** LSP's `DiagnosticSeverity.Error`: every compiler diagnostic is an error. */
const ERROR = 1;

/** The document's diagnostics, as the editor shows them. */
export function documentDiagnostics(doc: ContractDocument): LspDiagnostic[] {
  const found = doc.analysis.diagnostics;
  const messages = formatDiagnostics(doc.text, found);
  return found.map((d, i) => ({
    range: rangeOf(doc.lines, d.span),
    severity: ERROR,
    code: d.code,
    source: "charter",
    message: messages[i] ?? d.message,
  }));
}
