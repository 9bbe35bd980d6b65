/**
 * @module Markdown text to syntax tree: finds the `charter` block, runs the generated parser over
 * its body with spans shifted to the file, and turns every way parsing can fail (a syntax error,
 * nesting too deep, a tree too deep) into diagnostics. Nothing thrown escapes.
 *
 * A syntax error caused by a bracket left open is reported at that bracket (C0106): the parser
 * stops where it wanted the `)` or `}`, often lines later. Other syntax errors say what was
 * expected and what was found (C0101), with advice for habits from other languages.
 */
import type { Contract } from "./ast.ts";
import { diagnostic } from "./diagnostic-catalog.ts";
import { normalizeDiagnostics, type Diagnostic } from "./diagnostics.ts";
import { describeExpected, describeFound } from "./grammar/describe-expected.ts";
import { findTooDeep } from "./grammar/expression-depth.ts";
import { parse, SyntaxError as PeggySyntaxError, type DuplicateClause } from "./grammar/parser.js";
import { expects, syntaxAdvice } from "./grammar/syntax-advice.ts";
import { bracketOwner, findUnclosed } from "./grammar/unclosed-bracket.ts";
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
    // Blame an open bracket only when it comes before the error and the parser wanted its closer
    // there, or the error is on a line that opens a new block (a `{` left open swallows it).
    const open = findUnclosed(body);
    if (open !== null && open.offset < offset && (expects(error.expected ?? [], open.close) || opensBlock(body, offset))) {
      return diagnostic("C0106", [base + open.offset, base + open.offset + 1], bracketOwner(body, open.offset), open.open, open.close);
    }
    const advice = syntaxAdvice(body, offset, error.expected);
    return diagnostic("C0101", [base + offset, base + offset], describeExpected(error.expected), describeFound(body, offset), advice);
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

const BLOCK_START = /^[ \t]*(enum|record|aggregate|query|migrate|action|validate|apply)\b/;

/** Whether the line holding `offset` starts a declaration, an action or an action's block. */
function opensBlock(body: string, offset: number): boolean {
  const start = body.lastIndexOf("\n", offset - 1) + 1;
  return BLOCK_START.test(body.slice(start, start + 200));
}
