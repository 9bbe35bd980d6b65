/**
 * @module `POST /api/identities/{handle}/vault {operation}`: an identity's key material, for the
 * person who owns it. Never a private key.
 *
 * - `export` → `{handle, did, publicJwk: {kty: "OKP", crv: "Ed25519", x}, createdAt, retiredDids:
 *   [{did, retiredAt}]}`: the tenant's own did:key and its public key as a JWK (derived from the
 *   did, which is the public key), and the dids earlier rotations retired, newest first (20 at most).
 * - `rotate` (step-up) → `{handle, did, previous: {did, retiredAt}, publicJwk}`: the engine's
 *   `tenant-key-rotate` gives the tenant a new key pair (on a replicated engine made by the
 *   proposer and carried in the log entry, as a create's is); the old key is kept as a retired key
 *   file and its did listed as retired. The tenant's key signs nothing — receipts carry the node's
 *   signature, commands their signers' — so records, roles and delegations are untouched; only the
 *   identity's public name changes. The person's own key (the sealed account key) is a different
 *   key and is never rotated here.
 */
import type { Hono } from "hono";
import { publicKeyFromDidKey, toPublicJwk } from "../../../../shared/identity/index.ts";
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
      const rotated = await ask(deps.admin, "tenant-key-rotate", { tenant: handle, by: deps.reader.did() });
      return c.json({ handle, did: rotated.did, previous: rotated.previous, publicJwk: publicJwkOf(handle, rotated.did) });
    }
    const described = await ask(deps.admin, "tenant-describe", { tenant: handle });
    return c.json({ handle, did: described.did, publicJwk: publicJwkOf(handle, described.did), createdAt: described.createdAt, retiredDids: described.retiredDids });
  });
}

/** The public key of a tenant's did:key, as a JWK. */
function publicJwkOf(handle: string, did: string): ReturnType<typeof toPublicJwk> {
  const publicKey = publicKeyFromDidKey(did);
  if (!publicKey.ok) throw new Error(`tenant '${handle}' has a did that is not an Ed25519 did:key: ${publicKey.error.message}`);
  return toPublicJwk(publicKey.value);
}
