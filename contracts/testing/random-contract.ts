/**
 * @module Random well-typed contracts for the differential test: one aggregate with a field of
 * every action-usable type, and actions whose conditions and assignments are random typed
 * expressions (overflow-prone integers, multi-byte texts, lists at capacity, unset identities).
 * Structure comes from a seed, so a failure is reproduced from the seed alone.
 */
import type { Expr, Type } from "../ast.ts";
import { buildContract, E, T } from "./ast-builder.ts";
import type { ActionSpec } from "./ast-builder.ts";
import type { Contract } from "../ast.ts";
import { seededRandom } from "../../shared/random.ts";

const COLORS = ["Red", "Green", "Blue"];
const Color = T.enum(...COLORS);

/** The aggregate's fields, in order. */
export const FIELDS: readonly (readonly [string, Type])[] = [
  ["i1", T.int],
  ["i2", T.int],
  ["t1", T.text(3)],
  ["t2", T.text(6)],
  ["b", T.bool],
  ["d", T.date],
  ["e", Color],
  ["who", T.identity],
  ["ref", T.ref("Thing")],
  ["li", T.list(T.int, 3)],
  ["lt", T.list(T.text(3), 2)],
  ["lid", T.list(T.identity, 2)],
  ["v", T.vector(2)],
  ["v2", T.vector(2)],
];

/** Every action takes these parameters. */
export const PARAMS: readonly (readonly [string, Type])[] = [
  ["pi", T.int],
  ["pt", T.text(4)],
  ["pid", T.identity],
  ["pr", T.ref("Thing")],
  ["pl", T.list(T.int, 2)],
  // Wider than the fields they may be assigned to: exercises the narrowing copies.
  ["pl5", T.list(T.int, 5)],
  ["plt", T.list(T.text(6), 2)],
];

const INT_LITERALS = ["0", "1", "-1", "2", "7", "100", "3037000500", "4611686018427387904", "9223372036854775807", "-9223372036854775807"];
const TEXT_LITERALS = ["", "a", "é", "😀", "ab", "zé"];
const DATES = ["1970-01-01", "1969-12-31", "2000-02-29", "2026-11-21"];


class Gen {
  readonly r: () => number;
  constructor(seed: number) {
    this.r = seededRandom(seed);
  }
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<X>(xs: readonly X[]): X {
    return xs[this.int(xs.length)] as X;
  }
  field(name: string): Expr {
    const t = FIELDS.find(([n]) => n === name)?.[1] as Type;
    return E.state(name, t);
  }
  param(name: string): Expr {
    const t = PARAMS.find(([n]) => n === name)?.[1] as Type;
    return E.param(name, t);
  }

  intExpr(depth: number): Expr {
    const leaf = (): Expr => this.pick<() => Expr>([
      () => (this.int(4) === 0 ? E.neg(E.int(this.pick(INT_LITERALS))) : E.int(this.pick(INT_LITERALS))),
      () => this.field(this.pick(["i1", "i2"])),
      () => this.param("pi"),
      () => E.time(),
      () => E.call("len", [this.textExpr(0)], T.int),
      () => E.call("len", [this.field(this.pick(["li", "lt", "lid"]))], T.int),
    ])();
    if (depth <= 0 || this.int(3) === 0) return leaf();
    if (this.int(6) === 0) return E.neg(this.intExpr(depth - 1));
    return E.bin(this.pick(["+", "-", "*", "/", "%"] as const), this.intExpr(depth - 1), this.intExpr(depth - 1));
  }

  textExpr(depth: number): Expr {
    const leaf = (): Expr => this.pick<() => Expr>([
      () => this.field(this.pick(["t1", "t2"])),
      () => this.param("pt"),
      () => E.text(this.pick(TEXT_LITERALS)),
    ])();
    if (depth <= 0 || this.int(3) !== 0) return leaf();
    return E.bin("+", this.textExpr(depth - 1), this.textExpr(depth - 1));
  }

  identityExpr(): Expr {
    return this.pick<() => Expr>([() => this.field("who"), () => this.param("pid"), () => E.signer()])();
  }

