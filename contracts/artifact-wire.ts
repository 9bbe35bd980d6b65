/**
 * @module Compiled artifacts and diagnostics as they cross a process boundary: the artifact as the
 * engine's install takes it (canonical schema string, WebAssembly as base64, the source), and
 * diagnostics as `{message, line, column}` located in the Markdown file (wire.md's 422 `errors`).
 * Imports no compiler: the gateway reads these values from a compile child process.
 */
import type { Artifact } from "./artifact.ts";
import { formatDiagnostics, lineColumn, type Diagnostic } from "./diagnostics.ts";

/** A compiled artifact on the wire: the canonical schema string and the WebAssembly as base64. */
export interface ArtifactWire {
  readonly id: string;
  readonly schemaJson: string;
  readonly wasm: string;
  readonly source: string;
}

/** One diagnostic, located: `message` starts with its phase (`type error: …`). */
export interface LocatedError {
  readonly message: string;
  readonly line: number;
  readonly column: number;
  /** What to write instead, when the compiler knows (the printed form's second line). */
  readonly hint?: string;
}

/** What compiling a source gives across a process boundary. */
export type CompileOutcome = { readonly ok: true; readonly artifact: ArtifactWire } | { readonly ok: false; readonly errors: readonly LocatedError[]; readonly printed: readonly string[] };

/** The artifact as the install request carries it. */
export function artifactWire(artifact: Artifact, source: string): ArtifactWire {
  return { id: artifact.id, schemaJson: new TextDecoder().decode(artifact.schemaBytes), wasm: Buffer.from(artifact.wasm).toString("base64"), source };
}

/** The diagnostics of `markdown`, located, plus their printed form (`<phase> error: … at line N:C`). */
export function locatedErrors(markdown: string, diagnostics: readonly Diagnostic[]): CompileOutcome & { ok: false } {
  const errors = diagnostics.map((d) => ({ message: `${d.phase} error: ${d.message}`, ...lineColumn(markdown, d.span[0]), ...(d.hint === undefined ? {} : { hint: d.hint }) }));
  return { ok: false, errors, printed: formatDiagnostics(markdown, diagnostics) };
}
