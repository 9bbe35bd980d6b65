/**
 * @module What a contract's Markdown says about itself, as plain text for the assistant's tool
 * descriptions: its title (the first `#` heading), its summary (the first prose paragraph), the
 * prose that names each action or query (a paragraph or bullet mentioning `` `Name` ``) and the `#`
 * comment lines right above a declaration in the `charter` block. Prose is for people (reference
 * §1), so the model reads what the person reads. One pass over the lines; every block is cut to a
 * bounded length before any pattern runs over it.
 */

/** The longest description one tool gets. */
export const MAX_TOOL_DESCRIPTION = 1000;

/** A prose block is considered up to this many characters (a description is far shorter). */
const MAX_BLOCK = 4000;

/** A contract's own words. */
export interface ContractDocs {
  /** The first level-1 heading, plain ("" when there is none). */
  readonly title: string;
  /** The first prose paragraph, plain ("" when there is none). */
  readonly summary: string;
  /** The prose paragraphs and list items outside code blocks, as Markdown (each at most MAX_BLOCK). */
  readonly blocks: readonly string[];
  /** An action's or query's name → the `#` comment lines right above its declaration, plain. */
  readonly comments: ReadonlyMap<string, string>;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*))?$/;
const ITEM = /^ {0,3}(?:[*+-]|\d{1,9}[.)])\s+(.*)$/;
const TABLE = /^\s*\|/;
const COMMENT = /^\s*#\s?(.*)$/;
const DECLARATION = /^\s*(?:action|query)\s+([A-Za-z_][A-Za-z0-9_]*)/;

/** Reads the docs of a contract's Markdown source. */
export function contractDocs(markdown: string): ContractDocs {
  let title = "";
  let summary: string | null = null;
  const blocks: string[] = [];
  const comments = new Map<string, string>();
  let fence: { char: string; length: number; charter: boolean } | null = null;
  let above: string[] = [];
  let open: { paragraph: boolean; text: string } | null = null;

  const flush = () => {
    if (open === null) return;
    blocks.push(open.text);
    if (open.paragraph && summary === null) summary = plainText(open.text);
    open = null;
  };
  const add = (paragraph: boolean, text: string) => {
    if (open === null) open = { paragraph, text: "" };
    if (open.text.length < MAX_BLOCK) open.text = `${open.text}${open.text === "" ? "" : " "}${text.trim()}`.slice(0, MAX_BLOCK);
  };

  for (const raw of markdown.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const fenceLine = FENCE.exec(line);
    if (fence !== null) {
      if (fenceLine !== null && (fenceLine[1] ?? "").startsWith(fence.char) && (fenceLine[1] ?? "").length >= fence.length && (fenceLine[2] ?? "").trim() === "") {
        fence = null;
      } else if (fence.charter) {
        above = commentsAbove(line, above, comments);
      }
      continue;
    }
    if (fenceLine !== null) {
      flush();
      const marker = fenceLine[1] ?? "```";
      fence = { char: marker[0] ?? "`", length: marker.length, charter: (fenceLine[2] ?? "").trim().split(/\s+/)[0] === "charter" };
      above = [];
      continue;
    }
    if (line.trim() === "" || TABLE.test(line)) {
      flush();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading !== null) {
      flush();
      if (title === "" && heading[1] === "#") title = plainText(heading[2] ?? "");
      continue;
    }
    const item = ITEM.exec(line);
    if (item !== null) {
      flush();
      add(false, item[1] ?? "");
      continue;
    }
    add(true, line.replace(/^\s*>\s?/, ""));
  }
  flush();
  return { title, summary: summary ?? "", blocks, comments };
}

/** One line of the `charter` block: gathers comment lines and hands them to the declaration right below. */
function commentsAbove(line: string, above: string[], comments: Map<string, string>): string[] {
  const comment = COMMENT.exec(line);
  if (comment !== null) return [...above, (comment[1] ?? "").trim()].slice(-20);
  const declared = DECLARATION.exec(line);
  const name = declared?.[1];
  if (name !== undefined && above.length > 0 && !comments.has(name)) comments.set(name, plainText(above.join(" ")));
  return [];
}

/** What the contract says about its action or query `name`: the prose naming it, then its comment; plain text. */
export function memberText(docs: ContractDocs, name: string): string {
  const mark = `\`${name}\``;
  const prose = docs.blocks.filter((b) => b.includes(mark)).map(plainText);
  const comment = docs.comments.get(name);
  return [...prose, ...(comment === undefined || comment === "" ? [] : [comment])].join(" ");
}

/** Markdown inline text as plain text: code spans, links and emphasis unwrapped, whitespace collapsed. */
export function plainText(markdown: string): string {
  return markdown
    .slice(0, MAX_BLOCK)
    .replace(/(`+)([^`]*?)\1|!?\[([^\]]*)\]\([^)\s]*\)|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*/g, (_m, _tick, code, link, strong, em) => code ?? link ?? strong ?? em ?? "")
    .replace(/\s+/g, " ")
    .trim();
}

/** `text` cut to at most `max` characters, at a word when one ends near the cut, marked with `…`. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const space = text.lastIndexOf(" ", cut);
  if (space > 0 && space > max - 80) cut = space;
  // Never split a surrogate pair.
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${text.slice(0, cut).trimEnd()}…`;
}
