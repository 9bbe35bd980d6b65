/**
 * @module Checks upgrades (reference §7): `migrate` only in a contract with an `upgrades` line, at
 * most one block per aggregate of this contract, assignments like `apply` (reading `old.FIELD`, not
 * `state.`). With the previous version's fields (option `previous`), every field whose type changed
 * and every new field written without a default needs a migrate line, and `old.FIELD` must exist in
 * the previous version; without it only that cross-version part is skipped.
 */
import type { AggregateDecl, Contract, MigrateDecl, Type } from "../ast.ts";
import { checkAssignments } from "./assignments.ts";
import { baseEnv, type ExprEnv } from "./env.ts";
import { checkDistinct } from "./resolve-type.ts";
import type { PreviousAggregate, Scope } from "./scope.ts";
import { sameType, typeName } from "./types.ts";

/** Checks every migrate block, and the migrate lines the previous version requires. */
export function checkUpgrades(scope: Scope, contract: Contract): void {
  const migrations = contract.decls.filter((d): d is MigrateDecl => d.kind === "MigrateDecl");
  checkDistinct(scope, migrations.map((m) => m.aggregate), "migrate block for", "");
  const previous = scope.options.previous;
  for (const m of migrations) {
    if (contract.upgrades === null) scope.report("C0501", m.span);
    const aggregate = scope.aggregates.get(m.aggregate.name);
    if (aggregate === undefined) {
      scope.report("C0502", m.aggregate.span, m.aggregate.name);
      continue;
    }
    const before = previous?.aggregates.find((a) => a.name === aggregate.name.name);
    if (previous !== undefined && before === undefined) scope.report("C0505", m.aggregate.span, aggregate.name.name);
    const old = before === undefined ? null : new Map(before.fields.map((f) => [f.name, f.type] as const));
    const env: ExprEnv = { ...baseEnv(scope, "migrate", aggregate), previous: previous === undefined ? null : (old ?? new Map()) };
    checkAssignments(env, aggregate, m.assignments);
  }
  if (previous === undefined || contract.upgrades === null) return;
  for (const aggregate of scope.aggregates.values()) {
    const before = previous.aggregates.find((a) => a.name === aggregate.name.name);
    if (before === undefined) continue;
    const block = migrations.find((m) => m.aggregate.name === aggregate.name.name);
    const assigned = new Set(block?.assignments.map((a) => a.field.name) ?? []);
    const missing = requiredLines(aggregate, before).filter((r) => !assigned.has(r.name));
    if (missing.length > 0) {
      scope.report("C0503", (block?.aggregate ?? aggregate.name).span, aggregate.name.name, missing.map((r) => `${r.name} (${r.why})`).join(", "));
    }
  }
}

/** Fields whose type changed, and new fields written without a default. */
function requiredLines(aggregate: AggregateDecl, before: PreviousAggregate): { name: string; why: string }[] {
  const required: { name: string; why: string }[] = [];
  for (const f of aggregate.fields) {
    const now: Type | undefined = f.resolvedType;
    const old = before.fields.find((p) => p.name === f.name.name);
    if (old === undefined) {
      if (f.default === null) required.push({ name: f.name.name, why: "new field without a default" });
    } else if (now !== undefined && !sameType(old.type, now)) {
      required.push({ name: f.name.name, why: `type changed from ${typeName(old.type)} to ${typeName(now)}` });
    }
  }
  return required;
}
