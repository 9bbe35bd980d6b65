/**
 * @module `GET /v1/{tenant}/{namespace}/openapi.json`: the OpenAPI 3.1 description of the contract
 * the namespace serves now — byte for byte the `openapi.json` that `charter describe` writes for
 * its schema. Public, like the shape of any API: the operations themselves check who may call them.
 */
import type { Hono } from "hono";
import type { DescribedContracts } from "../surfaces/described-contracts.ts";

export function mountOpenApiRoute(app: Hono, contracts: DescribedContracts): void {
  app.get("/v1/:tenant/:namespace/openapi.json", function getOpenApi(c) {
    const { tenant, namespace } = c.req.param();
    const contract = contracts.active(tenant, namespace);
    return c.body(contract.openapi(), 200, { "content-type": "application/json", etag: `"${contract.artifact}"` });
  });
}
