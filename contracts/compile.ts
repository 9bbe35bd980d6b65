/**
 * @module The compiler driver: Markdown → checked AST (front end) → WebAssembly program + schema →
 * artifact. The only path from source to an artifact; `charter compile`, `charter check` and the
 * engine's install all go through it.
 */
import type { Artifact } from "./artifact.ts";
import { makeArtifact } from "./artifact.ts";
import type { Contract } from "./ast.ts";
import { generateProgram } from "./codegen/program.ts";
import { diagnostic } from "./diagnostic-catalog.ts";
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

/**
 * Compiles a contract file; user mistakes come back as diagnostics, never as exceptions. A back end
 * that fails on a checked contract is a compiler bug, but it too comes back as a diagnostic (C0601),
 * so an install answers 422 with a message rather than crashing.
 */
export function compileContract(markdown: string, options: CompileOptions = {}): CompileResult {
  const { contract, diagnostics } = analyze(markdown, options);
  if (contract === null || diagnostics.length > 0) return { diagnostics };
  let compiled: ReturnType<typeof compileChecked>;
  try {
    compiled = compileChecked(contract, markdown, options);
  } catch (error) {
    return { diagnostics: [compilerFailure(error, contract.span[0])] };
  }
  const { artifact, wat } = compiled;
  return wat === null ? { artifact, diagnostics } : { artifact, wat, diagnostics };
}

/** The diagnostic for a compiler that threw `error` (a bug): C0601 at offset `at`, with the error's first line. */
export function compilerFailure(error: unknown, at = 0): Diagnostic {
  const detail = error instanceof Error ? error.message : String(error);
  return diagnostic("C0601", [at, at], (detail.split("\n")[0] ?? "").slice(0, 200));
}
