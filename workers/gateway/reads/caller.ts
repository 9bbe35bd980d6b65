/**
 * @module Who is reading: the bearer token of `Authorization: Bearer <JWT>` (wire.md "Queries"),
 * verified for the audience `"{tenant}/{namespace}"` before the read transaction starts (jose is
 * asynchronous; a transaction is not), and the caller's standing in the tenant, looked up inside it.
 * The standing also decides how much a 404 may say: only the tenant's owners and
 * members learn which of tenant, namespace or query is missing. A delegate counts only in the
 * namespaces whose contract delegates an action to one of its scopes.
 */
import type { Context } from "hono";
import type { DatabaseSync } from "node:sqlite";
import { delegatesTo, type Schema } from "../../../contracts/schema.ts";
import { verifyBearer } from "../../../shared/identity/index.ts";
import { HttpProblem, NOT_FOUND_FOR_CALLER, type Problem, problem } from "../../../shared/problem.ts";
import { rolesOf, tenantExists } from "../../../shared/store/roles.ts";

/** A verified caller's did, or why there is none (a 401 problem). */
export type Bearer = { readonly ok: true; readonly did: string } | { readonly ok: false; readonly problem: Problem; readonly challenge: string };

/** Verifies the request's bearer token, if any, for `tenant`/`namespace` at `now`. */
export async function bearerOf(c: Context, tenant: string, namespace: string, now: number): Promise<Bearer> {
  const header = c.req.header("authorization");
  const token = header === undefined ? undefined : /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  // RFC 6750 §3: no error attribute when no credentials were sent at all.
  const realm = `Bearer realm="${tenant}/${namespace}"`;
  if (token === undefined) {
    if (header === undefined) return { ok: false, challenge: realm, problem: problem(401, "unauthenticated", `send Authorization: Bearer <JWT>, a self-signed EdDSA JWT with aud "${tenant}/${namespace}"`) };
    return { ok: false, challenge: `${realm}, error="invalid_request"`, problem: problem(401, "unauthenticated", "the Authorization header is not 'Bearer <JWT>'") };
  }
  const verified = await verifyBearer(token, { tenant, namespace, now });
  return verified.ok ? { ok: true, did: verified.value } : { ok: false, challenge: `${realm}, error="invalid_token"`, problem: verified.error };
}

/** The caller's did, or throws 401 (with `WWW-Authenticate: Bearer`) without a valid token. */
function verified(c: Context, bearer: Bearer): string {
  if (bearer.ok) return bearer.did;
  // Set on the context, so the single error mapper's response carries it.
  c.header("WWW-Authenticate", bearer.challenge);
  throw new HttpProblem(bearer.problem);
}

/**
 * Throws 401 without a valid token, 403 when the caller is not what `need` asks of it in `tenant`:
 * `member` (owner or member) or `owner`.
 */
export function requireCaller(c: Context, db: DatabaseSync, bearer: Bearer, tenant: string, need: "member" | "owner", now: number): string {
  const did = verified(c, bearer);
  const roles = rolesOf(db, tenant, did, now);
  if (need === "owner" ? !roles.owner : !roles.member) {
    throw new HttpProblem(problem(403, "forbidden", `${did} is not ${need === "owner" ? "an owner" : "an owner or member"} of tenant '${tenant}'`));
  }
  return did;
}

/**
 * The caller of an `api authenticated` query of `schema`'s namespace, or throws 401 without a valid
 * token and 403 for anyone else: an owner or member may ask, and a delegate only when the contract
 * delegates an action to one of its scopes. A delegate of any other scope is answered as a stranger.
 */
export function requireReader(c: Context, db: DatabaseSync, bearer: Bearer, tenant: string, schema: Pick<Schema, "namespace" | "actions">, now: number): string {
  const did = verified(c, bearer);
  const roles = rolesOf(db, tenant, did, now);
  if (!roles.member && !delegatesTo(schema, roles.scopes)) {
    throw new HttpProblem(problem(403, "forbidden", `${did} is not an owner or member of tenant '${tenant}', nor a delegate for ${schema.namespace}`));
  }
  return did;
}

/**
 * The 404 for something `tenant` lacks: `precise()` for its owners and members, who may know what the
 * tenant has; `NOT_FOUND_FOR_CALLER` for everyone else, with or without a valid token.
 */
export function notFound(db: DatabaseSync, bearer: Bearer, tenant: string, now: number, precise: () => string): HttpProblem {
  const member = bearer.ok && rolesOf(db, tenant, bearer.did, now).member;
  return new HttpProblem(member ? problem(404, "not-found", precise()) : NOT_FOUND_FOR_CALLER);
}

/** Why `tenant` has nothing installed at `namespace`, in words for its owners and members. */
export function missingInstall(db: DatabaseSync, tenant: string, namespace: string): string {
  return tenantExists(db, tenant) ? `tenant '${tenant}' has no contract installed for ${namespace}` : `no tenant '${tenant}'`;
}
