/**
 * @module The reference interpreter: runs a checked contract tree directly, with the runtime's
 * JSON-style API and outcomes. It exists to be the tests' oracle for the WebAssembly, so it is
 * written for obviousness (bigints, recursion), not speed.
 */
import type { ActionDecl, AggregateDecl, Contract, Type } from "../ast.ts";
import { aggregatesOf, resolved } from "../layout.ts";
import { refusals } from "../refusals.ts";
import { ArgumentError } from "../runtime/errors.ts";
import type { FieldProblem } from "../runtime/errors.ts";
import type { ExecuteInput, Outcome, State } from "../runtime/load-artifact.ts";
import { normalizeInt } from "../runtime/ints.ts";
import { defaultValue } from "../schema.ts";
import { lineIndex } from "../source-lines.ts";
import { evaluate, fits, Refusal } from "./evaluate.ts";
import type { Env } from "./evaluate.ts";
import { codePoints, fromJson, isProblem, toJson } from "./values.ts";
import type { Value } from "./values.ts";

export interface Interpreter {
  execute(action: string, input: ExecuteInput): Outcome;
  defaultState(aggregate: string): State;
}

/** An interpreter for a checked contract; `source` is its Markdown file (for refusal lines). */
export function createInterpreter(contract: Contract, source: string): Interpreter {
  const lineOf = lineIndex(source);
  const actions = new Map<string, { agg: AggregateDecl; action: ActionDecl }>();
  const aggs = new Map(aggregatesOf(contract).map((a) => [a.name.name, a]));
  for (const agg of aggs.values()) {
    for (const action of agg.actions) {
      actions.set(`${agg.name.name}.${action.name.name}`, { agg, action });
      if (!actions.has(action.name.name)) actions.set(action.name.name, { agg, action });
    }
  }

  function defaultState(aggregate: string): State {
    const agg = aggs.get(aggregate);
    if (agg === undefined) throw new Error(`unknown aggregate ${aggregate}`);
    return Object.fromEntries(agg.fields.map((f) => [f.name.name, structuredClone(defaultValue(resolved(f), f.default))]));
  }

  function execute(name: string, input: ExecuteInput): Outcome {
    const found = actions.get(name);
    if (found === undefined) throw new Error(`unknown action ${name}`);
    const { agg, action } = found;
    const problems: FieldProblem[] = [];
    const rawArgs = input.args ?? {};
    const args = new Map<string, Value>();
    for (const p of action.params) {
      const x = rawArgs[p.name.name];
      const v = x === undefined ? { problem: "is missing" } : fromJson(resolved(p), x);
      if (isProblem(v)) problems.push({ field: p.name.name, message: v.problem });
      else args.set(p.name.name, v);
    }
    for (const key of Object.keys(rawArgs)) if (!action.params.some((p) => p.name.name === key)) problems.push({ field: key, message: "is not a parameter of this action" });
    const signer = fromJson({ kind: "Identity" }, input.context.signer);
    if (isProblem(signer)) problems.push({ field: "context.signer", message: signer.problem });
    const time = fromJson({ kind: "Int" }, input.context.time);
    if (isProblem(time)) problems.push({ field: "context.time", message: time.problem });
    if (problems.length > 0) throw new ArgumentError(problems);

    const json = input.state ?? defaultState(agg.name.name);
    const state = new Map<string, Value>();
    for (const f of agg.fields) {
      const v = fromJson(resolved(f), json[f.name.name]);
      if (isProblem(v)) throw new Error(`invalid state: ${f.name.name} ${v.problem}`);
      state.set(f.name.name, v);
    }
    const env: Env = { state, args, signer: signer as string | null, time: time as bigint, site: { condition: null, text: "", line: 0 } };
    try {
      const assigned = run(agg, action, env);
      const next: State = {};
      for (const f of agg.fields) {
        const n = f.name.name;
        const t = resolved(f);
        next[n] = assigned.has(n) ? toJson(t, assigned.get(n) as Value) : normalize(t, json[n]);
      }
      return { outcome: "accepted", state: next };
    } catch (e) {
      if (e instanceof Refusal) return { outcome: "refused", reason: e.reason };
      throw e;
    }
  }

  function run(agg: AggregateDecl, action: ActionDecl, env: Env): Map<string, Value> {
    const auth = action.authorize;
    if (auth?.mode === "field") {
      const line = lineOf(auth.span[0]);
      const holder = env.state.get(auth.field.name) ?? null;
      if (holder === null) throw new Refusal(refusals.unsetAuthorizer(auth.field.name, line));
      if (holder !== env.signer) throw new Refusal(refusals.wrongSigner(auth.field.name, line));
    }
    for (const p of action.params) checkArgument(resolved(p), env.args.get(p.name.name) as Value, p.name.name);
    for (const c of action.validate) {
      env.site = { condition: c.text, text: c.text, line: lineOf(c.span[0]) };
      if (evaluate(c.expr, env) !== true) throw new Refusal(refusals.conditionFailed(c.text, env.site.line));
    }
    const fieldTypes = new Map(agg.fields.map((f) => [f.name.name, resolved(f)]));
    const assigned = new Map<string, Value>();
    for (const a of action.apply) {
      env.site = { condition: null, text: a.text, line: lineOf(a.span[0]) };
      const value = evaluate(a.value, env);
      fits(fieldTypes.get(a.field.name) as Type, value, env.site);
      assigned.set(a.field.name, value);
    }
    return assigned;
  }

  return { execute, defaultState };
}

function normalize(t: Type, x: unknown): unknown {
  if (t.kind === "Int") return normalizeInt(x);
  if (t.kind === "List") return (x as unknown[]).map((el) => normalize(t.element, el));
  return x;
}

function checkArgument(t: Type, v: Value, param: string): void {
  if (t.kind === "Text" && codePoints(v as string) > t.len) throw new Refusal(refusals.argumentTooLong(param, t.len));
  if (t.kind === "List") {
    if ((v as Value[]).length > t.cap) throw new Refusal(refusals.argumentListFull(param, t.cap));
    for (const el of v as Value[]) checkArgument(t.element, el, param);
  }
}
