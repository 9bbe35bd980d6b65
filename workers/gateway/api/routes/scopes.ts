/**
 * @module `/api/scopes`: the delegation scopes a did holds in one of the person's identities (the
 * personal one unless `tenant` names another), for the person who owns it.
 *
 * - `PUT /api/scopes {tenant?, did, scopes: [...], until?}` (step-up) → `200 {tenant, did,
 *   delegations: [{did, scope, until}]}`: exactly `scopes` afterwards, each until `until` (no end
 *   when absent) — the missing ones given, the others taken back, in one engine transaction
 *   (`tenant-delegations-set`); nothing changes when any part is refused.
 * - `GET /api/scopes?tenant=&did=&after=&limit=` → `{items: [{did, scope, until}], next}`: the
 *   identity's delegations (of one did when `did` is given), lapsed ones included (`until` says so).
 */
import type { Hono } from "hono";
import { isDidKey } from "../../../../shared/identity/index.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { ask } from "../identities/identity-admin.ts";
import { BodyFields } from "../identities/identity-body.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import { type IdentityRouteDeps, requireOwner } from "./identities.ts";

export function mountScopeRoutes(api: Hono<ApiEnv>, deps: IdentityRouteDeps): void {
  api.put("/api/scopes", async function setScopes(c) {
    sessionOf(c);
    const body = await jsonBody(c, ["tenant", "did", "scopes", "until"]);
    const fields = new BodyFields();
    const tenant = fields.text(body.tenant, "tenant", false) ?? deps.reader.personalTenant();
    const did = fields.text(body.did, "did", true);
    const scopes = fields.texts(body.scopes, "scopes");
    const until = fields.text(body.until, "until", false);
    fields.done();
    requireOwner(deps.reader, tenant);
    requireSteppedUp(c, deps.account);
    const delegations = await ask(deps.admin, "tenant-delegations-set", { tenant, did, scopes, ...(until === undefined ? {} : { until }) }, { bad_scope: "scopes" });
    return c.json({ tenant, did, delegations });
  });

  api.get("/api/scopes", async function listScopes(c) {
    sessionOf(c);
    const request = pageRequest(c);
    const tenant = c.req.query("tenant") ?? deps.reader.personalTenant();
    const did = c.req.query("did");
    if (did !== undefined && !isDidKey(did)) {
      throw new HttpProblem(problem(400, "bad-parameters", "did is an Ed25519 did:key", [{ pointer: "?did", detail: "did is an Ed25519 did:key" }]));
    }
    requireOwner(deps.reader, tenant);
    const { delegations } = await ask(deps.admin, "tenant-describe", { tenant });
    const items = did === undefined ? delegations : delegations.filter((d) => d.did === did);
    return c.json(pageOf(items, (d) => `${d.did} ${d.scope}`, request));
  });
}
