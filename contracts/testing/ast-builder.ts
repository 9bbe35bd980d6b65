/**
 * @module Checked contract trees built by hand, for the back end's tests: typed expressions, and a
 * contract whose Markdown source is printed alongside so spans, lines and condition texts are real.
 */
import type { ActionDecl, AggregateDecl, BinaryOp, Contract, Expr, FieldDecl, Span, Type, TypeExpr } from "../ast.ts";

const at: Span = [0, 0];
const id = (name: string, span: Span = at) => ({ name, span });

export const T = {
  int: { kind: "Int" } as Type,
  bool: { kind: "Bool" } as Type,
  date: { kind: "Date" } as Type,
  identity: { kind: "Identity" } as Type,
  text: (len: number): Type => ({ kind: "Text", len }),
  enum: (...values: string[]): Type => ({ kind: "Enum", values }),
  ref: (aggregate: string): Type => ({ kind: "Ref", aggregate }),
  list: (element: Type, cap: number): Type => ({ kind: "List", element, cap }),
  vector: (dim: number): Type => ({ kind: "Vector", dim }),
};

const BOOL_OPS = new Set<BinaryOp>(["or", "and", "==", "!=", "<", "<=", ">", ">=", "in"]);

export const E = {
  int: (v: bigint | number | string): Expr => ({ kind: "IntLit", value: String(v), span: at, type: T.int }),
  bool: (value: boolean): Expr => ({ kind: "BoolLit", value, span: at, type: T.bool }),
  text: (value: string, len = [...value].length): Expr => ({ kind: "TextLit", value, span: at, type: T.text(len) }),
  date: (value: string): Expr => ({ kind: "TextLit", value, span: at, type: T.date }),
  state: (field: string, type: Type): Expr => ({ kind: "StateField", field: id(field), span: at, type }),
  param: (name: string, type: Type): Expr => ({ kind: "Name", name, span: at, type, resolved: { kind: "param", name } }),
  value: (value: string, type: Type): Expr => ({ kind: "Name", name: value, span: at, type, resolved: { kind: "enum-value", value } }),
  signer: (): Expr => ({ kind: "Context", field: id("signer"), span: at, type: T.identity }),
  time: (): Expr => ({ kind: "Context", field: id("time"), span: at, type: T.int }),
  not: (operand: Expr): Expr => ({ kind: "Unary", op: "not", operand, span: at, type: T.bool }),
  neg: (operand: Expr): Expr => ({ kind: "Unary", op: "-", operand, span: at, type: T.int }),
  bin(op: BinaryOp, left: Expr, right: Expr, type?: Type): Expr {
    const lt = left.type;
    const rt = right.type;
    let t = type;
    if (t === undefined) {
      if (BOOL_OPS.has(op)) t = T.bool;
      else if (op === "+" && lt?.kind === "Text" && rt?.kind === "Text") t = T.text(lt.len + rt.len);
      else t = T.int;
    }
    return { kind: "Binary", op, left, right, span: at, type: t };
  },
  call: (fn: string, args: Expr[], type: Type): Expr => ({ kind: "Call", fn: id(fn), args, span: at, type }),
};

/** Source text of a type. */
export function typeText(t: Type): string {
  switch (t.kind) {
    case "Text":
      return `Text(len=${t.len})`;
    case "Enum":
      return `Enum(${t.values.join(", ")})`;
    case "Ref":
      return `Ref<${t.aggregate}>`;
    case "List":
      return `List<${typeText(t.element)}>(cap=${t.cap})`;
    case "Vector":
      return `Vector(dim=${t.dim})`;
    default:
      return t.kind;
  }
}

function typeExpr(t: Type): TypeExpr {
  switch (t.kind) {
    case "Text":
      return { kind: "TextType", len: t.len, span: at };
    case "Int":
      return { kind: "IntType", span: at };
    case "Bool":
      return { kind: "BoolType", span: at };
    case "Date":
      return { kind: "DateType", span: at };
    case "Identity":
      return { kind: "IdentityType", span: at };
    case "Enum":
      return { kind: "EnumType", values: t.values.map((v) => id(v)), span: at };
    case "Ref":
      return { kind: "RefType", aggregate: id(t.aggregate), span: at };
    case "List":
      return { kind: "ListType", element: typeExpr(t.element), cap: t.cap, span: at };
    case "Vector":
      return { kind: "VectorType", dim: t.dim, span: at };
    case "Float":
      throw new Error("no Float fields");
  }
}

const PRECEDENCE: Record<BinaryOp, number> = { or: 1, and: 2, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, in: 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6 };

function precedence(e: Expr): number {
  if (e.kind === "Binary") return PRECEDENCE[e.op];
  if (e.kind === "Unary") return e.op === "not" ? 3 : 7;
  return 8;
}

