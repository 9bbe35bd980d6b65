/**
 * Issue 5, acceptance: a differential property test. Random records and random well-typed
 * queries (where, sort, take, drop, let, select, explode, summarize with and without `by`,
 * nearest under each metric; and traverse/shortest over random reference graphs): the planner's
 * single SQL statement answers exactly the rows a naive in-memory evaluator of the language does.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Expr, Stage, Type } from "../contracts/ast.ts";
import { compileContract } from "../contracts/compile.ts";
import type { Schema } from "../contracts/schema.ts";
import { deriveTables, StateTable } from "../workers/engine/state-table.ts";
import { bindings, compileQuery, type QueryPlan } from "../contracts/query/query-sql.ts";
import { registerReadFunctions } from "../workers/gateway/reads/read-functions.ts";
import { fromColumn, toColumn } from "../contracts/storage/columns.ts";
import { distance, type Metric } from "../workers/gateway/reads/vector-distance.ts";

const compiled = compileContract(readFileSync(new URL("./fixtures/stages.charter.md", import.meta.url), "utf8"));
assert.ok(compiled.artifact);
const schema: Schema = compiled.artifact.schema;

const INT: Type = { kind: "Int" };
const BOOL: Type = { kind: "Bool" };
const FLOAT: Type = { kind: "Float" };
const TEXT: Type = { kind: "Text", len: 200 };
const TAGS: Type = { kind: "List", element: { kind: "Text", len: 20 }, cap: 8 };
const VEC: Type = { kind: "Vector", dim: 3 };
const span = [0, 0] as const;
type Row = Record<string, unknown>;
type Col = { name: string; type: Type };

/** A stream of choices drawn by fast-check (so failures shrink). */
class Choices {
  #i = 0;
  readonly #xs: readonly number[];
  constructor(xs: readonly number[]) {
    this.#xs = xs;
  }
  int(n: number): number {
    const x = this.#xs[this.#i++ % Math.max(1, this.#xs.length)] ?? 0;
    return n <= 0 ? 0 : x % n;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
}

const name = (n: string, type: Type): Expr => ({ kind: "Name", name: n, span, type, resolved: { kind: "column", name: n } });
const int = (v: number): Expr => ({ kind: "IntLit", value: String(v), span, type: INT });
const text = (v: string): Expr => ({ kind: "TextLit", value: v, span, type: { kind: "Text", len: v.length || 1 } });
const bin = (op: Extract<Expr, { kind: "Binary" }>["op"], left: Expr, right: Expr, type: Type): Expr => ({ kind: "Binary", op, left, right, span, type });
const WORDS = ["a", "b", "c", "red", "blue", ""];

function condition(c: Choices, cols: Col[], depth = 0): Expr {
  const ints = cols.filter((x) => x.type.kind === "Int");
  const texts = cols.filter((x) => x.type.kind === "Text");
  const lists = cols.filter((x) => x.type.kind === "List" && x.type.element.kind === "Text");
  const k = c.int(depth > 2 ? 4 : 7);
  if (k === 0 && ints.length > 0) return bin(c.pick(["==", "!=", "<", "<=", ">", ">="] as const), name(c.pick(ints).name, INT), int(c.int(21) - 10), BOOL);
  if (k === 1 && texts.length > 0) return bin(c.pick(["==", "!=", "<", ">="] as const), name(c.pick(texts).name, TEXT), text(c.pick(WORDS)), BOOL);
  if (k === 2 && lists.length > 0) return bin("in", text(c.pick(WORDS)), name(c.pick(lists).name, TAGS), BOOL);
  if (k === 3 && ints.length > 0) return bin(">", bin("+", name(c.pick(ints).name, INT), int(c.int(5)), INT), { kind: "QueryParam", name: { name: "p", span }, span, type: INT }, BOOL);
  if (k === 4) return { kind: "Unary", op: "not", operand: condition(c, cols, depth + 1), span, type: BOOL };
  if (k === 5) return bin("and", condition(c, cols, depth + 1), condition(c, cols, depth + 1), BOOL);
  if (k === 6) return bin("or", condition(c, cols, depth + 1), condition(c, cols, depth + 1), BOOL);
  return { kind: "BoolLit", value: c.int(2) === 0, span, type: BOOL };
}

/** A random well-typed pipe over Item, and the columns after it. */
function randomStages(c: Choices): Stage[] {
  let cols: Col[] = [
    { name: "subject", type: { kind: "Text", len: 128 } },
    { name: "key", type: { kind: "Text", len: 128 } },
    ...schema.aggregates.Item!.fields.filter((f) => f.visibility === "public").map((f) => ({ name: f.name, type: f.type })),
  ];
  const stages: Stage[] = [];
  let reshaped = false;
  let lets = 0;
  if (c.int(3) === 0) {
    const [field, metric] = c.pick([["embedding", "l2"], ["direction", "cosine"], ["weights", "dot"]] as const);
    void metric;
    stages.push({ kind: "Nearest", field: { name: field, span }, to: { kind: "QueryParam", name: { name: "v", span }, span, type: VEC }, k: int(c.int(8)) as never, span });
    cols = [...cols, { name: "distance", type: FLOAT }];
  }
  const n = c.int(6) + 1;
  for (let i = 0; i < n; i++) {
    const kind = c.int(8);
    const orderable = cols.filter((x) => ["Int", "Text", "Float", "Date"].includes(x.type.kind));
    if (kind === 0) stages.push({ kind: "Where", expr: condition(c, cols), span });
    else if (kind === 1 && orderable.length > 0) {
      const keys = Array.from({ length: c.int(2) + 1 }, () => ({ field: { name: c.pick(orderable).name, span }, direction: c.pick(["asc", "desc"] as const), span }));
      stages.push({ kind: "Sort", keys, span });
    } else if (kind === 2) stages.push({ kind: "Take", count: int(c.int(8)) as never, span });
    else if (kind === 3) stages.push({ kind: "Drop", count: int(c.int(4)) as never, span });
    else if (kind === 4 && cols.some((x) => x.type.kind === "Int")) {
      const src = c.pick(cols.filter((x) => x.type.kind === "Int"));
      const as = `l${lets++}`;
      stages.push({ kind: "Let", name: { name: as, span }, expr: bin(c.pick(["+", "-", "*"] as const), name(src.name, INT), int(c.int(7) - 3), INT), span });
      cols = [...cols, { name: as, type: INT }];
      reshaped = true;
    } else if (kind === 5 && cols.some((x) => x.type.kind === "List")) {
      const list = c.pick(cols.filter((x) => x.type.kind === "List"));
      const as = c.int(2) === 0 ? null : `${list.name}_one`;
      stages.push({ kind: "Explode", field: { name: list.name, span }, alias: as === null ? null : { name: as, span }, span });
      cols = cols.map((x) => (x.name === list.name ? { name: as ?? x.name, type: (x.type as Extract<Type, { kind: "List" }>).element } : x));
      reshaped = true;
    } else if (kind === 6) {
      const groupable = cols.filter((x) => x.type.kind === "Text" || x.type.kind === "Int");
      const by = c.int(2) === 0 || groupable.length === 0 ? [] : [c.pick(groupable)];
      const ints = cols.filter((x) => x.type.kind === "Int" && !by.includes(x));
      const aggs = [{ fn: "count", arg: null as Col | null, type: INT }];
      if (ints.length > 0) for (const fn of ["sum", "min", "max", "avg"]) if (c.int(2) === 0) aggs.push({ fn, arg: c.pick(ints), type: fn === "avg" ? FLOAT : INT });
      stages.push({
        kind: "Summarize",
        by: by.map((b) => ({ name: b.name, span })),
        aggregations: aggs.map((a, j) => ({ call: { kind: "Call", fn: { name: a.fn, span }, args: a.arg === null ? [] : [name(a.arg.name, a.arg.type)], span, type: a.type }, alias: { name: `a${i}_${j}`, span }, span })),
        span,
      });
      // Names distinct from the `by` column's, as the checker demands.
      cols = [...by, ...aggs.map((a, j) => ({ name: `a${i}_${j}`, type: a.type }))];
      reshaped = true;
    } else if (kind === 7 && cols.length > 1) {
      const keep = cols.filter(() => c.int(2) === 0);
      const items = (keep.length > 0 ? keep : [cols[0] as Col]).map((x) => ({ expr: name(x.name, x.type), alias: c.int(3) === 0 ? { name: `s${i}_${x.name}`, span } : null, span }));
      stages.push({ kind: "Select", items, span });
      cols = items.map((it) => ({ name: it.alias?.name ?? (it.expr as { name: string }).name, type: it.expr.type as Type }));
      reshaped = true;
    }
  }
  void reshaped;
  return stages;
}

// ---------------------------------------------------------------------------------------------
// The naive evaluator: the language's meaning, row by row.

function evalExpr(e: Expr, row: Row, params: Row): unknown {
  switch (e.kind) {
    case "IntLit":
      return Number(e.value);
    case "TextLit":
      return e.value;
    case "BoolLit":
      return e.value;
    case "Name":
      return row[e.name];
    case "QueryParam":
      return params[e.name.name];
    case "Unary":
      return e.op === "not" ? !evalExpr(e.operand, row, params) : -(evalExpr(e.operand, row, params) as number);
    case "Binary": {
      const l = evalExpr(e.left, row, params) as never;
      if (e.op === "and") return Boolean(l) && Boolean(evalExpr(e.right, row, params));
      if (e.op === "or") return Boolean(l) || Boolean(evalExpr(e.right, row, params));
      const r = evalExpr(e.right, row, params) as never;
      // An unset operand (an aggregate over no rows): arithmetic is unset, ordering does not hold.
      if ((l === null || r === null) && ["+", "-", "*", "<", "<=", ">", ">="].includes(e.op)) return ["+", "-", "*"].includes(e.op) ? null : false;
      switch (e.op) {
        case "==":
          return l === r;
        case "!=":
          return l !== r;
        case "<":
          return l < r;
        case "<=":
          return l <= r;
        case ">":
          return l > r;
        case ">=":
          return l >= r;
        case "+":
          return (l as number) + (r as number);
        case "-":
          return (l as number) - (r as number);
        case "*":
          // Integers have no negative zero.
          return (l as number) * (r as number) + 0;
        case "in":
          return (r as unknown[]).includes(l);
        default:
          throw new Error(`naive: ${e.op}`);
      }
    }
    default:
      throw new Error(`naive: ${e.kind}`);
  }
}

const cmp = (a: unknown, b: unknown): number => (a === b ? 0 : a === null ? -1 : b === null ? 1 : (a as number) < (b as number) ? -1 : 1);

function naive(rows: Row[], stages: readonly Stage[], params: Row, metrics: Record<string, Metric>): Row[] {
  let out = rows.map((r) => ({ ...r }));
  for (const s of stages) {
    switch (s.kind) {
      case "Where":
        out = out.filter((r) => Boolean(evalExpr(s.expr, r, params)));
        break;
      case "Sort":
        out = out
          .map((r, i) => ({ r, i }))
          .sort((a, b) => {
            for (const k of s.keys) {
              const d = cmp(a.r[k.field.name], b.r[k.field.name]) * (k.direction === "desc" ? -1 : 1);
              if (d !== 0) return d;
            }
            return a.i - b.i;
          })
          .map((x) => x.r);
        break;
      case "Take":
        out = out.slice(0, Number((s.count as { value: string }).value));
        break;
      case "Drop":
        out = out.slice(Number((s.count as { value: string }).value));
        break;
      case "Let":
        out = out.map((r) => ({ ...r, [s.name.name]: evalExpr(s.expr, r, params) }));
        break;
      case "Select":
        out = out.map((r) => Object.fromEntries(s.items.map((it) => [it.alias?.name ?? (it.expr as { name: string }).name, evalExpr(it.expr, r, params)])));
        break;
      case "Explode":
        out = out.flatMap((r) => (r[s.field.name] as unknown[]).map((v) => {
          const copy: Row = {};
          for (const [k, x] of Object.entries(r)) {
            if (k === s.field.name) copy[s.alias?.name ?? k] = v;
            else copy[k] = x;
          }
          return copy;
        }));
        break;
      case "Summarize": {
        const groups = new Map<string, Row[]>();
        for (const r of out) {
          const key = JSON.stringify(s.by.map((b) => r[b.name]));
          groups.set(key, [...(groups.get(key) ?? []), r]);
        }
        if (s.by.length === 0 && groups.size === 0) groups.set("[]", []);
        const rowsOut = [...groups.values()].map((g) => {
          const row: Row = {};
          for (const b of s.by) row[b.name] = g[0]?.[b.name] ?? null;
          for (const a of s.aggregations) {
            const call = a.call as Extract<Expr, { kind: "Call" }>;
            // Aggregates skip unset values (a min over no rows, summarized again).
            const vs = call.args[0] === undefined ? [] : g.map((r) => evalExpr(call.args[0] as Expr, r, params) as number | null).filter((x): x is number => x !== null);
            const sum = vs.reduce((x, y) => x + y, 0);
            const v = { count: g.length, sum, min: vs.length ? Math.min(...vs) : null, max: vs.length ? Math.max(...vs) : null, avg: vs.length ? sum / vs.length : null }[call.fn.name];
            row[a.alias?.name ?? call.fn.name] = v;
          }
          return row;
        });
        out = rowsOut.sort((a, b) => {
          for (const k of s.by) {
            const d = cmp(a[k.name], b[k.name]);
            if (d !== 0) return d;
          }
          return 0;
        });
        break;
      }
      case "Nearest": {
        const v = params.v as number[];
        const metric = metrics[s.field.name] as Metric;
        out = out
          .filter((r) => r[s.field.name] !== null)
          .map((r, i) => ({ r: { ...r, distance: distance(metric, Float32Array.from(r[s.field.name] as number[]), Float32Array.from(v)) }, i }))
          .sort((a, b) => cmp(a.r.distance, b.r.distance) || a.i - b.i)
          .map((x) => x.r)
          .slice(0, Number((s.k as { value: string }).value));
        break;
      }
      default:
        throw new Error(`naive: ${s.kind}`);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

const itemArb = fc.record({
  title: fc.array(fc.constantFrom(...WORDS.filter(Boolean)), { maxLength: 3 }).map((w) => w.join(" ")),
  kind: fc.constantFrom(...WORDS),
  units: fc.integer({ min: -12, max: 12 }),
  tags: fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }),
  nums: fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 3 }),
  embedding: fc.option(fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 3, maxLength: 3 }), { freq: 4 }),
});

