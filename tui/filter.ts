/**
 * @module The `/` filter's language, shared by the views: whitespace-separated terms, each either
 * `key:value` (a field must match; a key given twice matches either value) or a bare word that
 * must appear somewhere in the row. `tenant:acme outcome:refused Ship` is one filter.
 */

export interface Filter {
  readonly text: string;
  /** Field terms by key, lower-cased keys; values as typed. */
  readonly fields: ReadonlyMap<string, readonly string[]>;
  /** Bare words, lower-cased. */
  readonly words: readonly string[];
}

export const noFilter: Filter = Object.freeze({ text: "", fields: new Map(), words: [] });

/** Key aliases, so `ns:` and `namespace:` mean the same. */
const aliases: Record<string, string> = { ns: "namespace", t: "tenant", o: "outcome", l: "level", c: "component" };

export function parseFilter(text: string): Filter {
  const fields = new Map<string, string[]>();
  const words: string[] = [];
  for (const term of text.trim().split(/\s+/).filter((t) => t !== "")) {
    const colon = term.indexOf(":");
    // `did:key:…` is a word, not a field: only known keys make a field term.
    const key = colon > 0 ? term.slice(0, colon).toLowerCase() : "";
    const name = aliases[key] ?? key;
    if (colon > 0 && colon < term.length - 1 && knownKeys.has(name)) fields.set(name, [...(fields.get(name) ?? []), term.slice(colon + 1)]);
    else words.push(term.toLowerCase());
  }
  return { text: text.trim(), fields, words };
}

const knownKeys = new Set(["kind", "tenant", "namespace", "outcome", "action", "subject", "signer", "code", "status", "level", "component"]);

/** Whether `value` is allowed by the `key` terms of `filter` (no such terms allow everything). */
export function fieldAllows(filter: Filter, key: string, value: string): boolean {
  const wanted = filter.fields.get(key);
  return wanted === undefined || wanted.some((w) => w.toLowerCase() === value.toLowerCase());
}

/** Whether every bare word of `filter` occurs in `haystack` (case-insensitive). */
export function wordsMatch(filter: Filter, haystack: string): boolean {
  const text = haystack.toLowerCase();
  return filter.words.every((w) => text.includes(w));
}
