/**
 * @module The environment an expression is checked in: which names exist where. An action sees its
 * parameters, `state.` and `context.`; a migrate block sees `state.` targets and `old.`; a default
 * sees only literals and enum values; a query stage sees the current columns and `$` parameters.
 */
import type { AggregateDecl, Column, Type } from "../ast.ts";
import type { Scope } from "./scope.ts";

/** Where an expression is written. */
export type ExprPlace = "action" | "default" | "migrate" | "query";

/** Names an expression may use. */
export interface ExprEnv {
  readonly scope: Scope;
  readonly place: ExprPlace;
  /** The aggregate whose `state.` fields are visible (actions, migrate, defaults). */
  readonly aggregate: AggregateDecl | null;
  /** Action parameters by bare name; query parameters by `$name`. */
  readonly params: ReadonlyMap<string, Type>;
  /** `old.FIELD` types in a migrate block; null when the previous version is unknown. */
  readonly previous: ReadonlyMap<string, Type> | null;
  /** Query columns by bare name (queries only). */
  readonly columns: readonly Column[];
  /** Private fields of the query's source aggregate, to explain why one cannot be read. */
  readonly privateFields: ReadonlyMap<string, string>;
  /** `count()`, `sum()`, … are allowed (inside `summarize`). */
  readonly aggregates: boolean;
}

/** An environment with nothing in it but the scope; spread and override what a place allows. */
export function baseEnv(scope: Scope, place: ExprPlace, aggregate: AggregateDecl | null): ExprEnv {
  return { scope, place, aggregate, params: new Map(), previous: null, columns: [], privateFields: new Map(), aggregates: false };
}

/** How the place is named in "not available in …" messages. */
export function placeName(place: ExprPlace): string {
  switch (place) {
    case "action":
      return "an action";
    case "default":
      return "a default";
    case "migrate":
      return "a migrate block, which runs once at install";
    case "query":
      return "a query, which reads stored rows only";
    default: {
      const never: never = place;
      return never;
    }
  }
}
