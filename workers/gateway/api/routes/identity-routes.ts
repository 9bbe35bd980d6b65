/**
 * @module The person's identities under `/api` in one mount: `/api/identities` (list, create, owners,
 * members, delegations), its vault, and `/api/scopes`.
 */
import type { Hono } from "hono";
import type { ApiEnv } from "../api-env.ts";
import { type IdentityRouteDeps, mountIdentityListRoutes, mountIdentityRoleRoutes } from "./identities.ts";
import { mountIdentityVaultRoute } from "./identity-vault.ts";
import { mountScopeRoutes } from "./scopes.ts";

/** Mounts every identity route. */
export function mountIdentityRoutes(api: Hono<ApiEnv>, deps: IdentityRouteDeps): void {
  mountIdentityListRoutes(api, deps);
  mountIdentityRoleRoutes(api, deps);
  mountIdentityVaultRoute(api, deps);
  mountScopeRoutes(api, deps);
}
