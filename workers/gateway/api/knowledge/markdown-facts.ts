/**
 * @module What the index keeps of a note's Markdown: its title, its links and its tags. Read line by
 * line in one pass (never a recursive parse), outside fenced code blocks and inline code, and
 * bounded: at most MAX_LINKS links and MAX_TAGS tags per note.
 *
 * - Title: the first `# ` heading, else the note's name.
 * - Links: wiki links `[[Target]]`, `[[Target|alias]]`, `[[Target#heading]]` (and embeds
 *   `![[…]]`), kept as the lower-cased target; Markdown links `[text](other.md)` to a note, resolved
 *   against the linking note's folder (a link leaving the vault, a URL or an anchor is not a note).
 * - Tags: `#tag` in the text (letters, digits, `_`, `-`, `/`; not only digits) and the front
 *   matter's `tags:` (`[a, b]`, `a, b`, or a `- a` list), lower-cased.
 */
import { posix } from "node:path";
import { folderOf } from "./note-path.ts";

export const MAX_LINKS = 2000;
export const MAX_TAGS = 500;

/** A link of a note: `wiki` keeps the target as written (lower-cased), `md` the vault path it names. */
export interface NoteLink {
  readonly kind: "wiki" | "md";
  readonly target: string;
}

export interface MarkdownFacts {
  readonly title: string;
  readonly links: readonly NoteLink[];
  readonly tags: readonly string[];
}

const WIKI = /!?\[\[([^[\]\n|#]+)(?:#[^[\]\n|]*)?(?:\|[^[\]\n]*)?\]\]/gu;
const MD_LINK = /\[[^\]\n]*\]\(\s*(<[^>\n]+>|[^)\s]+)(?:\s+"[^"\n]*")?\s*\)/gu;
const TAG = /(?:^|[\s,;])#([\p{L}\p{N}_/-]{1,100})/gu;
const INLINE_CODE = /`[^`\n]*`/gu;
const SCHEME = /^[a-z][a-z0-9+.-]*:/iu;

/** The facts of note `path` whose text is `text`. */
export function markdownFacts(path: string, text: string): MarkdownFacts {
  const lines = text.split("\n");
  let title = "";
  const links = new Map<string, NoteLink>();
  const tags = new Set<string>();
  let at = 0;
  if (lines[0]?.trimEnd() === "---") {
    const end = lines.findIndex((line, i) => i > 0 && (line.trimEnd() === "---" || line.trimEnd() === "..."));
    if (end > 0) {
      frontMatterTags(lines.slice(1, end), tags);
      at = end + 1;
    }
  }
  let fence: string | null = null;
  for (; at < lines.length; at++) {
    const line = lines[at] as string;
    const fenceMark = /^\s{0,3}(`{3,}|~{3,})/u.exec(line);
    if (fenceMark !== null) {
      const mark = fenceMark[1] as string;
      if (fence === null) fence = mark;
      else if (mark[0] === fence[0] && mark.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const plain = line.includes("`") ? line.replace(INLINE_CODE, " ") : line;
    if (title === "") {
      const heading = /^\s{0,3}#\s+(.+?)\s*#*\s*$/u.exec(plain);
      if (heading !== null) title = (heading[1] as string).slice(0, 200);
    }
    if (links.size < MAX_LINKS) {
      if (plain.includes("[[")) {
        for (const m of plain.matchAll(WIKI)) {
          const target = wikiTarget(m[1] as string);
          if (target !== null) links.set(`wiki ${target}`, { kind: "wiki", target });
        }
      }
      if (plain.includes("](")) {
        for (const m of plain.matchAll(MD_LINK)) {
          const target = markdownTarget(path, m[1] as string);
          if (target !== null) links.set(`md ${target}`, { kind: "md", target });
        }
      }
    }
    if (tags.size < MAX_TAGS && plain.includes("#") && !/^\s{0,3}#{1,6}\s/u.test(plain)) {
      for (const m of plain.matchAll(TAG)) addTag(tags, m[1] as string);
    }
  }
  const name = path.slice(path.lastIndexOf("/") + 1, -3);
  return { title: title === "" ? name : title, links: [...links.values()].slice(0, MAX_LINKS), tags: [...tags].slice(0, MAX_TAGS) };
}

/** A wiki link's target as kept: trimmed, lower-cased, without `.md`; null when empty. */
export function wikiTarget(raw: string): string | null {
  let target = raw.trim().toLowerCase();
  if (target.endsWith(".md")) target = target.slice(0, -3);
  if (target.startsWith("/")) target = target.slice(1);
  return target === "" || target.length > 1024 ? null : target;
}

/** The vault path a Markdown link from `from` names, or null when it names no note in the vault. */
export function markdownTarget(from: string, raw: string): string | null {
  let href = raw.startsWith("<") ? raw.slice(1, -1) : raw;
  if (SCHEME.test(href) || href.startsWith("#") || href.startsWith("//")) return null;
  href = href.replace(/[?#].*$/u, "");
  try {
    href = decodeURIComponent(href);
  } catch {
    return null;
  }
  if (!/\.md$/iu.test(href)) return null;
  const joined = href.startsWith("/") ? posix.normalize(href.slice(1)) : posix.normalize(posix.join(folderOf(from), href));
  if (joined.startsWith("../") || joined === ".." || joined.startsWith("/") || joined.length > 1024) return null;
  return joined;
}

function addTag(tags: Set<string>, raw: string): void {
  const tag = raw.toLowerCase().replace(/\/+$/u, "");
  if (tag !== "" && !/^[\p{N}/_-]+$/u.test(tag) && tags.size < MAX_TAGS) tags.add(tag);
}

function frontMatterTags(lines: readonly string[], tags: Set<string>): void {
  const at = lines.findIndex((line) => /^tags\s*:/iu.test(line));
  if (at < 0) return;
  const rest = (lines[at] as string).replace(/^tags\s*:/iu, "").trim();
  const word = (w: string) => addTag(tags, w.trim().replace(/^["'#]+|["']+$/gu, ""));
  if (rest !== "") {
    rest.replace(/^\[|\]$/gu, "").split(/[,\s]+/u).forEach(word);
    return;
  }
  for (let i = at + 1; i < lines.length; i++) {
    const item = /^\s*-\s+(.+)$/u.exec(lines[i] as string);
    if (item === null) break;
    word(item[1] as string);
  }
}
