/**
 * @module Finds the bracket a syntax error is really about. When a `(` or `{` is never closed, the
 * parser only notices lines later, where something else stands in place of the `)` or `}`; the
 * useful place to point is the bracket left open. This scan pairs brackets outside comments and
 * text literals and reports the first one left open.
 *
 * A `}` usually closes what begins a line at its own indentation, so a `}` indented less than the
 * line that opened the innermost `{` — while an outer `{` was opened on a line at exactly that
 * indentation — means the inner block was left open (a forgotten `}` of a `validate` block is
 * noticed at once, not at the end of the file).
 */

/** An opening bracket left without its closing one, as an offset into the scanned text. */
export interface UnclosedBracket {
  readonly offset: number;
  readonly open: "(" | "{";
  readonly close: ")" | "}";
}

interface Opener {
  readonly offset: number;
  readonly open: "(" | "{";
  /** Indentation of the line the bracket is on. */
  readonly indent: number;
}

/**
 * The first bracket of `text` left open, or null when every bracket is closed or the first problem
 * is a closing bracket without an opener (which the parser's own message already points at).
 */
export function findUnclosed(text: string): UnclosedBracket | null {
  const stack: Opener[] = [];
  // How many open `{` sit on lines of each indentation, so a `}` is matched in constant time.
  const bracesAt = new Map<number, number>();
  const count = (indent: number, by: number) => bracesAt.set(indent, (bracesAt.get(indent) ?? 0) + by);
  let lineStart = 0;
  let lineIndent = -1;
  const indentHere = () => (lineIndent === -1 ? (lineIndent = indentOf(text, lineStart)) : lineIndent);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") {
      lineStart = i + 1;
      lineIndent = -1;
    }
    else if (c === "#") i = skipTo(text, i, "\n") - 1;
    else if (c === '"') i = skipText(text, i);
    else if (c === "(" || c === "{") {
      const indent = indentHere();
      stack.push({ offset: i, open: c, indent });
      if (c === "{") count(indent, 1);
    } else if (c === ")" || c === "}") {
      const top = stack.at(-1);
      if (top === undefined) return null;
      if (c === ")" && top.open !== "(") return null;
      // A `}` while a `(` is open: the `(` was never closed (a block cannot end inside parentheses).
      if (c === "}" && top.open === "(") return unclosed(top);
      if (c === "}") {
        // First on its line, indented less than the innermost block's line, and level with an outer one.
        const indent = indentHere();
        if (lineStart + indent === i && indent < top.indent && (bracesAt.get(indent) ?? 0) > 0) return unclosed(top);
        count(top.indent, -1);
      }
      stack.pop();
    }
  }
  const last = stack.at(-1);
  return last === undefined ? null : unclosed(last);
}

function unclosed(o: Opener): UnclosedBracket {
  return { offset: o.offset, open: o.open, close: o.open === "(" ? ")" : "}" };
}

/** Spaces and tabs at the start of the line beginning at `lineStart`. */
function indentOf(text: string, lineStart: number): number {
  let i = lineStart;
  while (text[i] === " " || text[i] === "\t") i++;
  return i - lineStart;
}

function skipTo(text: string, from: number, char: string): number {
  const at = text.indexOf(char, from);
  return at === -1 ? text.length : at;
}

/** The offset of the `"` closing the text literal opened at `from` (or of the line's end). */
function skipText(text: string, from: number): number {
  for (let i = from + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
    else if (text[i] === "\n") return i - 1;
  }
  return text.length;
}

/** What the bracket at `offset` opens, in words: `the parameter list of action Request`, `aggregate Order`. */
export function bracketOwner(text: string, offset: number): string {
  const before = text.slice(text.lastIndexOf("\n", offset - 1) + 1, offset);
  if (text[offset] === "(") {
    const declared = /\b(action|query)\s+([A-Za-z_]\w*)\s*$/.exec(before);
    if (declared !== null) return `the parameter list of ${declared[1]} ${declared[2]}`;
    const named = /\benum\s+([A-Za-z_]\w*)\s*$/.exec(before);
    if (named !== null) return `enum ${named[1]}`;
    // A call or a sized type is written with its `(` right after the name.
    const call = /([A-Za-z_]\w*)$/.exec(before);
    if (call !== null && !["and", "or", "not", "in"].includes(call[1] ?? "")) return `\`${call[1]}(\``;
    return "a parenthesis";
  }
  const block = /^\s*(aggregate|record|action|migrate)\s+([A-Za-z_]\w*)/.exec(before);
  if (block !== null) return `${block[1]} ${block[2]}`;
  const clause = /\b(validate|apply)\s*$/.exec(before);
  if (clause !== null) return `the ${clause[1]} block`;
  return "a block";
}
