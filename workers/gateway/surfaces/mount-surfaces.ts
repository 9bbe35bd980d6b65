/**
 * @module The described surfaces of `/v1`: each namespace's OpenAPI description and its
 * GraphQL endpoint, both generated from the active artifact's schema, both reaching the engine by
 * the same paths as REST. They read the store through their own read-only view (design §2).
 */
import type { Hono } from "hono";
import type { Logger } from "../../../shared/log.ts";
import type { CommandRouteDeps } from "../routes/commands.ts";
import { StoreView } from "../reads/store-view.ts";
import { DescribedContracts } from "./described-contracts.ts";
import { mountGraphqlRoute } from "../routes/graphql.ts";
import { mountOpenApiRoute } from "../routes/openapi.ts";

export interface SurfaceDeps extends CommandRouteDeps {
  /** `DATA/charter.db`, opened read-only on first use. */
  readonly storePath: string;
  readonly log: Logger;
}

/** Mounts `GET …/openapi.json` and `POST …/graphql` for every tenant and namespace. */
export function mountSurfaces(app: Hono, deps: SurfaceDeps): void {
  const store = new StoreView(deps.storePath);
  const contracts = new DescribedContracts(store);
  mountOpenApiRoute(app, contracts);
  mountGraphqlRoute(app, contracts, { ...deps, store });
}
