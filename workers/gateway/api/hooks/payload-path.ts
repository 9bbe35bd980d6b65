/**
 * @module Paths into a webhook's payload: JSON Pointers (RFC 6901: `/issue/title`, `/labels/0/name`,
 * `~1` for `/` and `~0` for `~` in a name). A path is parsed once, when its mapping is set, and is
 * bounded (MAX_PATH_CHARS, MAX_PATH_TOKENS); looking one up follows its tokens one by one through
 * the payload's own members only, so it costs at most one step per token, whatever the payload.
 */

/** The longest path, in characters. */
export const MAX_PATH_CHARS = 256;
/** The most tokens (levels) in a path. */
export const MAX_PATH_TOKENS = 16;

/** A parsed path, or why the text is not one. */
export type ParsedPath = { readonly ok: true; readonly tokens: readonly string[] } | { readonly ok: false; readonly detail: string };

/** Parses `text` as a JSON Pointer to a member inside the payload (the whole payload, `""`, is not one). */
export function parsePath(text: unknown): ParsedPath {
  if (typeof text !== "string") return { ok: false, detail: "a path is a string such as /issue/title" };
  if (text.length === 0 || text.length > MAX_PATH_CHARS) return { ok: false, detail: `a path is 1 to ${MAX_PATH_CHARS} characters, such as /issue/title` };
  if (!text.startsWith("/")) return { ok: false, detail: "a path starts with / (a JSON Pointer, such as /issue/title)" };
  const raw = text.slice(1).split("/");
  if (raw.length > MAX_PATH_TOKENS) return { ok: false, detail: `a path has at most ${MAX_PATH_TOKENS} levels` };
  const tokens: string[] = [];
  for (const token of raw) {
    if (/~(?![01])/.test(token)) return { ok: false, detail: "in a path, ~ is written ~0 and / is written ~1" };
    tokens.push(token.replaceAll("~1", "/").replaceAll("~0", "~"));
  }
  return { ok: true, tokens };
}

/** What is at a path: the value, or the part of the path that is not there. */
export type Lookup = { readonly found: true; readonly value: unknown } | { readonly found: false; readonly missing: string };

/** The value at `tokens` in `doc`: own members of objects, indexes of arrays (decimal, no leading zero). */
export function valueAt(doc: unknown, tokens: readonly string[]): Lookup {
  let here: unknown = doc;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (Array.isArray(here)) {
      if (!/^(?:0|[1-9]\d{0,8})$/.test(token) || Number(token) >= here.length) return { found: false, missing: pointerOf(tokens.slice(0, i + 1)) };
      here = here[Number(token)];
    } else if (here !== null && typeof here === "object" && Object.hasOwn(here, token)) {
      here = (here as Record<string, unknown>)[token];
    } else {
      return { found: false, missing: pointerOf(tokens.slice(0, i + 1)) };
    }
  }
  return { found: true, value: here };
}

/** Tokens written back as a pointer (for a reason or an error). */
export function pointerOf(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}
