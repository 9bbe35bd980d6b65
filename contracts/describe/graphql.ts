/**
 * @module The GraphQL schema of a contract (wire.md "GraphQL"), built from its compiled schema: one
 * Query field per exposed query (its parameters as arguments) and one Mutation field per exposed
 * action taking `command: String!` (the signed JWS) and answering the receipt. The gateway executes
 * this very object; `schema.graphql` is its printed SDL, so what is described is what is served.
 * Root fields resolve through the root value the server passes (a function per field name).
 */
import {
  GraphQLBoolean, GraphQLEnumType, type GraphQLFieldConfigMap, GraphQLFloat, GraphQLInt, GraphQLList, GraphQLNonNull,
  GraphQLObjectType, type GraphQLScalarType, GraphQLSchema, GraphQLString, type GraphQLNamedType, printSchema,
} from "graphql";
import type { Column, Type } from "../ast.ts";
import type { Schema } from "../schema.ts";
import { DateScalar, DidKey, Int64 } from "./graphql-scalars.ts";
import { describe, nullable } from "./names.ts";

/** A type usable both as an argument and as a field: a scalar, an enum, or a list of either. */
type Leaf = GraphQLScalarType | GraphQLEnumType | GraphQLList<GraphQLNonNull<GraphQLScalarType | GraphQLEnumType>>;

const nonNull = <T extends Leaf | GraphQLObjectType | GraphQLList<GraphQLNonNull<GraphQLObjectType>>>(t: T) => new GraphQLNonNull(t);

/** Builds the GraphQL schema of `schema`. */
export function graphqlSchema(schema: Schema): GraphQLSchema {
  const d = describe(schema);
  const enums = new Map<string, GraphQLEnumType>();
  for (const [name, values] of d.enums) {
    enums.set(name, new GraphQLEnumType({ name, values: Object.fromEntries(values.map((v) => [v, { value: v }])) }));
  }
  const leaf = (type: Type): Leaf => {
    switch (type.kind) {
      case "Text":
        return GraphQLString;
      case "Int":
        return Int64;
      case "Bool":
        return GraphQLBoolean;
      case "Date":
        return DateScalar;
      case "Identity":
        return DidKey;
      case "Enum":
        return enums.get(d.enumName(type)) as GraphQLEnumType;
      case "Ref":
        return GraphQLString;
      case "List":
        return new GraphQLList(new GraphQLNonNull(leaf(type.element) as GraphQLScalarType | GraphQLEnumType));
      case "Vector":
        return new GraphQLList(nonNull(GraphQLFloat));
      case "Float":
        return GraphQLFloat;
      default: {
        const never: never = type;
        throw new Error(`no GraphQL type for ${JSON.stringify(never)}`);
      }
    }
  };
  const describeType = (type: Type): string | undefined =>
    type.kind === "Text" ? `at most ${type.len} characters` : type.kind === "List" ? `at most ${type.cap} elements` : type.kind === "Vector" ? `${type.dim} numbers` : type.kind === "Ref" ? `the subject of a ${type.aggregate}` : undefined;
  const outputFields = (columns: readonly Column[]): GraphQLFieldConfigMap<unknown, unknown> =>
    Object.fromEntries(columns.map((c) => [c.name, { type: nullable(c.type) ? leaf(c.type) : nonNull(leaf(c.type)), description: describeType(c.type) }]));

  const outcome = new GraphQLEnumType({ name: "Outcome", values: { accepted: { value: "accepted" }, refused: { value: "refused" } } });
  const refusal = new GraphQLObjectType({
    name: "Refusal",
    description: "Why a command was refused: condition_failed (with the condition and its line), unauthorized, text_too_long, list_full, overflow, division_by_zero, merge_conflict, …",
    fields: { code: { type: nonNull(GraphQLString) }, condition: { type: GraphQLString }, line: { type: GraphQLInt }, message: { type: GraphQLString } },
  });
  const results = new Map<string, GraphQLObjectType>();
  for (const agg of d.aggregates) {
    const state = new GraphQLObjectType({ name: agg.names.state, description: `The public fields of ${agg.name}`, fields: outputFields(agg.state) });
    const receipt = new GraphQLObjectType({
      name: agg.names.receipt,
      description: `A receipt of a command on ${agg.name}, accepted or refused, signed by the node.`,
      fields: {
        id: { type: nonNull(GraphQLString) },
        command: { type: nonNull(GraphQLString), description: "SHA-256 hex of the command's JWS" },
        seq: { type: nonNull(Int64) },
        tenant: { type: nonNull(GraphQLString) },
        namespace: { type: nonNull(GraphQLString) },
        action: { type: nonNull(GraphQLString) },
        subject: { type: nonNull(GraphQLString) },
        signer: { type: nonNull(DidKey) },
        artifact: { type: nonNull(GraphQLString) },
        outcome: { type: nonNull(outcome) },
        reason: { type: refusal },
        state: { type: state },
        committedAt: { type: nonNull(GraphQLString) },
        node: { type: nonNull(DidKey) },
      },
    });
    results.set(agg.name, new GraphQLObjectType({
      name: agg.names.result,
      fields: {
        receipt: { type: nonNull(receipt) },
        jws: { type: nonNull(GraphQLString), description: "the same receipt as a compact JWS signed by the node" },
        replayed: { type: nonNull(GraphQLBoolean), description: "true when this is the original receipt of a command sent before" },
      },
    }));
  }

  const contractInfo = new GraphQLObjectType({
    name: "ContractInfo",
    fields: { namespace: { type: nonNull(GraphQLString) }, version: { type: nonNull(GraphQLString) }, artifact: { type: nonNull(GraphQLString) } },
  });
  const queryFields: GraphQLFieldConfigMap<unknown, unknown> = { _contract: { type: nonNull(contractInfo), description: `The contract served here (${d.namespace})` } };
  for (const q of d.queries) {
    const row = new GraphQLObjectType({ name: q.names.row, fields: outputFields(q.row) });
    const result = new GraphQLObjectType({ name: q.names.result, fields: { rows: { type: nonNull(new GraphQLList(nonNull(row))) }, artifact: { type: nonNull(GraphQLString) } } });
    queryFields[q.name] = {
      type: nonNull(result),
      description: q.exposure === "authenticated" ? "For callers the tenant knows: send Authorization: Bearer <JWT>." : "For anyone.",
      args: Object.fromEntries(q.params.map((p) => [p.name, { type: nonNull(leaf(p.type)), description: describeType(p.type) }])),
    };
  }
  const mutationFields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const a of d.actions) {
    mutationFields[a.name] = {
      type: nonNull(results.get(a.action.aggregate) as GraphQLObjectType),
      description: `${a.action.aggregate}.${a.name}: command is a compact JWS (typ charter-command+jws) signed by the caller, whose payload is described by ${a.names.payload} in openapi.json.`,
      args: { command: { type: nonNull(GraphQLString) } },
    };
  }
  const named: GraphQLNamedType[] = [Int64, DateScalar, DidKey, ...enums.values(), outcome];
  return new GraphQLSchema({
    description: `The generated API of contract ${d.namespace} ${d.version}.`,
    query: new GraphQLObjectType({ name: "Query", fields: queryFields }),
    ...(d.actions.length > 0 ? { mutation: new GraphQLObjectType({ name: "Mutation", fields: mutationFields }) } : {}),
    types: named,
  });
}

/** The SDL of `schema`'s GraphQL schema, as the file `describe` writes (`schema.graphql`). */
export function graphqlSdl(schema: Schema): string {
  return `${printSchema(graphqlSchema(schema))}\n`;
}
