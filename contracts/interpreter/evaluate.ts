/**
 * @module The interpreter's expression evaluation, written from the language reference (also what
 * runs `migrate` blocks when an upgrade is installed, once per record): bigints
 * checked against 64 bits, left-to-right operands, short-circuit `and`/`or`, refusals carried out
 * by a `Refusal` value.
 */
import type { Expr, Type } from "../ast.ts";
import { parseDate } from "../dates.ts";
import type { Reason, Site } from "../refusals.ts";
import { refusals } from "../refusals.ts";
import { codePoints, compareText, equal } from "./values.ts";
import type { Value } from "./values.ts";

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;

/** Carries a refusal out of a nested evaluation; caught in `execute`, never escapes it. */
export class Refusal {
  readonly reason: Reason;
  constructor(reason: Reason) {
    this.reason = reason;
  }
}

/** What names read while one action runs; `site` is the line being evaluated. */
export interface Env {
  readonly state: ReadonlyMap<string, Value>;
  /** The previous version's state, inside a `migrate` block (upgrades run it once per record). */
  readonly old?: ReadonlyMap<string, Value>;
  readonly args: ReadonlyMap<string, Value>;
  readonly signer: string | null;
  readonly time: bigint;
  site: Site;
}

/** Refuses when a value does not fit a slot of type `t` (texts by length, lists by capacity). */
export function fits(t: Type, v: Value, site: Site): void {
  if (t.kind === "Text" && codePoints(v as string) > t.len) throw new Refusal(refusals.textTooLong(site, t.len));
  if (t.kind === "List") {
    if ((v as Value[]).length > t.cap) throw new Refusal(refusals.listFull(site, t.cap));
    for (const el of v as Value[]) fits(t.element, el, site);
  }
}

function int(n: bigint, site: Site): bigint {
  if (n < MIN || n > MAX) throw new Refusal(refusals.overflow(site));
  return n;
}

function typeOf(e: Expr): Type {
  if (e.type === undefined) throw new Error(`unchecked expression ${e.kind}`);
  return e.type;
}

/** The value of an expression, or a thrown Refusal. */
export function evaluate(e: Expr, env: Env): Value {
  switch (e.kind) {
    case "IntLit":
      return BigInt.asIntN(64, BigInt(e.value));
    case "BoolLit":
      return e.value;
    case "TextLit":
      return typeOf(e).kind === "Date" ? (parseDate(e.value) as number) : e.value;
    case "Name":
      if (e.resolved?.kind === "enum-value") return e.resolved.value;
      if (e.resolved?.kind === "param") return env.args.get(e.resolved.name) as Value;
      throw new Error(`unresolved name ${e.name}`);
    case "StateField":
      return env.state.get(e.field.name) as Value;
    case "Context":
      return e.field.name === "signer" ? env.signer : env.time;
    case "Unary": {
      const v = evaluate(e.operand, env);
      return e.op === "not" ? !v : int(-(v as bigint), env.site);
    }
    case "Binary":
      return binary(e.op, e.left, e.right, typeOf(e), env);
    case "Call":
      return call(e.fn.name, e.args, typeOf(e), env);
    case "OldField":
      if (env.old === undefined) throw new Error("old.FIELD outside a migrate block");
      return env.old.get(e.field.name) as Value;
    case "QueryParam":
      throw new Error(`${e.kind} in an action`);
  }
}

function binary(op: string, left: Expr, right: Expr, type: Type, env: Env): Value {
  if (op === "and") return evaluate(left, env) === true && evaluate(right, env) === true;
  if (op === "or") return evaluate(left, env) === true || evaluate(right, env) === true;
  const a = evaluate(left, env);
  const b = evaluate(right, env);
  const site = env.site;
  switch (op) {
    case "==":
      return equal(a, b);
    case "!=":
      return !equal(a, b);
    case "<":
    case "<=":
    case ">":
    case ">=": {
      if (a === null || b === null) return false;
      const c = typeof a === "string" ? compareText(a, b as string) : compareNumbers(a as bigint | number, b as bigint | number);
      return op === "<" ? c < 0 : op === "<=" ? c <= 0 : op === ">" ? c > 0 : c >= 0;
    }
    case "in":
      return (b as Value[]).some((x) => equal(x, a));
    case "+":
      if (type.kind === "Text") {
        const joined = (a as string) + (b as string);
        if (codePoints(joined) > type.len) throw new Refusal(refusals.textTooLong(site, type.len));
        return joined;
      }
      return int((a as bigint) + (b as bigint), site);
    case "-":
      return int((a as bigint) - (b as bigint), site);
    case "*":
      return int((a as bigint) * (b as bigint), site);
    case "/":
    case "%":
      if (b === 0n) throw new Refusal(refusals.divisionByZero(site));
      return op === "/" ? int((a as bigint) / (b as bigint), site) : (a as bigint) % (b as bigint);
    default:
      throw new Error(`unknown operator ${op}`);
  }
}

/** Int (bigint) or Date (day number) ordering. */
function compareNumbers(a: bigint | number, b: bigint | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function call(name: string, args: readonly Expr[], type: Type, env: Env): Value {
  const values = args.map((a) => evaluate(a, env));
  const [first, second] = values;
  if (name === "len") return BigInt(typeof first === "string" ? codePoints(first) : (first as Value[]).length);
  const list = first as Value[];
  if (name === "remove") return list.filter((x) => !equal(x, second as Value));
  if (name === "append") {
    if (type.kind !== "List") throw new Error("append() typed as a non-list");
    if (list.length >= type.cap) throw new Refusal(refusals.listFull(env.site, type.cap));
    fits(type, list, env.site);
    fits(type.element, second as Value, env.site);
    return [...list, second as Value];
  }
  throw new Error(`unknown function ${name}`);
}
