/**
 * @module Formatting the `charter` block to one canonical layout, idempotently. Line breaks are the
 * author's; the formatter sets each line's indentation (two spaces per open `{` or `(`; in a query,
 * two for the source and each `|` stage and six for a stage's continuation lines), the spacing
 * inside lines (see `format-spacing.ts`), a trailing comment at its column relative to the
 * line's indentation (aligned comments stay aligned), or one space after the code that reaches it, no trailing spaces, at
 * most one blank line in a row, none just inside `{ … }`, and one before each top-level declaration
 * (and the comments above it).
 *
 * What it never touches, so that formatting changes the artifact only through comments and
 * whitespace: the text of every `validate` condition and `apply` / `migrate` assignment (the schema
 * records it, for refusals) is kept byte for byte; the header's words and delegation scopes too.
 * Elsewhere only whitespace changes, and the schema holds no spans. So the formatted contract's schema
 * differs from the original's only in `source.sha256` (a digest of the block's exact text) and in the
 * line numbers of conditions and assignments. A file that does not parse is not formatted.
 */
import type { TextEdit } from "vscode-languageserver-protocol";
import type { Contract, Span } from "../ast.ts";
import { parseContract } from "../parse.ts";
import type { ContractDocument } from "./document.ts";
import { gap, type LineState } from "./format-spacing.ts";
import { rangeOf } from "./positions.ts";
import { tokenize, tokenLines, type Token } from "./tokens.ts";

const DECLS = new Set(["enum", "record", "aggregate", "query", "migrate"]);
const INDENT = "  ";

/** The edits that format the document's block: none when it is already formatted or does not parse. */
export function formatDocument(doc: ContractDocument): TextEdit[] {
  if (doc.block === null) return [];
  const formatted = formatBlock(doc.text, doc.block);
  if (formatted === null || formatted === doc.text.slice(doc.block[0], doc.block[1])) return [];
  return [{ range: rangeOf(doc.lines, doc.block), newText: formatted }];
}

/** The block body `body` of `markdown`, formatted; null when it does not parse. */
export function formatBlock(markdown: string, body: Span): string | null {
  const { contract } = parseContract(markdown);
  if (contract === null) return null;
  const original = markdown.slice(body[0], body[1]);
  const eol = original.includes("\r\n") ? "\r\n" : "\n";
  const lines = tokenLines(tokenize(markdown, body[0], body[1], keptExactly(contract)));
  return layout(lines).map((l) => l + eol).join("");
}

/** Spans whose text must survive byte for byte (sorted). */
function keptExactly(contract: Contract): Span[] {
  const spans: Span[] = [contract.namespace.span, contract.version.span];
  if (contract.upgrades) spans.push(contract.upgrades.span);
  for (const d of contract.decls) {
    if (d.kind === "MigrateDecl") spans.push(...d.assignments.map((a) => a.span));
    if (d.kind !== "AggregateDecl") continue;
    for (const a of d.actions) {
      spans.push(...a.validate.map((c) => c.span), ...a.apply.map((s) => s.span));
      if (a.authorize?.mode === "delegate") spans.push(a.authorize.scope.span);
    }
  }
  return spans.sort((x, y) => x[0] - y[0]);
}

type QueryPart = "none" | "header" | "source" | "stages";

function layout(lines: readonly Token[][]): string[] {
  const out: string[] = [];
  const topComments: boolean[] = []; // per output line: a comment at the top level
  let stack = 0;
  let query: QueryPart = "none";
  let blank = false;
  let afterOpen = false; // the last line with code ended with `{`
  for (const [index, tokens] of lines.entries()) {
    const first = tokens[0];
    if (first === undefined) {
      blank = true;
      // A blank line ends a query (reference §6).
      if (query === "source" || query === "stages") query = "none";
      continue;
    }
    const code = tokens.filter((t) => t.kind !== "comment");
    const commentOnly = code.length === 0;
    const declStart = stack === 0 && first.kind === "word" && DECLS.has(first.text) && query !== "header";
    if (declStart) query = first.text === "query" ? "header" : "none";
    let closers = 0;
    while (closers < code.length && (code[closers]?.text === "}" || code[closers]?.text === ")")) closers++;
    const depth = Math.max(0, stack - closers);
    let indent = depth;
    if (query === "source" || query === "stages") {
      const stageLine = commentOnly ? startsStage(lines, index, query) : first.text === "|" || query === "source";
      indent = (stageLine ? 1 : 3) + depth;
    }
    const text = joinLine(INDENT.repeat(indent), tokens);
    if (blank && out.length > 0 && !afterOpen && code[0]?.text !== "}") {
      out.push("");
      topComments.push(false);
    }
    blank = false;
    if (declStart) separate(out, topComments);
    out.push(text);
    topComments.push(commentOnly && indent === 0);
    if (!commentOnly && query === "source" && stack === 0) query = "stages";
    for (const t of code) {
      if (t.text === "{" || t.text === "(") stack++;
      else if ((t.text === "}" || t.text === ")") && t.kind === "punct") stack = Math.max(0, stack - 1);
    }
    if (!commentOnly) afterOpen = code[code.length - 1]?.text === "{";
    if (query === "header" && stack === 0 && code[code.length - 1]?.text === "pipe") query = "source";
  }
  return out;
}

/** One blank line before a declaration, or before the top-level comments right above it. */
function separate(out: string[], topComment: boolean[]): void {
  let at = out.length;
  while (at > 0 && topComment[at - 1]) at--;
  if (at > 0 && out[at - 1] !== "") {
    out.splice(at, 0, "");
    topComment.splice(at, 0, false);
  }
}

/** Whether a comment-only line in a query sits at stage level: the next code line starts a stage or ends the query. */
function startsStage(lines: readonly Token[][], index: number, query: QueryPart): boolean {
  for (let i = index + 1; i < lines.length; i++) {
    const line = lines[i] ?? [];
    const first = line.find((t) => t.kind !== "comment");
    if (line.length === 0) return true;
    if (first === undefined) continue;
    return query === "source" || first.text === "|" || (first.kind === "word" && DECLS.has(first.text));
  }
  return true;
}

/** A line's tokens after `indent`; a trailing comment keeps its place relative to the indentation while the code ends left of it. */
function joinLine(indent: string, tokens: readonly Token[]): string {
  const state: LineState = { angles: 0 };
  let text = indent;
  for (const [i, t] of tokens.entries()) {
    const prev = tokens[i - 1];
    if (prev !== undefined && t.kind === "comment") {
      // The comment's column moves with the line's indentation, so comments aligned in a block stay so.
      const first = tokens[0] as Token;
      const column = indent.length + t.start - first.start;
      // After a condition kept across lines, columns of the first line mean nothing: one space.
      text += text.includes("\n") ? " " : " ".repeat(Math.max(1, column - text.length));
    } else if (prev !== undefined) text += gap(tokens[i - 2] ?? null, prev, t, state);
    text += t.kind === "comment" ? t.text.trimEnd() : t.text;
  }
  return text;
}
