/**
 * @module The compiler driver: Markdown → checked AST (front end) → WebAssembly program + schema →
 * artifact. The only path from source to an artifact; `charter compile`, `charter check` and the
 * engine's install all go through it.
 */
import type { Artifact } from "./artifact.ts";
import { makeArtifact } from "./artifact.ts";
import type { Contract } from "./ast.ts";
import { generateProgram } from "./codegen/program.ts";
import type { Diagnostic } from "./diagnostics.ts";
import { analyze } from "./front.ts";
import type { CheckOptions } from "./front.ts";
import { buildSchema } from "./schema.ts";
import { lineIndex } from "./source-lines.ts";

/** The back end alone: a checked contract and its Markdown source → the artifact (and WAT on request). */
export function compileChecked(contract: Contract, markdown: string, options: { readonly wat?: boolean } = {}): { artifact: Artifact; wat: string | null } {
  const lineOf = lineIndex(markdown);
  const program = generateProgram(contract, lineOf, options);
  const schema = buildSchema(contract, markdown, program.layout, lineOf);
  return { artifact: makeArtifact(schema, program.wasm), wat: program.wat };
}

export interface CompileOptions extends CheckOptions {
  /** Also return the WebAssembly text format. */
  readonly wat?: boolean;
}

export interface CompileResult {
  /** Present only when there are no diagnostics. */
  readonly artifact?: Artifact;
  readonly wat?: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** Compiles a contract file; user mistakes come back as diagnostics, never as exceptions. */
export function compileContract(markdown: string, options: CompileOptions = {}): CompileResult {
  const { contract, diagnostics } = analyze(markdown, options);
  if (contract === null || diagnostics.length > 0) return { diagnostics };
  const { artifact, wat } = compileChecked(contract, markdown, options);
  return wat === null ? { artifact, diagnostics } : { artifact, wat, diagnostics };
}
