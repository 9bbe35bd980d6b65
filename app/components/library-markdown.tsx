/**
 * @module Markdown rendered as Preact elements, never as an HTML string (the page's policy forbids
 * `innerHTML`): headings, paragraphs, lists (bulleted, numbered, nested by indent), block quotes,
 * fenced code, rules; inline code, **strong**, *emphasis*, [links](url) and `[[wiki links]]`
 * (`[[Note]]`, `[[Folder/Note|alias]]`, `[[Note#heading]]`, embeds `![[…]]` shown as links). Raw
 * HTML in the text is shown as text. A link goes out only to `http:`, `https:` or `mailto:`; a
 * link to a `.md` file and a wiki link open that note in the app (`noteHref`).
 */
import type { ComponentChildren, VNode } from "preact";

export interface MarkdownLinks {
  /** The app's link to the note a wiki link (or a link to a `.md` file) names. */
  readonly noteHref: (target: string, kind: "wiki" | "md") => string;
}

/** The text `source` as elements. */
export function Markdown(props: { source: string; links: MarkdownLinks }) {
  return <>{blocks(props.source.replace(/\r\n?/g, "\n").split("\n"), props.links)}</>;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;

function blocks(lines: readonly string[], links: MarkdownLinks): VNode[] {
  const out: VNode[] = [];
  let i = 0;
  // Front matter (a YAML block first) is metadata, not text: left out of the preview.
  if (lines[0] === "---") {
    const end = lines.indexOf("---", 1);
    if (end > 0) i = end + 1;
  }
  while (i < lines.length) {
    const line = lines[i] ?? "";
    const key = out.length;
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence !== null) {
      const marker = fence[1] ?? "```";
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? "").trim().startsWith(marker)) body.push(lines[i++] ?? "");
      i++;
      out.push(
        <pre key={key} class="md-code" tabIndex={0}>
          <code>{body.join("\n")}</code>
        </pre>,
      );
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading !== null) {
      // Inside the page, the note's headings sit under its h2 and h3: shifted down to keep the order.
      const level = Math.min(6, (heading[1] ?? "#").length + 3);
      const Tag = `h${level}` as "h4";
      out.push(
        <Tag key={key} class={`md-h md-h${(heading[1] ?? "#").length}`}>
          {inline(heading[2] ?? "", links)}
        </Tag>,
      );
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push(<hr key={key} />);
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] ?? "")) body.push(QUOTE.exec(lines[i++] ?? "")?.[1] ?? "");
      out.push(<blockquote key={key}>{blocks(body, links)}</blockquote>);
      continue;
    }
    if (ITEM.test(line)) {
      const [list, next] = listAt(lines, i, links, key);
      out.push(list);
      i = next;
      continue;
    }
    const para: string[] = [];
    while (i < lines.length) {
      const l = lines[i] ?? "";
      if (l.trim() === "" || FENCE.test(l) || HEADING.test(l) || QUOTE.test(l) || (para.length > 0 && (ITEM.test(l) || RULE.test(l)))) break;
      para.push(l.trim());
      i++;
    }
    out.push(<p key={key}>{inline(para.join("\n"), links)}</p>);
  }
  return out;
}

