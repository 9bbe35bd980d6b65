/**
 * @module Checks an action's `effect` clauses (reference §4, "`effect`"): the effect is one the
 * engine knows (`email`, `pdf`), each field is one of its fields, set once, every required field
 * is set, and each value is a template — text literals, numbers, `true`/`false`, enum values,
 * parameters, `state.FIELD` and `context.signer`/`context.time`, joined by `+`, which in an effect
 * always joins text (a number is written in decimal). An address field (`to`, `cc`) may instead be
 * one `List<Text>` parameter or field. A template has no arithmetic and calls nothing, so the
 * engine renders it from the command's arguments and the record's new state without running the
 * program again.
 */
import type { ActionDecl, EffectDecl, EffectField, Expr, Type } from "../ast.ts";
import type { ExprEnv } from "./env.ts";
import { checkExpr } from "./expressions.ts";
import { typeName } from "./types.ts";

/** What each effect takes: its fields, which are required, and which may be a list of addresses. */
export const EFFECT_KINDS: Readonly<Record<string, { readonly fields: readonly string[]; readonly required: readonly string[]; readonly lists: readonly string[] }>> = {
  email: { fields: ["to", "cc", "reply_to", "subject", "text"], required: ["to", "subject", "text"], lists: ["to", "cc"] },
  pdf: { fields: ["title", "text", "file"], required: ["title", "text"], lists: [] },
};

/** The most effects one action may declare. */
export const MAX_EFFECTS = 4;

const SCALARS = new Set(["Text", "Int", "Bool", "Date", "Enum", "Identity", "Ref"]);

/** Checks the effects of one action (its parameters are in `env`). */
export function checkEffects(env: ExprEnv, action: ActionDecl): void {
  if (action.effects.length > MAX_EFFECTS) env.scope.report("C0229", action.effects[MAX_EFFECTS]?.span ?? action.span, action.name.name, MAX_EFFECTS);
  for (const effect of action.effects) checkEffect(env, effect);
}

function checkEffect(env: ExprEnv, effect: EffectDecl): void {
  const kind = EFFECT_KINDS[effect.effect.name];
  if (kind === undefined) {
    env.scope.report("C0230", effect.effect.span, effect.effect.name, Object.keys(EFFECT_KINDS).join(" and "));
    return;
  }
  const set = new Set<string>();
  for (const field of effect.fields) {
    const name = field.name.name;
    if (!kind.fields.includes(name)) {
      env.scope.report("C0231", field.name.span, effect.effect.name, name, kind.fields.join(", "));
      continue;
    }
    if (set.has(name)) env.scope.report("C0232", field.name.span, name, effect.effect.name);
    set.add(name);
    checkValue(env, effect.effect.name, field, kind.lists.includes(name));
  }
  const missing = kind.required.filter((f) => !set.has(f));
  if (missing.length > 0) env.scope.report("C0233", effect.effect.span, effect.effect.name, missing.join(", "));
}

function checkValue(env: ExprEnv, effect: string, field: EffectField, mayBeList: boolean): void {
  const parts = templateParts(field.value);
  if (mayBeList && parts.length === 1) {
    const only = parts[0] as Expr;
    if (isLeaf(only)) {
      const t = checkExpr(env, only, null);
      if (t?.kind === "List" && t.element.kind === "Text") return;
      if (t !== null && !SCALARS.has(t.kind)) env.scope.report("C0327", only.span, field.name.name, effect, typeName(t));
      return;
    }
  }
  for (const part of parts) {
    if (!isLeaf(part)) {
      env.scope.report("C0326", part.span, field.name.name, effect);
      continue;
    }
    const t = checkExpr(env, part, null);
    if (t !== null && !SCALARS.has(t.kind)) env.scope.report("C0327", part.span, field.name.name, effect, typeName(t));
  }
}

/** The parts a `+` chain joins, left to right (the tree is the parser's, bounded by its nesting limit). */
export function templateParts(e: Expr): Expr[] {
  if (e.kind === "Binary" && e.op === "+") return [...templateParts(e.left), ...templateParts(e.right)];
  return [e];
}

/** A part a template may hold: a literal (a negative number is one), a name (a parameter or an enum value), `state.F`, `context.x`. */
function isLeaf(e: Expr): boolean {
  switch (e.kind) {
    case "TextLit":
    case "IntLit":
    case "BoolLit":
    case "Name":
    case "StateField":
    case "Context":
      return true;
    default:
      return false;
  }
}

/** Whether a type is one a template may hold (used by the schema to tell a list field from a text). */
export function isListOfText(t: Type | undefined): boolean {
  return t?.kind === "List" && t.element.kind === "Text";
}
