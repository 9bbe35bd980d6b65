/**
 * @module Limits on a GraphQL document before anything runs, so one request cannot make the gateway
 * work without bound. Before parsing, brackets nested deeper than `MAX_NESTING` are refused (graphql's
 * parser and validator recurse, and a few thousand levels overflow the stack). Depth is measured on
 * the syntax alone, before validation, so a document nested 100 deep is refused with a message about
 * its depth. Cost is measured after validation, with the types: every field costs 1, every root field
 * that runs a query or an action `OPERATION_COST`, and what is selected inside a list of objects
 * counts `LIST_FACTOR` times. Introspection (`__schema`, `__type`) is served from memory and never
 * multiplied.
 *
 * Both measures take time linear in the document: each named fragment is measured once,
 * in dependency order (graphql-fragments.ts), and a spread adds the fragment's figure instead of
 * walking it again, so `fragment Fi on Query { ...Fi+1 ...Fi+1 }` thirty deep is a few hundred steps,
 * not 2^30. Unknown, duplicate and self-spreading fragments are refused before anything is measured.
 * The walks use explicit stacks, never recursion.
 */
import {
  type DocumentNode, type FragmentDefinitionNode, GraphQLError, type GraphQLNamedType, type GraphQLSchema, getNamedType, getNullableType, isListType,
  isObjectType, Kind, Lexer, SchemaMetaFieldDef, type SelectionSetNode, Source, TokenKind, TypeMetaFieldDef,
} from "graphql";
import { fragmentOrder, spreadsIn, type Visit } from "./graphql-fragments.ts";

export type { Visit } from "./graphql-fragments.ts";

/** Deepest selection allowed; generated schemas need 4, standard introspection queries about 13. */
export const MAX_DEPTH = 15;
/** Largest cost allowed. */
export const MAX_COST = 5000;
const OPERATION_COST = 100;
const LIST_FACTOR = 10;
/** Tokens the parser reads at most (graphql's own guard against huge documents). */
export const MAX_TOKENS = 5000;
/** Comments the parser keeps at most (it keeps them as tokens, outside `MAX_TOKENS`). */
export const MAX_COMMENTS = 5000;
/**
 * Brackets (`{`, `[`, `(`) open at once at most. Far above what `MAX_DEPTH` lets through (a refused
 * depth still gets its own message), far below the nesting at which graphql's recursive parser
 * overflows the stack (about 2,500 levels, before the JIT has warmed up).
 */
export const MAX_NESTING = 256;
/** Costs saturate here: a product of thousands of spreads would otherwise reach Infinity. */
const COST_CEILING = Number.MAX_SAFE_INTEGER;

/**
 * An error when `query` nests brackets deeper than `MAX_NESTING`, found by graphql's own lexer (which
 * does not recurse) before the parser sees it. Lexical errors and documents over `MAX_TOKENS` are left
 * to the parser, which words them better.
 */
export function nestingError(query: string): GraphQLError | undefined {
  const lexer = new Lexer(new Source(query));
  let open = 0;
  try {
    for (let n = 0; n <= MAX_TOKENS; n++) {
      const kind = lexer.advance().kind;
      if (kind === TokenKind.EOF) return undefined;
      if (kind === TokenKind.BRACE_L || kind === TokenKind.BRACKET_L || kind === TokenKind.PAREN_L) open++;
      else if (kind === TokenKind.BRACE_R || kind === TokenKind.BRACKET_R || kind === TokenKind.PAREN_R) open--;
      if (open > MAX_NESTING) return new GraphQLError(`the document nests brackets more than ${MAX_NESTING} deep; selections may be at most ${MAX_DEPTH} levels deep`, { extensions: { code: "QUERY_TOO_DEEP" } });
    }
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
  }
  return undefined;
}

/**
 * The depth of `set`: 1 for a set of leaf fields, a spread counting what `depths` has for its
 * fragment. Stops as soon as the depth passes `MAX_DEPTH`; answers `undefined` for a spread of a
 * fragment `depths` lacks (the document does not define it).
 */
