/**
 * @module Turns peggy's "expected" list into words a contract author reads: literals quoted, named
 * rules by name, whitespace dropped, comparison and arithmetic operators collapsed into "an
 * operator", and what was found named as a word, a character, the end of a line or of the block.
 */
import type { Expectation } from "./parser.js";

const OPERATORS = new Set(["==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "and", "or", "in"]);

/** "a, b or c" for the distinct expectations, in a stable order. */
export function describeExpected(expected: readonly Expectation[] | null): string {
  const words = new Set<string>();
  const operators: string[] = [];
  for (const e of literals(expected ?? [])) {
    if (e.type === "literal" && OPERATORS.has(e.text)) {
      operators.push(JSON.stringify(e.text));
      continue;
    }
    const word = describeOne(e);
    if (word !== null) words.add(word);
  }
  if (operators.length >= 3) words.add("an operator");
  else for (const op of operators) words.add(op);
  const list = [...words].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  if (list.length === 0) return "something else";
  if (list.length === 1) return list[0] ?? "";
  return `${list.slice(0, -1).join(", ")} or ${list[list.length - 1]}`;
}

/** Peggy merges one-character alternatives into a class; split them back into literals. */
function literals(expected: readonly Expectation[]): Expectation[] {
  return expected.flatMap((e): Expectation[] =>
    e.type === "class" && !e.inverted && e.parts.every((p) => typeof p === "string")
      ? e.parts.map((p) => ({ type: "literal", text: String(p), ignoreCase: false }))
      : [e],
  );
}

function describeOne(e: Expectation): string | null {
  switch (e.type) {
    case "literal":
      if (e.text === "\n") return "end of line";
      return e.text === '"' ? "'\"'" : JSON.stringify(e.text);
    case "class":
      return null;
    case "any":
      return "any character";
    case "end":
      return "end of block";
    case "other":
      return e.description === "whitespace" ? null : e.description;
    default: {
      const never: never = e;
      return String(never);
    }
  }
}

/** Quoted literals first, then words such as "name" and "end of line". */
function rank(word: string): number {
  return word.startsWith('"') ? 0 : 1;
}

/** What stands at `offset` of `text`: a whole word, one character, or the end of a line or block. */
export function describeFound(text: string, offset: number): string {
  if (offset >= text.length) return "the end of the block";
  const rest = text.slice(offset, offset + 40);
  if (rest.startsWith("\n") || rest.startsWith("\r\n")) return "the end of the line";
  const word = /^[A-Za-z0-9_]+/.exec(rest);
  if (word !== null) return `\`${word[0].length > 24 ? `${word[0].slice(0, 24)}…` : word[0]}\``;
  const point = String.fromCodePoint(text.codePointAt(offset) ?? 0);
  const printable = /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(point);
  return printable ? `\`${point}\`` : `character U+${(point.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}
