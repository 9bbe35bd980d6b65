/**
 * @module Completion for the Workbench's editor, in the page: the contract language's keywords,
 * modes and types (as the language reference and the language service's completion list them), and
 * the names the source itself declares (enums, records, aggregates, fields, actions, parameters),
 * chosen by what comes before the caret on its line. It is a typing aid, not a check: the node's
 * compiler (`POST /api/workbench/check`) is what says whether the contract is right. The page cannot
 * import the language service; `app/completion-words.test.ts` keeps these lists equal to its own.
 */

const TOP = ["namespace", "version", "upgrades", "enum", "record", "aggregate", "query", "migrate"];
const MEMBERS = ["public", "private", "index", "action"];
const CLAUSES = ["authorize", "merge", "durability", "validate", "apply", "effect"];
const OPERATORS = ["and", "or", "not", "in", "true", "false", "state.", "context."];
const FUNCTIONS = ["len", "append", "remove"];
const TYPES = ["Text(len=200)", "Int", "Bool", "Date", "Identity", "Float", "Enum(A, B)", "Ref<Aggregate>", "List<Int>(cap=10)", "Vector(dim=3)"];
export const MODES: Readonly<Record<string, readonly string[]>> = {
  authorize: ["anyone", "member", "owner", "delegate", "state."],
  merge: ["replay", "reject", "commute"],
  durability: ["memory", "local", "quorum"],
  api: ["public", "authenticated"],
};
export const STAGES = ["where", "sort", "take", "drop", "select", "let", "explode", "summarize", "search", "nearest", "latest", "asof", "traverse", "shortest"];
export const CONTEXT = ["signer", "time"];
export const EFFECTS = ["email", "pdf"];

/** A suggestion: the text that replaces the word before the caret, and what it is. */
export interface Suggestion {
  readonly label: string;
  readonly detail: string;
}

/** The suggestions at `caret` in `text`, and where the word they replace starts; at most `max`. */
export function suggest(text: string, caret: number, max = 12): { from: number; items: Suggestion[] } {
  const lineStart = text.lastIndexOf("\n", caret - 1) + 1;
  const before = text.slice(lineStart, caret);
  const word = /[A-Za-z_][A-Za-z0-9_]*$/.exec(before)?.[0] ?? "";
  const from = caret - word.length;
  const head = before.slice(0, before.length - word.length);
  const declared = declaredNames(text);
  let pool: Suggestion[];
  if (/\b(state|old)\.$/.test(head)) pool = declared.fields.map((f) => ({ label: f, detail: "field" }));
  else if (/\bcontext\.$/.test(head)) pool = CONTEXT.map((c) => ({ label: c, detail: "context" }));
  else if (/\$$/.test(head)) pool = declared.params.map((p) => ({ label: p, detail: "parameter" }));
  else if (/^\s*\|\s*$/.test(head)) pool = STAGES.map((s) => ({ label: s, detail: "stage" }));
  else if (/^\s*effect\s+$/.test(head)) pool = EFFECTS.map((e) => ({ label: e, detail: "effect" }));
  else {
    const mode = /^\s*(authorize|merge|durability)\s+$/.exec(head)?.[1] ?? (/\bapi\s+$/.test(head) ? "api" : null);
    if (mode !== null) pool = (MODES[mode] ?? []).map((m) => ({ label: m, detail: mode }));
    else if (/(:|\bList\s*<)\s*$/.test(head)) pool = [...TYPES.map((t) => ({ label: t, detail: "type" })), ...declared.types.map((t) => ({ label: t, detail: "declared" }))];
    else if (/^\s*$/.test(head)) {
      const keywords = [...new Set([...TOP, ...MEMBERS, ...CLAUSES])];
      pool = [...keywords.map((k) => ({ label: k, detail: "keyword" })), ...declared.all.map((n) => ({ label: n, detail: "declared" }))];
    } else pool = [...declared.all.map((n) => ({ label: n, detail: "declared" })), ...[...OPERATORS, ...FUNCTIONS].map((k) => ({ label: k, detail: "keyword" }))];
  }
  const lower = word.toLowerCase();
  const seen = new Set<string>();
  const items = pool.filter((s) => {
    if (seen.has(s.label) || s.label === word || !s.label.toLowerCase().startsWith(lower)) return false;
    seen.add(s.label);
    return true;
  });
  return { from, items: items.slice(0, max) };
}

/** The names a source declares, found by their keywords (not parsed: a suggestion may be wrong, never harmful). */
function declaredNames(text: string): { types: string[]; fields: string[]; params: string[]; all: string[] } {
  const types = [...text.matchAll(/^\s*(?:enum|record|aggregate)\s+([A-Za-z_]\w*)/gm)].map((m) => m[1] as string);
  const fields = [...text.matchAll(/^\s*(?:public|private)\s+([A-Za-z_]\w*)\s*:/gm)].map((m) => m[1] as string);
  const actions = [...text.matchAll(/^\s*(?:action|query)\s+([A-Za-z_]\w*)\s*\(([^)]*)\)/gm)];
  const params = actions.flatMap((m) => [...(m[2] ?? "").matchAll(/([A-Za-z_]\w*)\s*:/g)].map((p) => p[1] as string));
  const enumValues = [...text.matchAll(/\bEnum\s*\(([^)]*)\)|^\s*enum\s+\w+\s*\(([^)]*)\)/gm)].flatMap((m) => (m[1] ?? m[2] ?? "").split(",").map((v) => v.trim()).filter((v) => /^[A-Za-z_]\w*$/.test(v)));
  const unique = (list: string[]) => [...new Set(list)];
  return { types: unique(types), fields: unique(fields), params: unique(params), all: unique([...params, ...fields, ...enumValues, ...types, ...actions.map((m) => m[1] as string)]) };
}

/** The action names a source declares, for the steps' action fields. */
export function declaredActions(text: string): string[] {
  return [...new Set([...text.matchAll(/^\s*action\s+([A-Za-z_]\w*)\s*\(/gm)].map((m) => m[1] as string))];
}
