/**
 * @module Where the cursor is, read from the text alone so it works while the file does not parse:
 * the open `{ … }` blocks around it (each with its keyword and name, e.g. `aggregate Order`,
 * `action Request`, `validate`), the query it is in after `pipe` and that query's current stage, and
 * the text of its line before it.
 */
import type { Token } from "./tokens.ts";
import { tokenize } from "./tokens.ts";

/** An open block: `aggregate Order {` is `{ keyword: "aggregate", name: "Order" }`. */
export interface OpenBlock {
  readonly keyword: string;
  readonly name: string | null;
}

/** The query the cursor is in: its name and how many stages have started (0 on the source line). */
export interface OpenQuery {
  readonly name: string;
  readonly stages: number;
  readonly stage: string | null;
}

export interface CursorContext {
  readonly blocks: readonly OpenBlock[];
  readonly query: OpenQuery | null;
  /** The cursor's line, from its start to the cursor. */
  readonly lineBefore: string;
}

const DECLS = new Set(["enum", "record", "aggregate", "query", "migrate"]);

/** The context of `offset` in a block whose body starts at `blockStart`. */
export function cursorContext(text: string, blockStart: number, offset: number): CursorContext {
  const tokens = tokenize(text, blockStart, offset);
  const blocks: OpenBlock[] = [];
  let statement: Token[] = [];
  let lineFirst: Token | null = null;
  let parens = 0;
  let query: { name: string; stages: number; stage: string | null; piped: boolean } | null = null;
  let previous: Token | null = null;
  for (const t of tokens) {
    if (t.kind === "newline") {
      if (previous?.kind === "newline" && query?.piped) query = null;
      if (parens === 0) statement = [];
      lineFirst = null;
      previous = t;
      continue;
    }
    if (t.kind === "comment") {
      previous = t;
      continue;
    }
    if (lineFirst === null) {
      lineFirst = t;
      if (blocks.length === 0 && parens === 0 && t.kind === "word" && DECLS.has(t.text)) query = null;
    }
    if (t.text === "query" && t === lineFirst && blocks.length === 0) query = { name: "", stages: 0, stage: null, piped: false };
    else if (query && !query.piped && query.name === "" && t.kind === "word") query.name = t.text;
    else if (query && !query.piped && t.text === "pipe" && parens === 0) query.piped = true;
    else if (query?.piped && t.text === "|" && parens === 0) query.stages++;
    else if (query?.piped && previous?.text === "|" && t.kind === "word") query.stage = t.text;
    if (t.text === "(") parens++;
    else if (t.text === ")") parens = Math.max(0, parens - 1);
    else if (t.text === "{") {
      const words = statement.filter((s) => s.kind === "word");
      blocks.push({ keyword: words[0]?.text ?? "", name: words[1]?.text ?? null });
      statement = [];
    } else if (t.text === "}") {
      blocks.pop();
      statement = [];
    } else statement.push(t);
    previous = t;
  }
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const open = query?.piped ? { name: query.name, stages: query.stages, stage: query.stages === 0 ? null : query.stage } : null;
  return { blocks, query: open, lineBefore: text.slice(Math.max(lineStart, blockStart), offset) };
}