/** Source text of an expression, with the parentheses its precedence needs. */
export function exprText(e: Expr): string {
  const sub = (x: Expr, min: number): string => (precedence(x) < min ? `(${exprText(x)})` : exprText(x));
  switch (e.kind) {
    case "IntLit":
      return e.value;
    case "TextLit":
      return JSON.stringify(e.value);
    case "BoolLit":
      return String(e.value);
    case "Name":
      return e.name;
    case "StateField":
      return `state.${e.field.name}`;
    case "OldField":
      return `old.${e.field.name}`;
    case "Context":
      return `context.${e.field.name}`;
    case "QueryParam":
      return `$${e.name.name}`;
    case "Unary":
      return e.op === "not" ? `not ${sub(e.operand, 3)}` : `-${sub(e.operand, 8)}`;
    case "Binary": {
      const p = PRECEDENCE[e.op];
      // Comparisons do not chain; arithmetic is left-associative.
      return `${sub(e.left, p === 4 ? 5 : p)} ${e.op} ${sub(e.right, p + 1)}`;
    }
    case "Call":
      return `${e.fn.name}(${e.args.map(exprText).join(", ")})`;
  }
}

export interface ActionSpec {
  readonly name: string;
  readonly params?: readonly (readonly [string, Type])[];
  /** `member` unless a field name is given (`authorize state.FIELD`). */
  readonly authorizeField?: string;
  readonly merge?: "replay" | "reject" | "commute";
  readonly validate?: readonly Expr[];
  readonly apply?: readonly (readonly [string, Expr])[];
}

export interface AggregateSpec {
  readonly name: string;
  readonly fields: readonly (readonly [string, Type, Expr?])[];
  readonly actions: readonly ActionSpec[];
}

/** A checked contract and a Markdown file whose lines match its spans. */
export function buildContract(spec: { readonly namespace?: string; readonly aggregates: readonly AggregateSpec[] }): { contract: Contract; source: string } {
  let source = "# Test contract\n\n```charter\n";
  const blockStart = source.length;
  const line = (text: string): Span => {
    const start = source.length;
    source += `${text}\n`;
    return [start, start + text.length];
  };
  const namespace = spec.namespace ?? "test.contract";
  line(`namespace ${namespace}`);
  line("version 1.0.0");
  const aggregates: AggregateDecl[] = spec.aggregates.map((a) => {
    const aggStart = line(`aggregate ${a.name} {`);
    const fields: FieldDecl[] = a.fields.map(([name, type, def]) => {
      const span = line(`  public ${name}: ${typeText(type)}${def === undefined ? "" : ` = ${exprText(def)}`}`);
      return { kind: "FieldDecl", visibility: "public", name: id(name, span), type: typeExpr(type), default: def ?? null, span, resolvedType: type };
    });
    const actions: ActionDecl[] = a.actions.map((s) => {
      const params = (s.params ?? []).map(([name, type]) => ({ kind: "ParamDecl" as const, name: id(name), type: typeExpr(type), span: at, resolvedType: type }));
      const head = line(`  action ${s.name}(${params.map((p) => `${p.name.name}: ${typeText(p.resolvedType)}`).join(", ")}) api authenticated {`);
      const authorize = s.authorizeField === undefined
        ? { mode: "member" as const, span: line("    authorize member") }
        : { mode: "field" as const, field: id(s.authorizeField), span: line(`    authorize state.${s.authorizeField}`) };
      const merge = s.merge === undefined ? null : { mode: s.merge, span: line(`    merge ${s.merge}`) };
      line("    validate {");
      const validate = (s.validate ?? []).map((expr) => {
        const text = exprText(expr);
        return { expr, text, span: line(`      ${text}`).map((o, i) => (i === 0 ? o + 6 : o)) as unknown as Span };
      });
      line("    }");
      line("    apply {");
      const apply = (s.apply ?? []).map(([field, value]) => {
        const text = `state.${field} = ${exprText(value)}`;
        return { field: id(field), value, text, span: line(`      ${text}`).map((o, i) => (i === 0 ? o + 6 : o)) as unknown as Span };
      });
      line("    }");
      const end = line("  }");
      return { kind: "ActionDecl", name: id(s.name), params, exposure: "authenticated", authorize, merge, durability: null, validate, apply, effects: [], span: [head[0], end[1]] };
    });
    const end = line("}");
    return { kind: "AggregateDecl", name: id(a.name), fields, indexes: [], actions, span: [aggStart[0], end[1]] };
  });
  const blockEnd = source.length;
  source += "```\n";
  const contract: Contract = { kind: "Contract", namespace: id(namespace), version: id("1.0.0"), upgrades: null, decls: aggregates, span: [blockStart, blockEnd] };
  return { contract, source };
}