function storeOf(items: ReturnType<typeof itemArb.generate>["value"][]): { db: DatabaseSync; rows: Row[] } {
  const db = new DatabaseSync(":memory:");
  deriveTables(db, schema);
  registerReadFunctions(db);
  const table = new StateTable(db, schema, "Item");
  const rows: Row[] = [];
  items.forEach((it, i) => {
    const subject = `s-${String(i).padStart(2, "0")}`;
    const state = { ...it, direction: it.embedding, weights: it.embedding, secret: "" };
    table.write("acme", subject, "art_x", i + 1, state);
    table.write("other", subject, "art_x", i + 1, { ...state, units: 99 });
    // What the column gives back (float32 vectors, JSON lists), in subject order.
    const stored: Row = { subject, key: subject };
    for (const f of schema.aggregates.Item!.fields) if (f.visibility === "public") stored[f.name] = fromColumn(f.type, toColumn(f.type, (state as Row)[f.name]));
    rows.push(stored);
  });
  return { db, rows };
}

describe("the planner against a naive evaluator", () => {
  it("answers the same rows for random data and random well-typed queries", () => {
    const metrics: Record<string, Metric> = { embedding: "l2", direction: "cosine", weights: "dot" };
    fc.assert(
      fc.property(fc.array(itemArb, { maxLength: 12 }), fc.array(fc.nat(1000), { minLength: 64, maxLength: 64 }), fc.integer({ min: -5, max: 5 }), fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 3, maxLength: 3 }), (items, choices, p, v) => {
        const { db, rows } = storeOf(items);
        const stages = randomStages(new Choices(choices));
        const plan: QueryPlan = { params: [{ name: "p", type: INT }, { name: "v", type: VEC }], returns: "Item", exposure: "public", source: { kind: "Collection", name: { name: "Item", span }, span } as never, stages, columns: null };
        const compiledQuery = compileQuery(schema, plan);
        const values = new Map<string, unknown>([["p", BigInt(p)], ["v", toColumn(VEC, v)]]);
        const stmt = db.prepare(compiledQuery.sql);
        stmt.setReadBigInts(true);
        const got = (stmt.all(bindings(compiledQuery, "acme", values as never)) as Row[]).map((r) => Object.fromEntries(compiledQuery.columns.map((col) => [col.name, fromColumn(col.type, r[col.name])])));
        const want = naive(rows, stages, { p, v }, metrics).map((r) => Object.fromEntries(compiledQuery.columns.map((col) => [col.name, r[col.name] ?? null])));
        db.close();
        assert.deepEqual(got, want, `${compiledQuery.sql}\n${JSON.stringify(got)}\n${JSON.stringify(want)}`);
      }),
      { numRuns: Number(process.env.CHARTER_PROPERTY_RUNS ?? 300) },
    );
  });
});

