/**
 * @module The calculator's one mathjs instance, locked down. Numbers are decimal (`BigNumber`, 64
 * significant digits), so `0.1 + 0.2` is exactly `0.3`. What a line may reach is decided twice:
 * line-check.ts admits only the functions and operators named here (an allowlist), and the
 * instance itself has `import`, `createUnit`, `evaluate`, `parse`, `compile` and the other
 * functions that build values of a caller-chosen size replaced by ones that refuse.
 *
 * Cost is bounded per call, not only per request: every function a line may call first checks the
 * request's deadline (so a line of a hundred costly calls stops at the budget), and those whose
 * cost grows with an argument refuse past a bound (`factorial` past 5,000, trigonometry past 1e21,
 * `exp` past 1e15, `nthRoot` past a millionth root), each bound well inside a few milliseconds.
 *
 * decimal.js keeps two pieces of module state that an exception thrown mid-computation leaves
 * wrong (its internal "external" flag and a raised working precision): every later computation in
 * the process then runs unrounded, seconds for a cube root. `recover()` puts both back, before
 * every request and after every failed line.
 *
 * mathjs is loaded from its one-file build on first use, not at the gateway's start: the ES module
 * tree takes half a second and ~110 MB to load, the one file 60 ms and ~20 MB, and a node that
 * never calculates pays nothing. Currencies are units of one dimension of their own, with the
 * rates installed as their sizes (`installRates`); the request's rates replace the last ones.
 */
import { createRequire } from "node:module";
import type { BigNumber, MathJsInstance, MathNode, Unit } from "mathjs";

/** Functions a line may call, each with the bound its arguments must keep (null: none). */
const FUNCTIONS = {
  abs: null,
  sqrt: null,
  cbrt: null,
  nthRoot: (args: readonly unknown[]) => atMost(args[1], 1e6, "nthRoot's root"),
  exp: (args: readonly unknown[]) => atMost(args[0], 1e15, "exp's argument"),
  log: null,
  log10: null,
  log2: null,
  round: (args: readonly unknown[]) => atMost(args[1], 64, "the number of decimals"),
  floor: (args: readonly unknown[]) => atMost(args[1], 64, "the number of decimals"),
  ceil: (args: readonly unknown[]) => atMost(args[1], 64, "the number of decimals"),
  fix: (args: readonly unknown[]) => atMost(args[1], 64, "the number of decimals"),
  sign: null,
  min: null,
  max: null,
  mean: null,
  median: null,
  sum: null,
  hypot: null,
  mod: null,
  pow: null,
  sin: (args: readonly unknown[]) => atMost(args[0], 1e21, "the angle"),
  cos: (args: readonly unknown[]) => atMost(args[0], 1e21, "the angle"),
  tan: (args: readonly unknown[]) => atMost(args[0], 1e21, "the angle"),
  asin: null,
  acos: null,
  atan: null,
  atan2: null,
  factorial: (args: readonly unknown[]) => atMost(args[0], 5000, "factorial's argument"),
  to: null,
} as const satisfies Record<string, ((args: readonly unknown[]) => void) | null>;

/** The operators' functions a line may use (`+` is `add`, `!` is `factorial`, `in`/`to` is `to`, …). */
const OPERATORS: ReadonlySet<string> = new Set(["add", "subtract", "multiply", "divide", "mod", "pow", "unaryMinus", "unaryPlus", "factorial", "to", "equal", "unequal", "smaller", "larger", "smallerEq", "largerEq", "and", "or", "not", "xor"]);

/** Constants a line may name. */
const CONSTANTS: ReadonlySet<string> = new Set(["pi", "e", "tau", "phi", "true", "false", "Infinity", "NaN"]);

/** Functions replaced by refusals: they evaluate text, change the instance, or build values of a chosen size. */
const DISABLED = [
  "import", "createUnit", "evaluate", "parse", "parser", "compile", "simplify", "simplifyConstant", "simplifyCore", "derivative", "resolve", "rationalize", "reviver", "replacer", "chain", "help",
  "zeros", "ones", "identity", "range", "random", "randomInt", "pickRandom", "matrix", "sparse", "diag", "resize", "reshape", "concat", "kron", "map", "forEach", "filter", "sort", "combinations", "permutations", "gamma", "lgamma",
];

/** A line spent the request's time budget. */
export class BudgetSpent extends Error {
  constructor() {
    super("time budget spent");
  }
}

/** A value over a bound that keeps a call cheap. */
export class OverBound extends Error {}

/** The base unit of the currencies' dimension: ISO 4217's code for "no currency", never a rate's code. */
export const MONEY_BASE = "XXX";

/** A currency to install: its code and how many of it one unit of the base buys (decimal text). */
export interface CurrencyRate {
  readonly code: string;
  readonly perBase: string;
}

/** The locked instance and what the notebook needs of it. */
export interface CalcMath {
  readonly math: MathJsInstance;
  /** Parses one line (the parser kept before `parse` was disabled in the namespace). */
  parse(text: string): MathNode;
  /** Whether `name` is a function a line may call. */
  isFunction(name: string): boolean;
  /** Whether `name` is an operator's function a line may use. */
  isOperator(name: string): boolean;
  /** Whether `name` is a constant a line may name. */
  isConstant(name: string): boolean;
  /** Whether `name` is in mathjs's namespace (a function or constant, allowed or not). */
  isReserved(name: string): boolean;
  /** Whether `name` is a unit (or a unit with a prefix). */
  isUnit(name: string): boolean;
  /** A decimal. */
  decimal(value: string | number): BigNumber;
  /** `days` days, as a unit of time. */
  days(days: BigNumber): Unit;
  /** Calls made from now on refuse once `clock()` passes `deadline` (ms). */
  setDeadline(deadline: number, clock: () => number): void;
  /** Puts decimal.js's state back after a failed computation (see the module comment). */
  recover(): void;
  /** Installs these currencies (replacing the last ones); answers the codes installed. */
  installRates(rates: readonly CurrencyRate[]): ReadonlySet<string>;
}

