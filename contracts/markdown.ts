/**
 * @module Finds the one fenced code block tagged `charter` in a Markdown file, following CommonMark's
 * fence rules closely enough for real files: a fence is 3+ backticks or tildes indented at most 3
 * spaces; its info string's first word is the language; it closes at a fence of the same character
 * at least as long, or at the end of the document. Fences inside another fenced block are content.
 * The body is returned as offsets into the file, untouched, so positions stay the file's.
 */
import type { Span } from "./ast.ts";
import { diagnostic } from "./diagnostic-catalog.ts";
import type { Diagnostic } from "./diagnostics.ts";

/** Where the `charter` block is: its body (between the fence lines) and its opening fence line. */
export interface CharterBlock {
  readonly body: Span;
  readonly fence: Span;
}

interface Fence {
  readonly char: string;
  readonly length: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** The `charter` block, or diagnostics when there is none or more than one. */
export function findCharterBlock(markdown: string): { block: CharterBlock | null; diagnostics: Diagnostic[] } {
  const blocks: CharterBlock[] = [];
  let open: { fence: Fence; charter: boolean; fenceSpan: Span; bodyStart: number } | null = null;
  let lineStart = 0;
  while (lineStart <= markdown.length) {
    const newline = markdown.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? markdown.length : newline;
    const next = newline === -1 ? markdown.length + 1 : newline + 1;
    const match = mayBeFence(markdown, lineStart) ? FENCE.exec(markdown.slice(lineStart, lineEnd).replace(/\r$/, "")) : null;
    if (open === null) {
      if (match !== null) {
        const marker = match[1] ?? "";
        const info = (match[2] ?? "").trim();
        // A backtick fence's info string may not contain a backtick (CommonMark 4.5).
        if (!(marker[0] === "`" && info.includes("`"))) {
          const language = info.split(/\s+/)[0] ?? "";
          open = {
            fence: { char: marker[0] ?? "`", length: marker.length },
            charter: language === "charter",
            fenceSpan: [lineStart, lineEnd],
            bodyStart: Math.min(next, markdown.length),
          };
        }
      }
    } else if (match !== null && closes(open.fence, match[1] ?? "", match[2] ?? "")) {
      if (open.charter) blocks.push({ body: [open.bodyStart, Math.max(open.bodyStart, lineStart)], fence: open.fenceSpan });
      open = null;
    }
    lineStart = next;
  }
  if (open !== null && open.charter) blocks.push({ body: [open.bodyStart, markdown.length], fence: open.fenceSpan });

  const first = blocks[0];
  if (first === undefined) return { block: null, diagnostics: [diagnostic("C0102", [0, 0])] };
  const extra = blocks.slice(1).map((b) => diagnostic("C0103", b.fence));
  return { block: extra.length === 0 ? first : null, diagnostics: extra };
}

/** A cheap pre-test so a huge file is not sliced line by line: up to 3 spaces, then ``` or ~~~. */
function mayBeFence(markdown: string, lineStart: number): boolean {
  let i = lineStart;
  while (i < lineStart + 3 && markdown[i] === " ") i++;
  const c = markdown[i];
  return (c === "`" || c === "~") && markdown[i + 1] === c && markdown[i + 2] === c;
}

function closes(fence: Fence, marker: string, rest: string): boolean {
  return marker[0] === fence.char && marker.length >= fence.length && rest.trim() === "";
}
