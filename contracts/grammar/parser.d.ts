/**
 * @module Types for the generated `parser.js` (peggy output, not type checked). Only what
 * `contracts/parse.ts` uses is declared; it is the one module that calls the generated parser.
 */
import type { Contract, Span } from "../ast.ts";

/** A clause written twice in one action, collected by the grammar for the caller to report. */
export interface DuplicateClause {
  what: "authorize" | "merge" | "durability" | "validate" | "apply";
  action: string;
  span: Span;
}

export interface ParseOptions {
  /** Offset of the parsed text in the Markdown file; added to every span. */
  base: number;
  /** Deepest nesting of parentheses, calls and list types before the parser gives up. */
  maxDepth: number;
  duplicates: DuplicateClause[];
}

/** One expectation peggy reports at the furthest point it reached. */
export type Expectation =
  | { type: "literal"; text: string; ignoreCase: boolean }
  | { type: "class"; parts: (string | [string, string])[]; inverted: boolean; ignoreCase: boolean }
  | { type: "any" }
  | { type: "end" }
  | { type: "other"; description: string };

export class SyntaxError extends Error {
  expected: Expectation[] | null;
  found: string | null;
  location: { start: { offset: number; line: number; column: number }; end: { offset: number } };
}

export function parse(input: string, options: ParseOptions): Contract;
