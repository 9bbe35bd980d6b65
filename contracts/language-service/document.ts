/**
 * @module One version of a contract file as the language service sees it: the text, where its
 * `charter` block is, the front end's analysis, and the best syntax tree available for a cursor.
 * While a user types, the file often does not parse; the service then re-parses with the cursor's
 * line commented out (same length, so every offset still holds), and for names alone falls back to
 * the last version that parsed.
 */
import type { Span } from "../ast.ts";
import type { Contract } from "../ast.ts";
import { analyze, type Analysis } from "../front.ts";
import { findCharterBlock } from "../markdown.ts";
import { lineStarts } from "./positions.ts";

/** An analysed version of a contract file. */
export interface ContractDocument {
  readonly text: string;
  /** The `charter` block's body, or null when there is not exactly one. */
  readonly block: Span | null;
  readonly analysis: Analysis;
  readonly lines: readonly number[];
  /** The newest tree that parsed, from this version or an earlier one (its spans may be stale). */
  readonly lastGood: Contract | null;
}

/** Analyses `text`; `previous` is the document's prior version, whose tree survives a parse failure. */
export function openDocument(text: string, previous: ContractDocument | null = null): ContractDocument {
  const analysis = analyze(text);
  return {
    text,
    block: findCharterBlock(text).block?.body ?? null,
    analysis,
    lines: lineStarts(text),
    lastGood: analysis.contract ?? previous?.lastGood ?? null,
  };
}

/** Whether `offset` is inside the `charter` block, where every feature works (and nowhere else). */
export function inBlock(doc: ContractDocument, offset: number): boolean {
  return doc.block !== null && doc.block[0] <= offset && offset <= doc.block[1];
}

/** The tree whose spans match this text: the analysis's, else one parsed with `offset`'s line commented out. */
export function treeAt(doc: ContractDocument, offset: number): Contract | null {
  if (doc.analysis.contract !== null) return doc.analysis.contract;
  const repaired = commentOutLine(doc.text, offset);
  return repaired === null ? null : analyze(repaired).contract;
}

/** The tree to take names from: the current or repaired tree, else the last one that parsed. */
export function namesAt(doc: ContractDocument, offset: number): { contract: Contract | null; exact: boolean } {
  const tree = treeAt(doc, offset);
  return tree !== null ? { contract: tree, exact: true } : { contract: doc.lastGood, exact: false };
}

/** `text` with the line holding `offset` turned into a comment of the same length (null if empty). */
function commentOutLine(text: string, offset: number): string | null {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const newline = text.indexOf("\n", offset);
  let end = newline === -1 ? text.length : newline;
  if (text[end - 1] === "\r") end--;
  if (end <= start) return null;
  return text.slice(0, start) + "#" + " ".repeat(end - start - 1) + text.slice(end);
}
