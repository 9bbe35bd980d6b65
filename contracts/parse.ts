/**
 * @module Markdown text to syntax tree: finds the `charter` block, runs the generated parser over
 * its body with spans shifted to the file, and turns every way parsing can fail (a syntax error,
 * nesting too deep, a tree too deep) into diagnostics. Nothing thrown escapes.
 */
import type { Contract } from "./ast.ts";
import { diagnostic } from "./diagnostic-catalog.ts";
import { normalizeDiagnostics, type Diagnostic } from "./diagnostics.ts";
import { describeExpected, describeFound } from "./grammar/describe-expected.ts";
import { findTooDeep } from "./grammar/expression-depth.ts";
import { parse, SyntaxError as PeggySyntaxError, type DuplicateClause } from "./grammar/parser.js";
import { findCharterBlock } from "./markdown.ts";

/** Deepest nesting of parentheses, calls and `List<…>` the parser accepts. */
export const MAX_NESTING = 64;
/** Deepest expression tree (operators on the path from root to leaf) later passes accept. */
export const MAX_EXPRESSION_DEPTH = 256;

/** The result of parsing: a tree when the block parsed, and the problems found on the way. */
export interface ParseResult {
  readonly contract: Contract | null;
  readonly diagnostics: Diagnostic[];
}

/** Parses the one `charter` block of `markdown`. */
export function parseContract(markdown: string): ParseResult {
  const found = findCharterBlock(markdown);
  if (found.block === null) return { contract: null, diagnostics: normalizeDiagnostics(found.diagnostics) };
  const [start, end] = found.block.body;
  const body = markdown.slice(start, end);
  const duplicates: DuplicateClause[] = [];
  let contract: Contract;
  try {
    contract = parse(body, { base: start, maxDepth: MAX_NESTING, duplicates });
  } catch (error) {
    return { contract: null, diagnostics: [parseFailure(error, body, start)] };
  }
  const diagnostics = duplicates.map((d) => diagnostic("C0212", d.span, d.what, d.action));
  const deep = findTooDeep(contract, MAX_EXPRESSION_DEPTH);
  if (deep !== null) return { contract: null, diagnostics: [diagnostic("C0105", deep.span, MAX_EXPRESSION_DEPTH)] };
  return { contract, diagnostics: normalizeDiagnostics(diagnostics) };
}

function parseFailure(error: unknown, body: string, base: number): Diagnostic {
  if (error instanceof PeggySyntaxError) {
    const offset = error.location.start.offset;
    return diagnostic("C0101", [base + offset, base + offset], describeExpected(error.expected), describeFound(body, offset));
  }
  if (typeof error === "object" && error !== null && "tooDeep" in error && typeof error.tooDeep === "number") {
    return diagnostic("C0104", [error.tooDeep, error.tooDeep], MAX_NESTING);
  }
  if (error instanceof RangeError) {
    // The stack ran out despite the nesting guard (a pathological shape): report, never crash.
    return diagnostic("C0104", [base, base], MAX_NESTING);
  }
  throw error;
}