  listExpr(kind: "li" | "lt" | "lid", depth: number): Expr {
    const base = (): Expr => (kind === "li" && this.int(3) === 0 ? this.param("pl") : this.field(kind));
    if (depth <= 0 || this.int(2) === 0) return base();
    const list = this.listExpr(kind, depth - 1);
    const item = kind === "li" ? this.intExpr(1) : kind === "lt" ? this.textExpr(1) : this.identityExpr();
    return E.call(this.pick(["append", "remove"]), [list, item], list.type as Type);
  }

  boolExpr(depth: number): Expr {
    const leaf = (): Expr => this.pick<() => Expr>([
      () => E.bool(this.int(2) === 0),
      () => this.field("b"),
      () => E.bin(this.pick(["==", "!="] as const), this.field("e"), E.value(this.pick(COLORS), Color)),
      () => E.bin(this.pick(["==", "!="] as const), this.identityExpr(), this.identityExpr()),
      () => E.bin(this.pick(["==", "!="] as const), this.field("ref"), this.param("pr")),
      () => E.bin(this.pick(["<", "<=", ">", ">=", "==", "!="] as const), this.field("d"), E.date(this.pick(DATES))),
    ])();
    if (depth <= 0 || this.int(4) === 0) return leaf();
    const cmp = ["<", "<=", ">", ">=", "==", "!="] as const;
    return this.pick<() => Expr>([
      () => E.bin(this.pick(cmp), this.intExpr(depth - 1), this.intExpr(depth - 1)),
      () => E.bin(this.pick(cmp), this.textExpr(depth - 1), this.textExpr(depth - 1)),
      () => E.bin(this.pick(["and", "or"] as const), this.boolExpr(depth - 1), this.boolExpr(depth - 1)),
      () => E.not(this.boolExpr(depth - 1)),
      () => E.bin("in", this.intExpr(depth - 1), this.listExpr("li", 1)),
      () => E.bin("in", this.textExpr(depth - 1), this.field("lt")),
      () => E.bin("in", this.identityExpr(), this.field("lid")),
      () => E.bin(this.pick(["==", "!="] as const), this.listExpr("li", 1), this.listExpr("li", 1)),
      () => E.bin(this.pick(["==", "!="] as const), this.listExpr("lt", 1), this.field("lt")),
    ])();
  }

  valueFor(field: string): Expr {
    switch (field) {
      case "i1":
      case "i2":
        return this.intExpr(3);
      case "t1":
      case "t2":
        return this.textExpr(2);
      case "b":
        return this.boolExpr(2);
      case "d":
        return this.int(2) === 0 ? this.field("d") : E.date(this.pick(DATES));
      case "e":
        return this.int(2) === 0 ? this.field("e") : E.value(this.pick(COLORS), Color);
      case "who":
        return this.identityExpr();
      case "ref":
        return this.int(2) === 0 ? this.field("ref") : this.param("pr");
      case "li":
        return this.int(4) === 0 ? this.param("pl5") : this.listExpr(field, 2);
      case "lt":
        return this.int(4) === 0 ? this.param("plt") : this.listExpr(field, 2);
      case "lid":
        return this.listExpr(field, 2);
      case "v":
        return this.field("v2");
      default:
        return this.field("v");
    }
  }

  action(name: string): ActionSpec {
    const conditions = Array.from({ length: this.int(4) }, () => this.boolExpr(3));
    const targets = FIELDS.map(([n]) => n);
    for (let i = targets.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [targets[i], targets[j]] = [targets[j] as string, targets[i] as string];
    }
    targets.length = 1 + this.int(4);
    return {
      name,
      params: PARAMS,
      ...(this.int(6) === 0 ? { authorizeField: "who" } : {}),
      validate: conditions,
      apply: targets.map((f) => [f, this.valueFor(f)] as const),
    };
  }
}

/** A random contract of `actions` actions over the fixed aggregate `Thing`. */
export function randomContract(seed: number, actions = 4): { contract: Contract; source: string } {
  const g = new Gen(seed);
  return buildContract({
    namespace: "test.random",
    aggregates: [{ name: "Thing", fields: FIELDS, actions: Array.from({ length: actions }, (_, i) => g.action(`A${i}`)) }],
  });
}
