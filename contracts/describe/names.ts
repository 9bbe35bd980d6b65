/**
 * @module What a contract exposes to the API, and the type names every described surface uses for
 * it. OpenAPI, GraphQL and proto3 all name their types from this one table, so the three documents
 * agree; names are claimed in a fixed order (keys sorted), so the same schema always gets the same
 * names. Anonymous enums (`status: Enum(New, …)`) are named after their first use and shared by
 * every later use with the same values.
 */
import type { Column, Type } from "../ast.ts";
import type { Schema, SchemaAction } from "../schema.ts";

/** A query as the schema holds it, as far as describing it needs. */
export interface DescribedQuery {
  readonly name: string;
  readonly params: readonly Column[];
  readonly exposure: "public" | "authenticated";
  /** The result row's columns: the last stage's. */
  readonly row: readonly Column[];
  readonly names: { readonly params: string; readonly request: string; readonly row: string; readonly result: string };
}

export interface DescribedAction {
  /** The bare action name, as the API path and the command payload spell it. */
  readonly name: string;
  readonly action: SchemaAction;
  readonly names: { readonly args: string; readonly payload: string };
}

export interface DescribedAggregate {
  readonly name: string;
  /** The public fields: what a receipt's `state` holds. */
  readonly state: readonly Column[];
  readonly names: { readonly state: string; readonly receipt: string; readonly result: string };
}

/** Everything the generators need: exposed operations in sorted order, and the names. */
export interface Described {
  readonly namespace: string;
  readonly version: string;
  /** The proto3 service (one per contract). */
  readonly service: string;
  readonly actions: readonly DescribedAction[];
  readonly queries: readonly DescribedQuery[];
  /** Aggregates with at least one exposed action. */
  readonly aggregates: readonly DescribedAggregate[];
  /** Enum type name → its values, in the order the names were claimed. */
  readonly enums: ReadonlyMap<string, readonly string[]>;
  /** The name of an enum type. */
  enumName(type: Type & { kind: "Enum" }): string;
}

/** Names of the fixed types every document has; claimed first so contract names yield to them. */
export const FIXED = ["Problem", "FieldProblem", "Int64", "Date", "DidKey", "Subject", "Refusal", "Outcome", "CommandBody", "ContractInfo"] as const;

/** `credit_terms` → `CreditTerms`. */
export function pascal(name: string): string {
  return name.split("_").filter((p) => p !== "").map((p) => p[0]?.toUpperCase() + p.slice(1)).join("") || "X";
}

const sorted = <T>(record: Record<string, T>): [string, T][] => Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Describes what `schema` exposes and names its types. */
export function describe(schema: Schema): Described {
  const taken = new Set<string>(FIXED);
  const claim = (wanted: string): string => {
    let name = wanted;
    for (let i = 2; taken.has(name); i++) name = `${wanted}${i}`;
    taken.add(name);
    return name;
  };
  const enums = new Map<string, readonly string[]>();
  const byValues = new Map<string, string>();
  const enumNames = new Map<string, string>();
  const noteEnums = (owner: string, columns: readonly Column[]) => {
    for (const c of columns) {
      const t = c.type.kind === "List" ? c.type.element : c.type;
      if (t.kind !== "Enum" || t.name !== undefined) continue;
      const key = JSON.stringify(t.values);
      if (byValues.has(key)) continue;
      const name = claim(`${owner}${pascal(c.name)}`);
      byValues.set(key, name);
      enums.set(name, t.values);
    }
  };
  for (const [name, values] of sorted(schema.enums)) {
    enumNames.set(name, claim(name));
    enums.set(enumNames.get(name) as string, values);
  }
  const service = claim(`${pascal(schema.namespace.split(".").at(-1) ?? "Contract")}Service`);

  const actions = sorted(schema.actions).filter(([, a]) => a.exposure !== "internal");
  const queries = sorted(schema.queries as Record<string, QueryShape>).filter(([, q]) => q.exposure !== "internal");
  const aggregates = sorted(schema.aggregates).filter(([agg]) => actions.some(([, a]) => a.aggregate === agg));

  const describedAggregates = aggregates.map(([name, agg]): DescribedAggregate => {
    const state = agg.fields.filter((f) => f.visibility === "public").map((f) => ({ name: f.name, type: f.type }));
    noteEnums(name, state);
    return { name, state, names: { state: claim(`${name}State`), receipt: claim(`${name}Receipt`), result: claim(`${name}CommandResult`) } };
  });
  const describedActions = actions.map(([, a]): DescribedAction => {
    noteEnums(a.name, a.params);
    return { name: a.name, action: a, names: { args: claim(`${a.name}Args`), payload: claim(`${a.name}Payload`) } };
  });
  const describedQueries = queries.map(([name, q]): DescribedQuery => {
    const row = q.columns?.at(-1) ?? rowOf(schema, q.returns);
    noteEnums(name, q.params);
    noteEnums(name, row);
    const names = { params: claim(`${name}Params`), request: claim(`${name}Request`), row: claim(`${name}Row`), result: claim(`${name}Result`) };
    return { name, params: q.params, exposure: q.exposure as "public" | "authenticated", row, names };
  });

  return {
    namespace: schema.namespace,
    version: schema.version,
    service,
    actions: describedActions,
    queries: describedQueries,
    aggregates: describedAggregates,
    enums,
    enumName(type) {
      const name = type.name === undefined ? byValues.get(JSON.stringify(type.values)) : enumNames.get(type.name);
      if (name === undefined) throw new Error(`enum ${type.name ?? type.values.join("|")} was not named while describing`);
      return name;
    },
  };
}

interface QueryShape {
  readonly params: readonly Column[];
  readonly returns: string;
  readonly exposure: "public" | "authenticated" | "internal";
  readonly columns: readonly (readonly Column[])[] | null;
}

/** The row of a query whose plan carries no columns: its record, or its aggregate's subject, key and public fields. */
function rowOf(schema: Schema, returns: string): readonly Column[] {
  const record = schema.records[returns];
  if (record !== undefined) return record;
  const subject: Type = { kind: "Text", len: 128 };
  const fields = schema.aggregates[returns]?.fields.filter((f) => f.visibility === "public") ?? [];
  return [{ name: "subject", type: subject }, { name: "key", type: subject }, ...fields.map((f) => ({ name: f.name, type: f.type }))];
}

/** Types that can be null in a state or a row: they have no default value. */
export function nullable(type: Type): boolean {
  return type.kind === "Identity" || type.kind === "Ref" || type.kind === "Vector";
}
