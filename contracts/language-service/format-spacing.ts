/**
 * @module The formatter's spacing inside a line: what goes between two neighbouring tokens. Only
 * spacing that cannot change how a line parses is forced (around `,` `:` `{` `}` `=` and the two-
 * character comparisons, inside parentheses and `List<…>` / `Ref<…>`); everywhere else a run of
 * spaces becomes one space and no space stays none, so `- 5` (negation) never becomes `-5` (a literal)
 * and `f(x)` (a call) never becomes `f (x)`.
 */
import type { Token } from "./tokens.ts";

const COMPARISONS = new Set(["==", "!=", "<=", ">="]);
const TYPE_ARGUMENTS = new Set(["len", "cap", "dim"]);

/** Tracks `List<` / `Ref<` angles open on the current line. */
export interface LineState {
  angles: number;
}

/** The text between `prev` and `next`; `beforePrev` is the token before `prev` on the line, if any. */
export function gap(beforePrev: Token | null, prev: Token, next: Token, line: LineState): string {
  const kept = next.spaced ? " " : "";
  if (next.kind === "comment") return " ";
  if (prev.kind !== "punct" && next.kind !== "punct") return kept;
  const p = prev.text;
  const n = next.text;
  if (p === "<" && (beforePrev?.text === "List" || beforePrev?.text === "Ref")) return "";
  if (n === "<" && (p === "List" || p === "Ref")) {
    line.angles++;
    return "";
  }
  if (n === ">" && line.angles > 0) {
    line.angles--;
    return "";
  }
  if (n === "," || n === ")" || n === ":") return "";
  if (p === "(" || p === "$" || p === "." || n === ".") return p === "(" ? "" : kept;
  if (p === "," || p === ":") return " ";
  if (n === "{" || p === "{" || n === "}") return " ";
  if (n === "=" && next.kind === "punct") return prev.kind === "word" && TYPE_ARGUMENTS.has(p) ? "" : " ";
  if (p === "=" && prev.kind === "punct") return beforePrev?.kind === "word" && TYPE_ARGUMENTS.has(beforePrev.text) ? "" : " ";
  if (COMPARISONS.has(n) || COMPARISONS.has(p)) return " ";
  if (p === "|" && beforePrev === null) return " ";
  return kept;
}
