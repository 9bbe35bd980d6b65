/**
 * @module `charter describe`'s output: the three API descriptions of one compiled schema, by file
 * name. Each is a pure function of the schema (never of the source text), so the same schema always
 * gives byte-identical files, and all three name their types from one table (names.ts).
 */
import type { Schema } from "../schema.ts";
import { graphqlSdl } from "./graphql.ts";
import { openapiJson } from "./openapi.ts";
import { protoFile } from "./proto.ts";

/** The files `describe` writes, in the order it writes them. */
export const DESCRIBED_FILES = ["openapi.json", "schema.graphql", "api.proto"] as const;

export type DescribedFile = (typeof DESCRIBED_FILES)[number];

/** The text of each described file of `schema`. */
export function describeSchema(schema: Schema): Record<DescribedFile, string> {
  return { "openapi.json": openapiJson(schema), "schema.graphql": graphqlSdl(schema), "api.proto": protoFile(schema) };
}
