/**
 * @module An upgrade is checked against the version it replaces: this turns that version's
 * compiled schema (as stored by the engine) into the checker's `previous` option. Pure data — it
 * imports no compiler, so the gateway and the CLI can use it before compiling.
 */
import type { PreviousAggregate } from "./check/scope.ts";
import type { Schema } from "./schema.ts";

/** The `previous` option for checking an upgrade of the artifact whose schema this is. */
export function previousFromSchema(schema: Pick<Schema, "aggregates">): { aggregates: PreviousAggregate[] } {
  return {
    aggregates: Object.entries(schema.aggregates).map(([name, a]) => ({ name, fields: a.fields.map((f) => ({ name: f.name, type: f.type })) })),
  };
}

/** The artifact a compiled schema says it upgrades, if any. */
export function upgradesOf(schemaJson: string): string | null {
  return (JSON.parse(schemaJson) as Pick<Schema, "upgrades">).upgrades;
}
