/**
 * @module A calculator notebook: lines evaluated in order, each answering a value or its own
 * error while the others go on, names assigned on one line readable on the later ones. A line is
 * cut at `#` (a comment); what is left, if anything, is rewritten (line-rewrite.ts: dates,
 * percentages), its brackets counted (deeper than MAX_NESTING is refused before the parser
 * recurses), parsed, checked against what a line may say (line-check.ts), run on the locked
 * instance (calc-math.ts) and presented (line-result.ts).
 *
 * The whole request has a time budget: once it is spent, the line under way stops at its next
 * function call and every later line answers `time budget spent`. A pure library: the clock,
 * the wall-clock time of "now" and the rates come in as arguments.
 */
import { BudgetSpent, calcMath, type CalcMath, OverBound } from "./calc-math.ts";
import { checkLine, type Variable } from "./line-check.ts";
import { type LineResult, momentOf, present } from "./line-result.ts";
import { type Moment, rewriteLine } from "./line-rewrite.ts";

/** A notebook's bounds: what the route accepts, and how long one request may compute. */
export const MAX_LINES = 500;
export const MAX_LINE_LENGTH = 1000;
export const MAX_NESTING = 32;
export const BUDGET_MS = 250;
const MAX_ERROR_LENGTH = 200;
const MISMATCH = "these values do not go together (a number and a unit, or units of different kinds)";

/** A currency's rate: how many of it one unit of the base buys (decimal text), and its day. */
export interface Rate {
  readonly code: string;
  readonly perBase: string;
  readonly date: string;
}

/** What evaluating needs besides the lines. */
export interface NotebookOptions {
  /** The wall-clock time of "now" in the person's zone (`today` is its day). */
  readonly now: Moment;
  readonly rates: readonly Rate[];
  /** The request's time budget, in ms of `clock`. */
  readonly budgetMs?: number;
  /** A clock in ms (performance.now by default): the budget's. */
  readonly clock?: () => number;
}

/** Evaluates `lines` in order: one result per line. */
export function evaluateLines(lines: readonly string[], options: NotebookOptions): LineResult[] {
  const cm = calcMath();
  // Whatever ran before, this request starts from decimal.js's configured state.
  cm.recover();
  const clock = options.clock ?? (() => performance.now());
  const deadline = clock() + (options.budgetMs ?? BUDGET_MS);
  const installed = cm.installRates(options.rates);
  const rateDates = new Map(options.rates.filter((r) => installed.has(r.code)).map((r) => [r.code, r.date]));
  const state: NotebookState = { cm, now: options.now, scope: new Map(), variables: new Map(), currencies: installed, rateDates };
  const results: LineResult[] = [];
  cm.setDeadline(deadline, clock);
  try {
    for (const line of lines) {
      results.push(clock() > deadline ? { error: "time budget spent" } : evaluateLine(line, state));
    }
  } finally {
    cm.setDeadline(Number.POSITIVE_INFINITY, clock);
  }
  return results;
}

interface NotebookState {
  readonly cm: CalcMath;
  readonly now: Moment;
  readonly scope: Map<string, unknown>;
  readonly variables: Map<string, Variable>;
  readonly currencies: ReadonlySet<string>;
  readonly rateDates: ReadonlyMap<string, string>;
}

function evaluateLine(line: string, state: NotebookState): LineResult {
  const { cm } = state;
  const hash = line.indexOf("#");
  const text = (hash < 0 ? line : line.slice(0, hash)).trim();
  if (text === "") return { value: null, text: "" };
  const rewritten = rewriteLine(text, state.now, /month|year/.test(text) ? dateNames(state) : undefined);
  if (!rewritten.ok) return { error: rewritten.error };
  const { expression, dates } = rewritten;
  if (nesting(expression) > MAX_NESTING) return { error: `brackets are nested more than ${MAX_NESTING} deep` };
  let node;
  try {
    node = cm.parse(expression);
  } catch (error) {
    const message = messageOf(error);
    // Positions in the parser's message count in the rewritten text: only the line's own are kept.
    return { error: expression === text ? message : message.replace(/\s*\(char \d+\)/g, "") };
  }
  const checked = checkLine(node, { math: cm, dates, variables: state.variables, currencies: state.currencies });
  if (!checked.ok) return { error: checked.error };
  for (const [name, moment] of dates) state.scope.set(name, cm.days(cm.decimal(moment.day).plus(cm.decimal(moment.second).div(86_400))));
  try {
    const value = node.compile().evaluate(state.scope);
    const result = present(cm, value, { date: checked.date, asPercent: rewritten.asPercent, currencies: checked.currencies, rateDates: state.rateDates });
    if (checked.assigns !== null) {
      if ("error" in result) {
        state.scope.delete(checked.assigns);
        state.variables.delete(checked.assigns);
      } else state.variables.set(checked.assigns, { date: checked.date, currencies: checked.currencies });
    }
    return result;
  } catch (error) {
    cm.recover();
    const message = messageOf(error);
    return { error: checked.date && message === MISMATCH ? "a date takes a duration: write today + 3 days" : message };
  } finally {
    for (const name of dates.keys()) state.scope.delete(name);
  }
}

/** The names earlier lines gave dates, with their moments (for calendar months on them). */
function dateNames(state: NotebookState): Map<string, Moment> {
  const names = new Map<string, Moment>();
  for (const [name, variable] of state.variables) {
    const moment = variable.date ? momentOf(state.cm, state.scope.get(name)) : null;
    if (moment !== null) names.set(name, moment);
  }
  return names;
}

/** How deep brackets of any kind nest in `text`. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (const ch of text) {
    if (ch === "(" || ch === "[" || ch === "{") deepest = Math.max(deepest, ++depth);
    else if (ch === ")" || ch === "]" || ch === "}") depth--;
  }
  return deepest;
}

/** A line's error as a sentence: the calculator's own, or mathjs's, bounded in length. */
function messageOf(error: unknown): string {
  if (error instanceof BudgetSpent || error instanceof OverBound) return error.message;
  if (error instanceof RangeError && /call stack/i.test(error.message)) return "the line is nested too deeply";
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith("[DecimalError]")) return "the result is beyond what the calculator can compute";
  if (message.startsWith("Unexpected type of argument") || message.startsWith("Units do not match")) return MISMATCH;
  return message.length > MAX_ERROR_LENGTH ? `${message.slice(0, MAX_ERROR_LENGTH)}…` : message;
}