describe("traverse and shortest against a naive walk", () => {
  const nodeStage = (kind: "traverse" | "shortest", depth: number | null): Stage[] => {
    const where: Stage = { kind: "Where", expr: bin("==", name("subject", { kind: "Text", len: 128 }), { kind: "QueryParam", name: { name: "start", span }, span, type: { kind: "Text", len: 128 } }, BOOL), span };
    const field = { name: "parent", span };
    if (kind === "traverse") return [where, { kind: "Traverse", field, depth: depth === null ? null : (int(depth) as never), span }];
    const to: Expr = { kind: "QueryParam", name: { name: "target", span }, span, type: { kind: "Text", len: 128 } };
    return depth === null ? [{ kind: "Shortest", field, to, span }] : [where, { kind: "Shortest", field, to, span }];
  };
  const graphArb = fc.array(fc.option(fc.integer({ min: 0, max: 11 }), { freq: 5 }), { minLength: 1, maxLength: 10 });

  it("answers the records a walk over random reference graphs reaches", () => {
    fc.assert(
      fc.property(graphArb, fc.nat(9), fc.nat(11), fc.option(fc.nat(5)), fc.boolean(), (parents, startAt, targetAt, depth, fromAll) => {
        const db = new DatabaseSync(":memory:");
        deriveTables(db, schema);
        registerReadFunctions(db);
        const table = new StateTable(db, schema, "Node");
        // Parents beyond the last node dangle (a subject without a record).
        const id = (i: number) => `n${i}`;
        parents.forEach((p, i) => table.write("acme", id(i), "art_x", i + 1, { label: "", parent: p === null ? null : id(p) }));
        const parent = new Map(parents.map((p, i) => [id(i), p === null ? null : id(p)]));
        const start = id(startAt % parents.length);
        const target = id(targetAt);
        const run = (stages: Stage[], params: Record<string, unknown>) => {
          const plan: QueryPlan = { params: [], returns: "Node", exposure: "public", source: { kind: "Collection", name: { name: "Node", span }, span } as never, stages, columns: null };
          const q = compileQuery(schema, plan);
          const values = new Map(Object.entries(params).map(([k, v]) => [k, v as never]));
          return (db.prepare(q.sql).all(bindings(q, "acme", values)) as Row[]).map((r) => r.subject as string);
        };
        // traverse: every record reached in 1..depth hops, in subject order.
        const reached = new Set<string>();
        let frontier = [start];
        for (let hop = 1; frontier.length > 0 && (depth === null || hop <= depth) && hop <= parents.length + 1; hop++) {
          frontier = frontier.map((s) => parent.get(s) ?? null).filter((s): s is string => s !== null && parent.has(s));
          frontier.forEach((s) => reached.add(s));
        }
        assert.deepEqual(run(nodeStage("traverse", depth), { start }), [...reached].sort());
        // shortest: the fewest-hop chain from a start (all records, or the one) to the target.
        const chain = (from: string): string[] | null => {
          const path = [from];
          let at: string | null = from;
          for (let i = 0; i <= parents.length; i++) {
            if (at === target) return parent.has(target) ? path : null;
            at = parent.get(at as string) ?? null;
            if (at === null || !parent.has(at)) return null;
            path.push(at);
          }
          return null;
        };
        const starts = fromAll ? [...parent.keys()].sort() : [start];
        let best: string[] | null = null;
        for (const s of starts) {
          const c = chain(s);
          if (c !== null && (best === null || c.length < best.length)) best = c;
        }
        assert.deepEqual(run(nodeStage("shortest", fromAll ? null : 0), fromAll ? { target } : { start, target }), best ?? []);
        db.close();
      }),
      { numRuns: Number(process.env.CHARTER_PROPERTY_RUNS ?? 300) },
    );
  });
});
