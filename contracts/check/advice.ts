/**
 * @module What to write instead: the advice the checker puts on a diagnostic's second line for the
 * mistakes people make most — a value written in quotes where the language wants it bare (an enum
 * value, a number, `true`/`false`), text compared with an enum, and a misspelt name. Each function
 * gives "" when it has nothing better to say than the message.
 */
import type { AggregateDecl, Expr, Type } from "../ast.ts";

type EnumType = Extract<Type, { kind: "Enum" }>;

/**
 * Advice for `value` written where an `expected` value belongs: `write 5, not "5"` and the like.
 * `subject` names what expects it (`state.status`), for an enum written inline, which has no name.
 */
export function quotedValueAdvice(expected: Type, value: Expr, subject: string): string {
  if (value.kind !== "TextLit") return "";
  const text = value.value;
  switch (expected.kind) {
    case "Enum":
      return enumTextAdvice(expected, subject, value);
    case "Int":
      return /^-?[0-9]{1,19}$/.test(text.trim()) ? `write ${text.trim()}, not "${text}": numbers take no quotes` : "";
    case "Bool":
      return text === "true" || text === "false" ? `write ${text}, not "${text}": true and false take no quotes` : "";
    default:
      return "";
  }
}

/**
 * Advice for text compared with (or given for) an enum: its values are names, never text.
 * `subject` names an enum written inline (`state.status is an enum`).
 */
export function enumTextAdvice(enumType: EnumType, subject: string, text: Expr): string {
  const label = enumType.name ?? subject;
  if (text.kind === "TextLit") {
    if (enumType.values.includes(text.value)) return `${label} is an enum; write ${text.value}, not "${text.value}"`;
    return `${label} is an enum; write one of its values without quotes: ${valueList(enumType.values)}`;
  }
  return `${label} is an enum and never equals text; compare it with one of its values: ${valueList(enumType.values)}`;
}

/** `New, Requested or Shipped` (or `and`; a long list is cut short). */
export function valueList(values: readonly string[], conjunction: "or" | "and" = "or"): string {
  const shown = values.length > 8 ? [...values.slice(0, 7), "…"] : values;
  if (shown.length <= 1) return shown.join("");
  return `${shown.slice(0, -1).join(", ")} ${conjunction} ${shown.at(-1) ?? ""}`;
}

/** Advice for a bare name that is not a value of the enum expected there: a named enum's values. */
export function enumValuesAdvice(enumType: EnumType): string {
  return enumType.name === undefined ? "" : `${enumType.name} has the values ${valueList(enumType.values, "and")}`;
}

/**
 * `did you mean status?` for the known name nearest a misspelt `name`: at most two edits away (one
 * for a name of four characters or fewer), the first in `known` order on a tie.
 */
export function didYouMean(name: string, known: Iterable<string>, prefix = ""): string {
  const limit = name.length <= 4 ? 1 : 2;
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    if (candidate === name || Math.abs(candidate.length - name.length) > limit) continue;
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best === null ? "" : `did you mean ${prefix}${best}?`;
}

/** `did you mean state.status?` for a misspelt field of `aggregate`. */
export function fieldAdvice(aggregate: AggregateDecl, name: string): string {
  return didYouMean(name, aggregate.fields.map((f) => f.name.name), "state.");
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = d;
    }
  }
  return at(a.length, b.length);
}

/** How an operand is written, for naming an inline enum: `state.status`, `old.status`, `status`. */
export function operandName(e: Expr): string {
  switch (e.kind) {
    case "StateField":
      return `state.${e.field.name}`;
    case "OldField":
      return `old.${e.field.name}`;
    case "Name":
      return e.name;
    case "QueryParam":
      return `$${e.name.name}`;
    default:
      return "the other side";
  }
}
