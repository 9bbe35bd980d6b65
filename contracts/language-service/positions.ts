/**
 * @module Offsets and editor positions. Spans are UTF-16 offsets into the Markdown file and LSP
 * positions count UTF-16 code units too (the protocol's default encoding), so the conversion is a
 * line lookup; no code-point arithmetic is needed here.
 */
import type { Position, Range } from "vscode-languageserver-protocol";
import type { Span } from "../ast.ts";
import { lineAt, lineStarts } from "../source-lines.ts";

/** The offset at which each line of `text` starts. */
export { lineStarts };

/** The editor position of `offset` (clamped to the text). */
export function positionAt(starts: readonly number[], offset: number): Position {
  const lo = lineAt(starts, offset);
  return { line: lo, character: Math.max(0, offset - (starts[lo] ?? 0)) };
}

/** The offset of an editor position; a character past the line's end stops at the line's end. */
export function offsetAt(starts: readonly number[], textLength: number, position: Position): number {
  if (position.line < 0) return 0;
  if (position.line >= starts.length) return textLength;
  const start = starts[position.line] ?? 0;
  const next = position.line + 1 < starts.length ? (starts[position.line + 1] ?? textLength) - 1 : textLength;
  return Math.min(start + Math.max(0, position.character), next);
}

/** The editor range of a span. */
export function rangeOf(starts: readonly number[], span: Span): Range {
  return { start: positionAt(starts, span[0]), end: positionAt(starts, span[1]) };
}

/** Whether `offset` lies in `span`, its end included (a cursor right after a name is on it). */
export function touches(span: Span, offset: number): boolean {
  return span[0] <= offset && offset <= span[1];
}