/** The list starting at line `start` (items at its indent; deeper lines belong to the item above). */
function listAt(lines: readonly string[], start: number, links: MarkdownLinks, key: number): [VNode, number] {
  const first = ITEM.exec(lines[start] ?? "");
  const indent = first?.[1]?.length ?? 0;
  const ordered = /\d/.test(first?.[2] ?? "");
  const items: { text: string; children: string[] }[] = [];
  let i = start;
  while (i < lines.length) {
    const l = lines[i] ?? "";
    const item = ITEM.exec(l);
    const depth = l.length - l.trimStart().length;
    if (item !== null && depth === indent && /\d/.test(item[2] ?? "") === ordered) {
      items.push({ text: item[3] ?? "", children: [] });
    } else if (l.trim() !== "" && depth > indent && items.length > 0) {
      items.at(-1)?.children.push(l.slice(indent + 2));
    } else break;
    i++;
  }
  const content = items.map((item, n) => {
    const nested = item.children.length > 0 && ITEM.test(item.children[0] ?? "") ? blocks(item.children, links) : null;
    const text = nested === null ? [item.text, ...item.children.map((c) => c.trim())].join("\n") : item.text;
    return (
      <li key={n}>
        {task(text, links)}
        {nested}
      </li>
    );
  });
  const startAt = ordered ? Number.parseInt(first?.[2] ?? "1", 10) : 1;
  const list = ordered ? (
    <ol key={key} start={startAt === 1 ? undefined : startAt}>
      {content}
    </ol>
  ) : (
    <ul key={key}>{content}</ul>
  );
  return [list, i];
}

/** A list item's text, with a task box (`[ ]`, `[x]`) shown as a disabled checkbox. */
function task(text: string, links: MarkdownLinks): ComponentChildren {
  const box = /^\[([ xX])\]\s+/.exec(text);
  if (box === null) return inline(text, links);
  const done = box[1] !== " ";
  return (
    <>
      <input type="checkbox" checked={done} disabled aria-label={done ? "done" : "to do"} /> {inline(text.slice(box[0].length), links)}
    </>
  );
}

/**
 * Inline code first (nothing inside it is Markdown), then wiki links, links, strong, emphasis, line
 * breaks. Each span is bounded (500 characters), so a note full of unmatched `*` or backticks
 * costs at most that much scanning per character, not the rest of the paragraph each time.
 */
const INLINE = /(`{1,16})([\s\S]{0,500}?[^`])\1(?!`)|(!?)\[\[([^\]\n]{1,500})\]\]|\[([^\]\n]{1,500})\]\(([^)\s]{1,500})(?:\s+"[^"\n]{0,500}")?\)|\*\*([\s\S]{1,500}?)\*\*|__([\s\S]{1,500}?)__|\*([^*\s][\s\S]{0,500}?)\*|(?<![\w])_([^_\s][\s\S]{0,500}?)_(?![\w])|(https?:\/\/[^\s<>()]{1,500}[^\s<>().,;:!?'"])|(\n)/g;

export function inline(text: string, links: MarkdownLinks): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    last = at + m[0].length;
    const key = n++;
    if (m[1] !== undefined) out.push(<code key={key}>{(m[2] ?? "").trim() === "" ? m[2] : (m[2] ?? "").replace(/^ (.*) $/s, "$1")}</code>);
    else if (m[4] !== undefined) {
      const [target = "", alias] = m[4].split("|");
      const label = alias?.trim() || target.trim();
      out.push(
        <a key={key} class={m[3] === "!" ? "md-wiki md-embed" : "md-wiki"} href={links.noteHref(target.trim(), "wiki")}>
          {label}
        </a>,
      );
    } else if (m[5] !== undefined) {
      const url = m[6] ?? "";
      const label = inline(m[5], links);
      if (/^(https?:|mailto:)/i.test(url))
        out.push(
          <a key={key} href={url} rel="noopener noreferrer" target="_blank">
            {label}
          </a>,
        );
      else if (/^[^:]*\.md(#.*)?$/i.test(url)) out.push(<a key={key} href={links.noteHref(decodeURIComponentSafe(url), "md")}>{label}</a>);
      else out.push(<span key={key}>{label}</span>);
    } else if (m[7] !== undefined || m[8] !== undefined) out.push(<strong key={key}>{inline(m[7] ?? m[8] ?? "", links)}</strong>);
    else if (m[9] !== undefined || m[10] !== undefined) out.push(<em key={key}>{inline(m[9] ?? m[10] ?? "", links)}</em>);
    else if (m[11] !== undefined)
      out.push(
        <a key={key} href={m[11]} rel="noopener noreferrer" target="_blank">
          {m[11]}
        </a>,
      );
    else out.push(<br key={key} />);
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
