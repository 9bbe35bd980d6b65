/**
 * @module What a parsed line may say, checked before it runs: numbers, units, currencies, names
 * of earlier lines, the constants and functions calc-math.ts allows, the operators it allows,
 * parentheses, `a ? b : c`, comparisons, and one assignment at the top (`rent = 1200`). Nothing
 * else: no lists, matrices, ranges, indexing, objects, text, function definitions or blocks.
 *
 * The same pass says whether the line's value is a date. A date may have a duration added or
 * subtracted (a date), be subtracted from a date (a duration) or compared with one; anything else
 * done to a date is refused here, with a sentence, rather than left to a unit error.
 *
 * The walk is iterative (a line of a thousand `-` signs is a thousand levels deep) and stops
 * after MAX_NODES nodes.
 */
import type { MathNode } from "mathjs";
import { type CalcMath, MONEY_BASE } from "./calc-math.ts";
import type { Moment } from "./line-rewrite.ts";

/** What is known of a name an earlier line assigned. */
export interface Variable {
  readonly date: boolean;
  /** The currencies its value was computed from (a result in a currency names their rates' dates). */
  readonly currencies: ReadonlySet<string>;
}

/** What a check needs to know. */
export interface CheckContext {
  readonly math: CalcMath;
  /** The line's date placeholders (line-rewrite.ts). */
  readonly dates: ReadonlyMap<string, Moment>;
  readonly variables: ReadonlyMap<string, Variable>;
  /** The currencies with a rate. */
  readonly currencies: ReadonlySet<string>;
}

/** A line that may run: whether its value is a date, the currencies it uses, the name it assigns. */
export type Checked =
  | { readonly ok: true; readonly date: boolean; readonly currencies: ReadonlySet<string>; readonly assigns: string | null }
  | { readonly ok: false; readonly error: string };

export const MAX_NODES = 2000;

/** The fields of mathjs's nodes this pass reads. */
interface Node {
  readonly type: string;
  readonly fn?: string | Node;
  readonly op?: string;
  readonly name?: string;
  readonly value?: unknown;
  readonly args?: readonly Node[];
  readonly params?: readonly Node[];
  readonly content?: Node;
  readonly object?: Node;
  readonly index?: unknown;
  readonly condition?: Node;
  readonly trueExpr?: Node;
  readonly falseExpr?: Node;
}

const COMPARISONS: ReadonlySet<string> = new Set(["equal", "unequal", "smaller", "larger", "smallerEq", "largerEq"]);

const NOT_AVAILABLE: Readonly<Record<string, string>> = {
  ArrayNode: "lists and matrices are not available",
  MatrixNode: "lists and matrices are not available",
  IndexNode: "indexing is not available",
  AccessorNode: "indexing is not available",
  ObjectNode: "objects are not available",
  RangeNode: "ranges are not available",
  FunctionAssignmentNode: "defining functions is not available",
  BlockNode: "one expression per line",
};

/** Checks `root`, a parsed line (see the module comment). */
export function checkLine(root: MathNode, ctx: CheckContext): Checked {
  const dates = new Map<Node, boolean>();
  const currencies = new Set<string>();
  const stack: { node: Node; open: boolean }[] = [{ node: root as unknown as Node, open: true }];
  let seen = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { node: Node; open: boolean };
    if (top.open) {
      if (++seen > MAX_NODES) return fail(`a line holds at most ${MAX_NODES} terms`);
      const error = admit(top.node, top.node === (root as unknown as Node), ctx, currencies);
      if (error !== null) return fail(error);
      top.open = false;
      // Pushed last first, so the leftmost child is looked at first (and an error names the first name wrong).
      const children = childrenOf(top.node);
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i] as Node, open: true });
      continue;
    }
    stack.pop();
    const date = dateOf(top.node, dates, ctx);
    if (typeof date === "string") return fail(date);
    dates.set(top.node, date);
  }
  const top = root as unknown as Node;
  return { ok: true, date: dates.get(top) === true, currencies, assigns: top.type === "AssignmentNode" ? ((top.object as Node).name as string) : null };
}

function fail(error: string): Checked {
  return { ok: false, error };
}

