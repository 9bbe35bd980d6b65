/**
 * @module The tools an installed contract offers the assistant: each action and query it exposes
 * (`api public` or `api authenticated`), named `<namespace>.<Action|Query>`, with its parameters as
 * the contract declares them. Internal ones are the node's own and are not tools. Pure: schemas in,
 * tools out.
 */
import type { Type } from "../../../../contracts/ast.ts";
import { typeName } from "../../../../contracts/check/types.ts";
import type { Schema } from "../../../../contracts/schema.ts";

/** One parameter: its name and its type as a contract writes it (`Text(len=200)`, `Enum(New, Done)`). */
export interface ToolParam {
  readonly name: string;
  readonly type: string;
}

export interface Tool {
  readonly name: string;
  readonly kind: "action" | "query";
  readonly params: readonly ToolParam[];
  /** An action's aggregate: calling it names a subject of it too. */
  readonly aggregate?: string;
  readonly exposure: "public" | "authenticated";
}

/** A query's part of the schema that a tool needs. */
interface QueryHead {
  readonly params: readonly { readonly name: string; readonly type: Type }[];
  readonly exposure: "public" | "authenticated" | "internal";
}

/** The exposed actions, then the exposed queries, of `schema`, each in name order. */
export function contractTools(schema: Pick<Schema, "namespace" | "actions" | "queries">): Tool[] {
  const params = (list: QueryHead["params"]) => list.map((p) => ({ name: p.name, type: typeName(p.type) }));
  const actions = Object.values(schema.actions)
    .filter((a) => a.exposure !== "internal")
    .sort((a, b) => compare(a.name, b.name))
    .map((a): Tool => ({ name: `${schema.namespace}.${a.name}`, kind: "action", params: params(a.params), aggregate: a.aggregate, exposure: a.exposure as Tool["exposure"] }));
  const queries = Object.entries(schema.queries as Record<string, QueryHead>)
    .filter(([, q]) => q.exposure !== "internal")
    .sort(([a], [b]) => compare(a, b))
    .map(([name, q]): Tool => ({ name: `${schema.namespace}.${name}`, kind: "query", params: params(q.params), exposure: q.exposure as Tool["exposure"] }));
  return [...actions, ...queries];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
