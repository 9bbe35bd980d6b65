/**
 * @module Compile diagnostics as values: what the front end reports instead of throwing. A
 * diagnostic carries only a span into the Markdown file; line and column are computed when it is
 * printed, so the same value can be shown by the CLI, an editor or a golden file. A diagnostic may
 * carry a hint — what to write instead — printed on a second, indented line, so the first line of
 * every diagnostic keeps one stable shape.
 */
import type { Span } from "./ast.ts";
import { lineAt, lineStarts } from "./source-lines.ts";

/** Which pass found the problem; printed as the first word of the message. `compile` is the back end's (a bug). */
export type Phase = "syntax" | "validation" | "type" | "query" | "upgrade" | "compile";

/** One problem in a contract. `code` is stable (see `diagnostic-catalog.ts`); `message` is for people. */
export interface Diagnostic {
  readonly code: string;
  readonly phase: Phase;
  readonly severity: "error";
  readonly message: string;
  readonly span: Span;
  /** What to do about it, for people; printed on the line after the message. */
  readonly hint?: string;
}

/** A 1-based line and column; the column counts code points, so an editor lands on the right character. */
export interface LineColumn {
  readonly line: number;
  readonly column: number;
}

/** The line and column of a UTF-16 `offset` in `text` (offsets past the end clamp to the end). */
export function lineColumn(text: string, offset: number): LineColumn {
  const end = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  let column = 1;
  for (let i = lineStart; i < end; i++) {
    const unit = text.charCodeAt(i);
    // A surrogate pair is one code point: count only its first half.
    if (!(unit >= 0xdc00 && unit <= 0xdfff && i > lineStart && isHighSurrogate(text.charCodeAt(i - 1)))) column++;
  }
  return { line, column };
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/**
 * `<phase> error: <message> at line <n>:<col>`, the one printed form of a diagnostic, followed by
 * `\n  <hint>` when it has a hint.
 */
export function formatDiagnostic(markdown: string, d: Diagnostic): string {
  const { line, column } = lineColumn(markdown, d.span[0]);
  return printed(d, line, column);
}

/** Formats many diagnostics of one file, indexing its lines once (a huge file may have many). */
export function formatDiagnostics(markdown: string, diagnostics: readonly Diagnostic[]): string[] {
  const starts = lineStarts(markdown);
  return diagnostics.map((d) => {
    const offset = Math.max(0, Math.min(d.span[0], markdown.length));
    const lo = lineAt(starts, offset);
    const lineStart = starts[lo] ?? 0;
    const { column } = lineColumn(markdown.slice(lineStart, offset + 1), offset - lineStart);
    return printed(d, lo + 1, column);
  });
}

function printed(d: Diagnostic, line: number, column: number): string {
  const first = `${d.phase} error: ${d.message} at line ${line}:${column}`;
  return d.hint === undefined ? first : `${first}\n  ${d.hint}`;
}

/** Sorted by position (then code and message), with exact repeats removed. */
export function normalizeDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const sorted = [...diagnostics].sort(
    (a, b) =>
      a.span[0] - b.span[0] ||
      a.span[1] - b.span[1] ||
      (a.code < b.code ? -1 : a.code > b.code ? 1 : 0) ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
  const seen = new Set<string>();
  return sorted.filter((d) => {
    const key = `${d.span[0]}:${d.span[1]}:${d.code}:${d.message}:${d.hint ?? ""}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