function depthOf(set: SelectionSetNode, depths: ReadonlyMap<string, number>, visit: Visit | undefined): number | undefined {
  let deepest = 0;
  // Each entry is a selection set and the number of fields above it.
  const stack: [SelectionSetNode, number][] = [[set, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [current, above] = next;
    for (const s of current.selections) {
      visit?.();
      let d: number;
      if (s.kind === Kind.FIELD) {
        d = above + 1;
        if (s.selectionSet !== undefined) stack.push([s.selectionSet, d]);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        d = above;
        stack.push([s.selectionSet, above]);
      } else {
        const inner = depths.get(s.name.value);
        if (inner === undefined) return undefined;
        d = above + inner;
      }
      if (d > deepest) deepest = d;
      if (deepest > MAX_DEPTH) return deepest;
    }
  }
  return deepest;
}

const operationName = (name: { value: string } | undefined) => (name === undefined ? "the operation" : `operation '${name.value}'`);

/**
 * Errors for fragments the document cannot use (unknown, defined twice, spreading themselves) and
 * for operations nested deeper than `MAX_DEPTH`. `visit` is called once per selection looked at.
 */
export function depthErrors(document: DocumentNode, visit?: Visit): GraphQLError[] {
  const ordered = fragmentOrder(document, visit);
  if (!ordered.ok) return [...ordered.errors];
  const depths = new Map<string, number>();
  for (const f of ordered.order) {
    // Every fragment `f` spreads is ordered before it, so none is missing here.
    depths.set(f.name.value, depthOf(f.selectionSet, depths, visit) ?? 0);
  }
  const errors: GraphQLError[] = [];
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const depth = depthOf(def.selectionSet, depths, visit);
    if (depth === undefined) {
      const missing = spreadsIn(def.selectionSet).find((s) => !depths.has(s.name.value));
      errors.push(new GraphQLError(`Unknown fragment "${missing?.name.value ?? ""}".`, { nodes: missing === undefined ? [def] : [missing], extensions: { code: "GRAPHQL_VALIDATION_FAILED" } }));
    } else if (depth > MAX_DEPTH) {
      errors.push(new GraphQLError(`${operationName(def.name)} is nested more than ${MAX_DEPTH} levels deep; at most ${MAX_DEPTH} are allowed`, { nodes: [def], extensions: { code: "QUERY_TOO_DEEP" } }));
    }
  }
  return errors;
}

/** A fragment's cost spread among root fields (its fields run queries) and elsewhere (plain fields). */
interface FragmentCost {
  readonly root: number;
  readonly nested: number;
}

/**
 * The cost of `set` selected on `parent`: `root` when its fields are an operation's root fields. A
 * spread adds the cost `costs` has for its fragment, which depends only on the fragment and `root`
 * (a named fragment always names its type).
 */
function costOf(schema: GraphQLSchema, set: SelectionSetNode, parent: GraphQLNamedType | undefined, root: boolean, costs: ReadonlyMap<string, FragmentCost>, visit: Visit | undefined): number {
  let cost = 0;
  const add = (n: number) => {
    cost = Math.min(COST_CEILING, cost + n);
  };
  // Each entry is a selection set, the type it selects on, whether it is the root, and how many times it counts.
  const stack: [SelectionSetNode, GraphQLNamedType | undefined, boolean, number][] = [[set, parent, root, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [current, on, atRoot, times] = next;
    for (const s of current.selections) {
      visit?.();
      if (s.kind === Kind.INLINE_FRAGMENT) {
        stack.push([s.selectionSet, s.typeCondition === undefined ? on : (schema.getType(s.typeCondition.name.value) ?? on), atRoot, times]);
        continue;
      }
      if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = costs.get(s.name.value);
        if (f !== undefined) add(times * (atRoot ? f.root : f.nested));
        continue;
      }
      const name = s.name.value;
      const introspection = name.startsWith("__") || (on?.name.startsWith("__") ?? false);
      add(times * (atRoot && !introspection && name !== "_contract" ? OPERATION_COST : 1));
      const field = name === "__schema" ? SchemaMetaFieldDef : name === "__type" ? TypeMetaFieldDef : on !== undefined && isObjectType(on) ? on.getFields()[name] : undefined;
      if (field === undefined || s.selectionSet === undefined) continue;
      const factor = !introspection && isListType(getNullableType(field.type)) ? LIST_FACTOR : 1;
      stack.push([s.selectionSet, getNamedType(field.type), false, Math.min(COST_CEILING, times * factor)]);
    }
  }
  return cost;
}

/** The cost of every fragment, measured once each, those it spreads first. */
function fragmentCosts(schema: GraphQLSchema, order: readonly FragmentDefinitionNode[], visit: Visit | undefined): Map<string, FragmentCost> {
  const costs = new Map<string, FragmentCost>();
  for (const f of order) {
    const on = schema.getType(f.typeCondition.name.value);
    costs.set(f.name.value, { root: costOf(schema, f.selectionSet, on, true, costs, visit), nested: costOf(schema, f.selectionSet, on, false, costs, visit) });
  }
  return costs;
}

/**
 * Errors for operations of a validated document that cost more than `MAX_COST`. `visit` is called
 * once per selection looked at.
 */
export function costErrors(schema: GraphQLSchema, document: DocumentNode, visit?: Visit): GraphQLError[] {
  const ordered = fragmentOrder(document, visit);
  // Validation has refused such documents already; answer its errors should a caller skip it.
  if (!ordered.ok) return [...ordered.errors];
  const costs = fragmentCosts(schema, ordered.order, visit);
  const errors: GraphQLError[] = [];
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = def.operation === "mutation" ? schema.getMutationType() : schema.getQueryType();
    if (root === null || root === undefined) continue;
    const cost = costOf(schema, def.selectionSet, root, true, costs, visit);
    if (cost > MAX_COST) {
      const figure = cost < COST_CEILING ? String(cost) : `at least ${COST_CEILING}`;
      errors.push(new GraphQLError(`${operationName(def.name)} costs ${figure}, more than the limit of ${MAX_COST} (each query or action costs ${OPERATION_COST}, each field 1, fields inside lists ${LIST_FACTOR}×)`, { nodes: [def], extensions: { code: "QUERY_TOO_COSTLY" } }));
    }
  }
  return errors;
}
