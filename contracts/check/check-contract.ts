/**
 * @module The checker's entry point: runs every pass over a parsed contract in dependency order
 * (header, names, types, aggregates and actions, queries, upgrades, and last the program's memory),
 * annotating the tree in place, and returns the diagnostics sorted and deduplicated.
 */
import type { Contract } from "../ast.ts";
import { normalizeDiagnostics, type Diagnostic } from "../diagnostics.ts";
import { checkAction } from "./actions.ts";
import { checkAggregateShape, checkNames, resolveDeclaredTypes } from "./declarations.ts";
import { checkHeader } from "./header.ts";
import { checkMemory } from "./memory.ts";
import { checkQuery } from "./queries.ts";
import { createScope, type CheckOptions } from "./scope.ts";
import { checkUpgrades } from "./upgrades.ts";

export type { CheckOptions, CollectionIndex, CollectionInfo, PreviousAggregate } from "./scope.ts";

/** Checks `contract`, filling `type`, `resolved`, `resolvedType` and `columns`; never throws on user input. */
export function checkContract(contract: Contract, options: CheckOptions = {}): Diagnostic[] {
  const scope = createScope(contract, options);
  checkHeader(scope, contract);
  checkNames(scope, contract);
  resolveDeclaredTypes(scope, contract);
  for (const decl of contract.decls) {
    if (decl.kind !== "AggregateDecl") continue;
    checkAggregateShape(scope, decl);
    for (const action of decl.actions) checkAction(scope, decl, action);
  }
  for (const decl of contract.decls) if (decl.kind === "QueryDecl") checkQuery(scope, decl);
  checkUpgrades(scope, contract);
  // Sizes need every type resolved and every expression typed; an error so far may leave gaps.
  if (scope.diagnostics.length === 0) checkMemory(scope, contract);
  return normalizeDiagnostics(scope.diagnostics);
}
