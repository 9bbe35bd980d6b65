/**
 * @module The contract a tenant's namespace serves right now, with its OpenAPI text and GraphQL
 * schema built once per artifact. The active artifact is looked up on every request (the store view
 * caches it until the store changes), so installing or upgrading a contract changes what the
 * surfaces describe and serve at once, without a restart; an artifact never changes once stored, so
 * what is built from it is kept by artifact id.
 */
import type { GraphQLSchema } from "graphql";
import { graphqlSchema } from "../../../contracts/describe/graphql.ts";
import { type Described, describe } from "../../../contracts/describe/names.ts";
import { openapiJson } from "../../../contracts/describe/openapi.ts";
import type { Schema } from "../../../contracts/schema.ts";
import { HttpProblem, NOT_FOUND_FOR_CALLER } from "../../../shared/problem.ts";
import type { StoreView } from "../reads/store-view.ts";

/** What the surfaces need of one artifact. */
export interface DescribedContract {
  readonly artifact: string;
  readonly schema: Schema;
  readonly described: Described;
  openapi(): string;
  graphql(): GraphQLSchema;
}

/** Artifacts kept at most; building again is cheap (milliseconds), so the cache is simply cleared. */
const MAX_ARTIFACTS = 64;

export class DescribedContracts {
  readonly #store: StoreView;
  readonly #built = new Map<string, DescribedContract>();

  constructor(store: StoreView) {
    this.#store = store;
  }

  /** The active contract of `namespace` for `tenant`; throws a 404 problem when there is none. */
  active(tenant: string, namespace: string): DescribedContract {
    const active = this.#store.read(() => {
      const found = this.#store.active(tenant, namespace);
      // openapi.json and gRPC ask no credential: one 404 whether the tenant or the contract is missing.
      if (found === null) throw new HttpProblem(NOT_FOUND_FOR_CALLER);
      return found;
    });
    let built = this.#built.get(active.artifact);
    if (built === undefined) {
      built = build(active.artifact, active.schema);
      if (this.#built.size >= MAX_ARTIFACTS) this.#built.clear();
      this.#built.set(active.artifact, built);
    }
    return built;
  }
}

function build(artifact: string, schema: Schema): DescribedContract {
  let openapi: string | undefined;
  let graphql: GraphQLSchema | undefined;
  return {
    artifact,
    schema,
    described: describe(schema),
    openapi: () => (openapi ??= openapiJson(schema)),
    graphql: () => (graphql ??= graphqlSchema(schema)),
  };
}
