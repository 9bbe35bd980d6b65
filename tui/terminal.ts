/**
 * @module Terminal capabilities for the console: whether the terminal takes UTF-8 (from the locale,
 * as ssh forwards it), and the glyphs drawn with it. Without UTF-8 every glyph is plain ASCII and
 * text from the store is reduced to ASCII, so a console over a bare SSH session still lines up.
 */

/** The characters the console draws with. */
export interface Glyphs {
  readonly unicode: boolean;
  /** Border style handed to ink's Box. */
  readonly border: "single" | "classic";
  readonly rule: string;
  readonly ellipsis: string;
  readonly accepted: string;
  readonly refused: string;
  readonly up: string;
  readonly down: string;
  readonly bullet: string;
  readonly dash: string;
}

export const unicodeGlyphs: Glyphs = Object.freeze({
  unicode: true,
  border: "single",
  rule: "─",
  ellipsis: "…",
  accepted: "✓",
  refused: "✗",
  up: "▲",
  down: "▼",
  bullet: "●",
  dash: "—",
});

export const asciiGlyphs: Glyphs = Object.freeze({
  unicode: false,
  border: "classic",
  rule: "-",
  ellipsis: "~",
  accepted: "+",
  refused: "x",
  up: "^",
  down: "v",
  bullet: "*",
  dash: "-",
});

/**
 * Whether the locale says UTF-8: the first of LC_ALL, LC_CTYPE, LANG that is set decides, as the
 * C library does. No locale at all (a bare `ssh host cmd`, cron, `env -i`) means ASCII.
 */
export function localeIsUtf8(env: NodeJS.ProcessEnv = process.env): boolean {
  const locale = [env.LC_ALL, env.LC_CTYPE, env.LANG].find((v) => v !== undefined && v !== "");
  return locale !== undefined && /utf-?8/i.test(locale);
}

/** The glyphs for this terminal; `force` overrides the detection (`--ascii`). */
export function glyphsFor(env: NodeJS.ProcessEnv = process.env, force?: "ascii" | "unicode"): Glyphs {
  if (force === "ascii") return asciiGlyphs;
  if (force === "unicode") return unicodeGlyphs;
  return localeIsUtf8(env) ? unicodeGlyphs : asciiGlyphs;
}

/** `text` as the terminal can show it: unchanged with UTF-8, else every non-ASCII character as `?`. */
export function printable(text: string, glyphs: Glyphs): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    // Control characters would move the cursor and tear the layout in either mode.
    if (code < 0x20 || code === 0x7f) out += " ";
    else out += glyphs.unicode || code < 0x7f ? ch : "?";
  }
  return out;
}