let built: CalcMath | null = null;

/** The process's instance, built on first use. */
export function calcMath(): CalcMath {
  built ??= buildCalcMath();
  return built;
}

interface MathBundle {
  create(config: object): MathJsInstance;
}

function buildCalcMath(): CalcMath {
  // The one-file build is itself an instance whose `create` takes the configuration alone.
  const bundle = createRequire(import.meta.url)("mathjs/lib/browser/math.js") as MathBundle;
  const math = bundle.create({ number: "BigNumber", precision: 64 });
  const namespace = math as unknown as Record<string, unknown>;
  const expression = (math as unknown as { expression: { transform: Record<string, unknown>; mathWithTransform: Record<string, unknown> } }).expression;
  // Every factory is made now, while the functions it depends on are mathjs's own: one made after
  // the refusals below are imported would be built on them.
  for (const table of [namespace, expression.transform, expression.mathWithTransform]) {
    for (const key of Object.keys(table)) {
      try {
        void table[key];
      } catch {
        // A factory that cannot be made here is not one a line can reach.
      }
    }
  }
  const parse = math.parse.bind(math);
  const BigNumberClass = (math as unknown as { BigNumber: unknown }).BigNumber as { new (v: string | number): BigNumber; precision: number; rounding: number; set(config: object): void };
  const UnitClass = math.Unit as unknown as {
    isValuelessUnit(name: string): boolean;
    createUnitSingle(name: string, definition: object): Unit;
    deleteUnit(name: string): void;
  };
  const config = { precision: BigNumberClass.precision, rounding: BigNumberClass.rounding };

  let deadline = Number.POSITIVE_INFINITY;
  let clock: () => number = () => 0;
  const refusals: Record<string, () => never> = {};
  for (const name of DISABLED) {
    refusals[name] = () => {
      throw new Error(`${name} is not available`);
    };
  }
  const guarded: Record<string, (...args: unknown[]) => unknown> = {};
  const guard = (name: string, bound: ((args: readonly unknown[]) => void) | null) => {
    const original = namespace[name] as (...args: unknown[]) => unknown;
    guarded[name] = (...args: unknown[]) => {
      if (clock() > deadline) throw new BudgetSpent();
      bound?.(args);
      return original(...args);
    };
  };
  for (const [name, bound] of Object.entries(FUNCTIONS)) guard(name, bound);
  for (const name of OPERATORS) if (!Object.hasOwn(FUNCTIONS, name)) guard(name, null);
  math.import({ ...refusals, ...guarded }, { override: true });

  UnitClass.createUnitSingle(MONEY_BASE, {});
  const decimalOrNull = (text: string): BigNumber | null => {
    if (text.length > 40) return null;
    try {
      return new BigNumberClass(text);
    } catch {
      return null;
    }
  };
  let installed = new Set<string>();
  let installedKey = "";

  return {
    math,
    parse,
    isFunction: (name) => Object.hasOwn(FUNCTIONS, name),
    isOperator: (name) => OPERATORS.has(name),
    isConstant: (name) => CONSTANTS.has(name),
    isReserved: (name) => name in namespace,
    isUnit: (name) => UnitClass.isValuelessUnit(name),
    decimal: (value) => new BigNumberClass(value),
    days: (days) => math.unit(days, "days"),
    setDeadline(at, now) {
      deadline = at;
      clock = now;
    },
    recover() {
      BigNumberClass.set(config);
      // Any decimal.js operation that ends normally sets the flag back; this one is cheap.
      (new BigNumberClass(1) as unknown as { toFraction(): unknown }).toFraction();
    },
    installRates(rates) {
      const key = rates.map((r) => `${r.code}=${r.perBase}`).join(";");
      if (key === installedKey) return installed;
      for (const code of installed) UnitClass.deleteUnit(code);
      const next = new Set<string>();
      for (const { code, perBase } of rates) {
        // A code that is already a unit keeps meaning that unit (none of ISO 4217's is, today).
        if (!/^[A-Z]{3}$/.test(code) || code === MONEY_BASE || UnitClass.isValuelessUnit(code)) continue;
        const per = decimalOrNull(perBase);
        // A record written elsewhere than the rates route may hold text that is no rate: it is left out.
        if (per === null || !per.isFinite() || !per.isPositive()) continue;
        UnitClass.createUnitSingle(code, { definition: math.unit(new BigNumberClass(1).div(per), MONEY_BASE) });
        next.add(code);
      }
      installed = next;
      installedKey = key;
      return installed;
    },
  };
}

/** Refuses when `value` (a number, a decimal or a unit's value) is larger in size than `limit`. */
function atMost(value: unknown, limit: number, what: string): void {
  const size = magnitude(value);
  if (size !== null && size > limit) throw new OverBound(`${what} is over ${limit.toLocaleString("en")}`);
}

/** The absolute size of a number, decimal or unit's value; null for anything else (left to mathjs). */
function magnitude(value: unknown): number | null {
  if (typeof value === "number") return Math.abs(value);
  if (value === null || typeof value !== "object") return null;
  const v = value as { isBigNumber?: boolean; type?: string; value?: unknown; abs?: () => { toNumber(): number } };
  if (v.isBigNumber === true && v.abs !== undefined) return v.abs().toNumber();
  if (v.type === "Unit") return magnitude(v.value);
  return null;
}