/** Null when `node` may stand where it is; else why not. Records the currencies it names. */
function admit(node: Node, atRoot: boolean, ctx: CheckContext, currencies: Set<string>): string | null {
  const { math } = ctx;
  switch (node.type) {
    case "ConstantNode": {
      const type = math.math.typeOf(node.value);
      return type === "number" || type === "BigNumber" || type === "boolean" ? null : type === "string" ? "text is not available" : `${String(node.value)} is not available`;
    }
    case "SymbolNode":
      return symbolError(node.name as string, ctx, currencies);
    case "OperatorNode":
      return math.isOperator(node.fn as string) ? null : `the operator ${node.op} is not available`;
    case "FunctionNode": {
      const fn = node.fn as Node;
      if (fn.type !== "SymbolNode") return "only named functions can be called";
      const name = fn.name as string;
      if (math.isFunction(name)) return null;
      return ctx.variables.has(name) ? `${name} is not a function` : `${name}() is not available`;
    }
    case "AssignmentNode":
      return atRoot ? assignmentError(node, ctx) : "an assignment stands alone on its line";
    case "ParenthesisNode":
    case "ConditionalNode":
    case "RelationalNode":
      return null;
    default:
      return NOT_AVAILABLE[node.type] ?? `${node.type} is not available`;
  }
}

/** Null when a line may name `name`; else why not. */
function symbolError(name: string, ctx: CheckContext, currencies: Set<string>): string | null {
  const { math } = ctx;
  if (ctx.dates.has(name)) return null;
  const variable = ctx.variables.get(name);
  if (variable !== undefined) {
    for (const code of variable.currencies) currencies.add(code);
    return null;
  }
  if (math.isConstant(name)) return null;
  if (ctx.currencies.has(name)) {
    currencies.add(name);
    return null;
  }
  if (name === MONEY_BASE) return `no rate for the currency ${name}`;
  if (math.isReserved(name)) return math.isFunction(name) ? `${name} is a function: write ${name}(…)` : `${name} is not available`;
  if (math.isUnit(name)) return null;
  if (/^[A-Z]{3}$/.test(name)) return `no rate for the currency ${name}`;
  return `unknown name: ${name}`;
}

function assignmentError(node: Node, ctx: CheckContext): string | null {
  const target = node.object as Node;
  if (target.type !== "SymbolNode" || (node.index !== null && node.index !== undefined)) return "only a name can be assigned to";
  const name = target.name as string;
  if (ctx.dates.has(name)) return "a date is not a name to assign to";
  if (ctx.math.isReserved(name)) return `${name} is a built-in name`;
  if (ctx.currencies.has(name)) return `${name} is a currency`;
  if (ctx.math.isUnit(name)) return `${name} is a unit`;
  return null;
}

function childrenOf(node: Node): readonly Node[] {
  switch (node.type) {
    case "OperatorNode":
    case "FunctionNode":
      return node.args ?? [];
    case "ParenthesisNode":
      return [node.content as Node];
    case "AssignmentNode":
      return [node.value as Node];
    case "ConditionalNode":
      return [node.condition as Node, node.trueExpr as Node, node.falseExpr as Node];
    case "RelationalNode":
      return node.params ?? [];
    default:
      return [];
  }
}

/** Whether `node`'s value is a date (its children's already known), or why the line cannot be. */
function dateOf(node: Node, dates: ReadonlyMap<Node, boolean>, ctx: CheckContext): boolean | string {
  const of = (child: Node | undefined) => (child === undefined ? false : dates.get(child) === true);
  switch (node.type) {
    case "SymbolNode": {
      const name = node.name as string;
      return ctx.dates.has(name) || ctx.variables.get(name)?.date === true;
    }
    case "ParenthesisNode":
      return of(node.content);
    case "AssignmentNode":
      return of(node.value as Node);
    case "OperatorNode": {
      const args = node.args ?? [];
      const [a, b] = [of(args[0]), of(args[1])];
      if (!a && !b) return false;
      const fn = node.fn as string;
      if (fn === "add" && args.length === 2) return a && b ? "two dates cannot be added" : true;
      if (fn === "subtract" && args.length === 2) return a && b ? false : a ? true : "a date cannot be subtracted from a duration";
      if (COMPARISONS.has(fn)) return a && b ? false : "a date can only be compared with a date";
      return "a date can only have a duration added or subtracted, or be compared with a date";
    }
    case "FunctionNode":
      return (node.args ?? []).some(of) ? `${(node.fn as Node).name}() does not take a date` : false;
    case "ConditionalNode": {
      if (of(node.condition)) return "a date is not a condition";
      const [t, f] = [of(node.trueExpr), of(node.falseExpr)];
      return t === f ? t : "both answers of ?: must be dates, or neither";
    }
    case "RelationalNode": {
      const params = node.params ?? [];
      const n = params.filter(of).length;
      return n === 0 || n === params.length ? false : "a date can only be compared with a date";
    }
    default:
      return false;
  }
}
