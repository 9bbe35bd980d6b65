/**
 * @module Limits on a GraphQL document before anything runs, so one request cannot make the gateway
 * work without bound. Depth is measured on the syntax alone (fragments followed, cycles cut), before
 * validation, so a document nested 100 deep is refused with a message about its depth. Cost is
 * measured after validation, with the types: every field costs 1, every root field that runs a
 * query or an action `OPERATION_COST`, and what is selected inside a list of objects counts
 * `LIST_FACTOR` times. Introspection (`__schema`, `__type`) is served from memory and never multiplied.
 */
import {
  type DocumentNode, type FragmentDefinitionNode, GraphQLError, type GraphQLNamedType, type GraphQLSchema, getNamedType,
  getNullableType, isListType, isObjectType, Kind, SchemaMetaFieldDef, type SelectionSetNode, TypeMetaFieldDef,
} from "graphql";

/** Deepest selection allowed; generated schemas need 4, standard introspection queries about 13. */
export const MAX_DEPTH = 15;
/** Largest cost allowed. */
export const MAX_COST = 5000;
const OPERATION_COST = 100;
const LIST_FACTOR = 10;
/** Tokens the parser reads at most (graphql's own guard against huge documents). */
export const MAX_TOKENS = 5000;

function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  return new Map(document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
}

/** The depth of a selection set: 1 for a set of leaf fields. */
function depthOf(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, seen: ReadonlySet<string>, limit: number): number {
  let deepest = 0;
  for (const s of set.selections) {
    let d = 0;
    if (s.kind === Kind.FIELD) d = 1 + (s.selectionSet === undefined ? 0 : depthOf(s.selectionSet, fragments, seen, limit - 1));
    else if (s.kind === Kind.INLINE_FRAGMENT) d = depthOf(s.selectionSet, fragments, seen, limit);
    else {
      const f = fragments.get(s.name.value);
      if (f !== undefined && !seen.has(f.name.value)) d = depthOf(f.selectionSet, fragments, new Set([...seen, f.name.value]), limit);
    }
    deepest = Math.max(deepest, d);
    // Deeper than the limit already: no need to walk the rest.
    if (deepest > limit) return deepest;
  }
  return deepest;
}

/** Errors for operations nested deeper than `MAX_DEPTH`. */
export function depthErrors(document: DocumentNode): GraphQLError[] {
  const fragments = fragmentsOf(document);
  const errors: GraphQLError[] = [];
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const depth = depthOf(def.selectionSet, fragments, new Set(), MAX_DEPTH);
    if (depth > MAX_DEPTH) {
      const name = def.name === undefined ? "the operation" : `operation '${def.name.value}'`;
      errors.push(new GraphQLError(`${name} is nested more than ${MAX_DEPTH} levels deep; at most ${MAX_DEPTH} are allowed`, { nodes: [def], extensions: { code: "QUERY_TOO_DEEP" } }));
    }
  }
  return errors;
}

function costOf(schema: GraphQLSchema, set: SelectionSetNode, parent: GraphQLNamedType, fragments: Map<string, FragmentDefinitionNode>, seen: ReadonlySet<string>, root: boolean): number {
  let cost = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.INLINE_FRAGMENT || s.kind === Kind.FRAGMENT_SPREAD) {
      const f = s.kind === Kind.INLINE_FRAGMENT ? s : fragments.get(s.name.value);
      if (f === undefined || (s.kind === Kind.FRAGMENT_SPREAD && seen.has(s.name.value))) continue;
      const on = f.typeCondition === undefined ? parent : (schema.getType(f.typeCondition.name.value) ?? parent);
      cost += costOf(schema, f.selectionSet, on, fragments, s.kind === Kind.FRAGMENT_SPREAD ? new Set([...seen, s.name.value]) : seen, root);
      continue;
    }
    const name = s.name.value;
    const introspection = name.startsWith("__") || parent.name.startsWith("__");
    cost += root && !introspection && name !== "_contract" ? OPERATION_COST : 1;
    const field = name === "__schema" ? SchemaMetaFieldDef : name === "__type" ? TypeMetaFieldDef : isObjectType(parent) ? parent.getFields()[name] : undefined;
    if (field === undefined || s.selectionSet === undefined) continue;
    const factor = !introspection && isListType(getNullableType(field.type)) ? LIST_FACTOR : 1;
    cost += factor * costOf(schema, s.selectionSet, getNamedType(field.type), fragments, seen, false);
  }
  return cost;
}

/** Errors for operations of a validated document that cost more than `MAX_COST`. */
export function costErrors(schema: GraphQLSchema, document: DocumentNode): GraphQLError[] {
  const fragments = fragmentsOf(document);
  const errors: GraphQLError[] = [];
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = def.operation === "mutation" ? schema.getMutationType() : schema.getQueryType();
    if (root === null || root === undefined) continue;
    const cost = costOf(schema, def.selectionSet, root, fragments, new Set(), true);
    if (cost > MAX_COST) {
      const name = def.name === undefined ? "the operation" : `operation '${def.name.value}'`;
      errors.push(new GraphQLError(`${name} costs ${cost}, more than the limit of ${MAX_COST} (each query or action costs ${OPERATION_COST}, each field 1, fields inside lists ${LIST_FACTOR}×)`, { nodes: [def], extensions: { code: "QUERY_TOO_COSTLY" } }));
    }
  }
  return errors;
}
