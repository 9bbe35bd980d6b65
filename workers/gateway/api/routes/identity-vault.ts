/**
 * @module `POST /api/identities/{handle}/vault {operation}`: an identity's key material, for the
 * person who owns it. Never a private key.
 *
 * - `export` → `{handle, did, publicJwk: {kty: "OKP", crv: "Ed25519", x}, createdAt}`: the tenant's
 *   own did:key and its public key as a JWK (derived from the did, which is the public key).
 * - `rotate` (step-up) → `501 key-rotation-unsupported`. A tenant's key pair is made by the engine
 *   when the tenant is created (its secret in `DATA/keys/tenant-<handle>.jwk`, carried to other
 *   voters in the create's log entry and in snapshots) and signs nothing: receipts are signed by the
 *   node's key, commands by their signers'. The did is the tenant's public name. Replacing it takes
 *   a new replicated engine operation (a key made by the proposer, as a create does), a place in
 *   the store for retired dids, and snapshots that carry retired keys — none of which exists — so
 *   the node answers that rotation is not supported rather than half doing it.
 */
import type { Hono } from "hono";
import { publicKeyFromDidKey, toPublicJwk } from "../../../../shared/identity/index.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { ask } from "../identities/identity-admin.ts";
import { BodyFields } from "../identities/identity-body.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import { type IdentityRouteDeps, requireOwner } from "./identities.ts";

const OPERATIONS = ["export", "rotate"] as const;

export function mountIdentityVaultRoute(api: Hono<ApiEnv>, deps: IdentityRouteDeps): void {
  api.post("/api/identities/:handle/vault", async function vault(c) {
    sessionOf(c);
    const handle = c.req.param("handle");
    const body = await jsonBody(c, ["operation"]);
    const fields = new BodyFields();
    const operation = fields.choice(body.operation, "operation", OPERATIONS);
    fields.done();
    requireOwner(deps.reader, handle);
    if (operation === "rotate") {
      requireSteppedUp(c, deps.account);
      throw new HttpProblem(
        problem(
          501,
          "key-rotation-unsupported",
          `'${handle}' keeps its did:key: the engine holds one key per tenant, made with it and never replaced, and signs nothing with it (receipts carry the node's signature), so there is no rotation to make safely yet`,
        ),
      );
    }
    const described = await ask(deps.admin, "tenant-describe", { tenant: handle });
    const publicKey = publicKeyFromDidKey(described.did);
    if (!publicKey.ok) throw new Error(`tenant '${handle}' has a did that is not an Ed25519 did:key: ${publicKey.error.message}`);
    return c.json({ handle, did: described.did, publicJwk: toPublicJwk(publicKey.value), createdAt: described.createdAt });
  });
}
