/**
 * @module What every stage compiler (query-sql.ts dispatches to one per stage kind) works on: the
 * level being built, the query's sources, and the statement's placeholders and aliases.
 */
import type { CountExpr, Stage } from "../ast.ts";
import type { Level } from "./query-level.ts";
import type { SourceTable } from "./query-sources.ts";
import type { ExprScope } from "./sql-expr.ts";

export interface PlanContext {
  level: Level;
  readonly sources: readonly SourceTable[];
  /** SQL of the `asof` time in milliseconds, or null (the latest state). */
  readonly asof: string | null;
  /**
   * `nearest` ranks outside SQL (vector-cache.ts): the statement reads only the candidate subjects
   * bound as `:nn_subjects` (a JSON array) and their distances from NEAREST_FUNCTION.
   */
  readonly nearestCandidates: boolean;
  /** The FTS5 table a `search` reads for the tenant (see FulltextTables). */
  readonly fulltext: FulltextTables;
  /** The expression scope over the current level's columns. */
  scope(): ExprScope;
  /** A take/drop/depth count's placeholder. */
  count(c: CountExpr): string;
  /** Makes the level so far a subquery of a new one. */
  wrap(): void;
  /** A fresh alias `prefixN`. */
  alias(prefix: string): string;
}

/**
 * The FTS5 table of a source's fulltext index for the tenant the query runs for: its own table
 * (`shared` false), the store's shared table of every tenant (`shared` true: a store written before
 * per-tenant tables, filtered by tenant), or null when the tenant has no row in that index yet.
 */
export type FulltextTables = (source: SourceTable, index: string) => { readonly table: string; readonly shared: boolean } | null;

/** Compiles one stage kind into the context's level. */
export type StageCompiler<K extends Stage["kind"]> = (ctx: PlanContext, stage: Extract<Stage, { kind: K }>) => void;
