/**
 * @module The `previous` option of an upgrade, taken from the checked contract it replaces: each
 * aggregate's fields with their resolved types. The code generator can store this with an artifact
 * so the next version's migrate blocks are checked against it.
 */
import type { Contract } from "../ast.ts";
import type { PreviousAggregate } from "./scope.ts";

/** The aggregates and field types of a checked contract, as `CheckOptions.previous` expects. */
export function previousVersion(contract: Contract): { aggregates: PreviousAggregate[] } {
  const aggregates: PreviousAggregate[] = [];
  for (const decl of contract.decls) {
    if (decl.kind !== "AggregateDecl") continue;
    const fields = decl.fields.flatMap((f) => (f.resolvedType === undefined ? [] : [{ name: f.name.name, type: f.resolvedType }]));
    aggregates.push({ name: decl.name.name, fields });
  }
  return { aggregates };
}
