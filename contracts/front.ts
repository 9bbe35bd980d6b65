/**
 * @module The compiler front end's one entry point: Markdown text in, a checked and typed syntax
 * tree plus diagnostics out. The code generator calls `analyze` and proceeds only when
 * `diagnostics` is empty.
 */
import type { Contract } from "./ast.ts";
import { checkContract, type CheckOptions } from "./check/check-contract.ts";
import { normalizeDiagnostics, type Diagnostic } from "./diagnostics.ts";
import { parseContract } from "./parse.ts";

export type { CheckOptions } from "./check/check-contract.ts";

/** What `analyze` found: the tree (null only when the file did not parse) and every problem, sorted. */
export interface Analysis {
  readonly contract: Contract | null;
  readonly diagnostics: Diagnostic[];
}

/** Parses and checks one contract file; never throws for anything a user can write. */
export function analyze(markdown: string, options: CheckOptions = {}): Analysis {
  const parsed = parseContract(markdown);
  if (parsed.contract === null) return parsed;
  const checked = checkContract(parsed.contract, options);
  return { contract: parsed.contract, diagnostics: normalizeDiagnostics([...parsed.diagnostics, ...checked]) };
}
