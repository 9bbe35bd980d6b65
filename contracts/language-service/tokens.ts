/**
 * @module A small lexer over the `charter` block for the editor features that must work on text the
 * parser may reject (the formatter and the cursor context): words, strings, comments, punctuation
 * and line breaks, each with its offsets into the Markdown file. Spans given as `atomic` come back as
 * one token each, untouched, so a caller can keep a region's exact text.
 */
import type { Span } from "../ast.ts";

export type TokenKind = "word" | "string" | "comment" | "punct" | "newline" | "atomic" | "other";

/** One token; `spaced` says whether horizontal whitespace came right before it on its line. */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly spaced: boolean;
}

const TWO_CHAR = new Set(["==", "!=", "<=", ">="]);
const PUNCT = new Set(["{", "}", "(", ")", "<", ">", ",", ":", "=", "+", "-", "*", "/", "%", "|", "$", "."]);
/** The grammar's horizontal whitespace (`HSpace`). */
const SPACE = new Set([" ", "\t", "\r", "\f", "\v", "\u00a0", "\ufeff"]);

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_]/.test(c);
}

/** Tokens of `text` from `start` to `end`; `atomic` spans (sorted, inside the range) are single tokens. */
export function tokenize(text: string, start: number, end: number, atomic: readonly Span[] = []): Token[] {
  const tokens: Token[] = [];
  let i = start;
  let spaced = false;
  let nextAtomic = 0;
  const push = (kind: TokenKind, to: number): void => {
    tokens.push({ kind, text: text.slice(i, to), start: i, end: to, spaced });
    spaced = false;
    i = to;
  };
  while (i < end) {
    while (nextAtomic < atomic.length && (atomic[nextAtomic]?.[0] ?? 0) < i) nextAtomic++;
    const region = atomic[nextAtomic];
    if (region !== undefined && region[0] === i) {
      push("atomic", Math.min(region[1], end));
      nextAtomic++;
      continue;
    }
    const c = text[i] as string;
    if (SPACE.has(c)) {
      spaced = true;
      i++;
    } else if (c === "\n") {
      push("newline", i + 1);
    } else if (c === "#") {
      const nl = text.indexOf("\n", i);
      push("comment", nl === -1 || nl > end ? end : nl);
    } else if (c === '"') {
      let j = i + 1;
      while (j < end && text[j] !== '"' && text[j] !== "\n") j += text[j] === "\\" && text[j + 1] !== "\n" ? 2 : 1;
      push("string", Math.min(end, text[j] === '"' ? j + 1 : j));
    } else if (isWordChar(c)) {
      let j = i + 1;
      while (j < end && isWordChar(text[j])) j++;
      push("word", j);
    } else if (TWO_CHAR.has(text.slice(i, i + 2))) {
      push("punct", i + 2);
    } else {
      push(PUNCT.has(c) ? "punct" : "other", i + 1);
    }
  }
  return tokens;
}

/** Tokens split at line breaks (the break tokens dropped); an empty array is a blank line. */
export function tokenLines(tokens: readonly Token[]): Token[][] {
  const lines: Token[][] = [[]];
  for (const t of tokens) {
    if (t.kind === "newline") lines.push([]);
    else lines[lines.length - 1]?.push(t);
  }
  return lines;
}
