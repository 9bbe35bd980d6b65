/**
 * @module What to write instead, for syntax errors whose cause is a habit from another language:
 * `&&`, `||` and `!` for `and`, `or` and `not`; text in single quotes; `=` to compare; `==` to
 * assign. Read from the text where the parser stopped and what it expected there; "" when the
 * error is none of these.
 */
import type { Expectation } from "./parser.js";

/** Advice for the syntax error at `offset` of `text`, where the parser expected `expected`. */
export function syntaxAdvice(text: string, offset: number, expected: readonly Expectation[] | null): string {
  const rest = text.slice(offset, offset + 80);
  const wantsOperator = expects(expected ?? [], "==");
  if (rest.startsWith("&&")) return "write `and` instead of `&&`";
  if (rest.startsWith("||")) return "write `or` instead of `||`";
  if (rest.startsWith("!") && !rest.startsWith("!=")) return "write `not` instead of `!`";
  if (rest.startsWith("'")) return 'text is written in double quotes: "like this"';
  if (wantsOperator && /^=[^=]/.test(rest)) return "compare with `==`; a single `=` assigns, and only in apply and migrate";
  if (/^state\.[A-Za-z_]\w*\s*==/.test(rest)) return "an apply or migrate line assigns with a single `=`: state.FIELD = VALUE";
  return "";
}

/** Whether the parser's expectations include the literal `text` (peggy may fold one-character literals into a class). */
export function expects(expected: readonly Expectation[], text: string): boolean {
  return expected.some(
    (e) => (e.type === "literal" && e.text === text) || (e.type === "class" && !e.inverted && text.length === 1 && e.parts.includes(text)),
  );
}
