/**
 * @module Tenant routes of `/v1` (wire.md "Identities", "Operating tenants and contracts"):
 *
 * - `GET /v1/{tenant}` → `{handle, did, namespaces}` (the active install of each namespace), for the
 *   tenant's owners and members. The caller sends `Authorization: Bearer <JWT>`, the same self-signed
 *   EdDSA token as for queries but with `aud` = `"{tenant}"` (no namespace: it is a tenant-level read).
 * - `POST /v1/{tenant}/_install`, body `{"install": "<JWS>"}` (or the JWS as application/jose): an
 *   owner's signed contract source. It is compiled in a child process — never here — and installed
 *   by the engine, which checks ownership again in the same turn as the install.
 *
 * Both reach the engine through its admin socket; a failure the engine reports maps to one status.
 */
import type { Context, Hono } from "hono";
import { ChannelError } from "../../../shared/channel/messages.ts";
import { parseInstall, verifyBearer } from "../../../shared/identity/index.ts";
import { HttpProblem, problem, problemOf, type ProblemCode } from "../../../shared/problem.ts";
import type { AdminError, AdminRequests, AdminRequestType, AdminResult } from "../../../shared/protocol/admin.ts";
import type { CompileOutcome } from "../../../contracts/artifact-wire.ts";
import type { CheckOptions, CollectionInfo } from "../../../contracts/check/check-contract.ts";
import { CompileChildError } from "../../../contracts/compile-in-child.ts";
import { previousFromSchema, upgradesOf } from "../../../contracts/previous-schema.ts";
import type { Schema } from "../../../contracts/schema.ts";
import { problemResponse } from "../problem-response.ts";
import { signedBody } from "../signed-body.ts";

export interface TenantRouteDeps {
  /** The engine's admin channel (a SocketLink on `DATA/admin.sock`). */
  readonly admin: { request<K extends AdminRequestType>(type: K, body: AdminRequests[K]["request"]): Promise<AdminRequests[K]["response"]> };
  /** Compiles a contract's Markdown out of process (contracts/compile-in-child.ts). */
  readonly compile: (source: string, context: { previous?: CheckOptions["previous"]; collections?: Record<string, CollectionInfo> }) => Promise<CompileOutcome>;
  readonly now: () => number;
  /** Called after an install and before its answer: the gRPC surface serves the new methods at once. */
  readonly installed?: () => Promise<void>;
}

/**
 * The problem of each admin error a tenant route can get back (the admin channel's codes are its
 * own vocabulary, shared with the `charter` commands). A code missing here is a bug, answered 500.
 */
const ADMIN_PROBLEMS: Readonly<Record<string, ProblemCode>> = {
  bad_handle: "bad-handle",
  unknown_tenant: "unknown-tenant",
  not_owner: "not-owner",
  bad_artifact: "bad-artifact",
  artifact_mismatch: "artifact-mismatch",
  bad_install: "bad-install",
  install_stale: "install-stale",
  install_replayed: "install-replayed",
  upgrade_required: "upgrade-required",
  upgrade_mismatch: "upgrade-mismatch",
  migration_failed: "migration-failed",
  // A replicated engine's: the write did not go through the voters' log (try again), or failed there.
  no_leader: "no-leader",
  not_committed: "not-committed",
  commit_timeout: "commit-timeout",
  forward_failed: "forward-failed",
  apply_failed: "internal",
};

/** The problem of an admin error, by the table above (also for `/api`'s installs). */
export function adminProblem(error: AdminError): HttpProblem {
  const code = ADMIN_PROBLEMS[error.code];
  if (code === undefined) throw new Error(`the engine answered a tenant route with an unexpected admin error ${error.code}: ${error.message}`);
  return new HttpProblem(problemOf(code, error.message));
}

/** Asks the engine; its refusals become problem documents, its absence a 503. */
async function ask<K extends AdminRequestType>(deps: TenantRouteDeps, type: K, body: AdminRequests[K]["request"]): Promise<AdminRequests[K]["response"] & { ok: true }> {
  let result: AdminResult<unknown>;
  try {
    result = await deps.admin.request(type, body);
  } catch (error) {
    if (error instanceof ChannelError) throw new HttpProblem(problem(503, "engine-unavailable", "the engine is restarting; try again"));
    throw error;
  }
  if (!result.ok) throw adminProblem(result.error);
  return result as AdminRequests[K]["response"] & { ok: true };
}

/** The caller's roles in `tenant`; none at all when there is no such tenant, so the two answer alike. */
async function rolesOrNone(deps: TenantRouteDeps, tenant: string, did: string): Promise<{ member: boolean; owner: boolean }> {
  try {
    return (await ask(deps, "tenant-roles", { tenant, did })).value;
  } catch (error) {
    if (error instanceof HttpProblem && error.problem.status === 404) return { member: false, owner: false };
    throw error;
  }
}

function bearerToken(c: Context): string | undefined {
  const header = c.req.header("authorization");
  const match = header === undefined ? null : /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

/** Compiles out of process; a compile that ran out of time is a 503 (a crash stays a logged 500). */
async function compile(deps: TenantRouteDeps, source: string, context: { previous?: CheckOptions["previous"]; collections?: Record<string, CollectionInfo> }): Promise<CompileOutcome> {
  try {
    return await deps.compile(source, context);
  } catch (error) {
    if (error instanceof CompileChildError && error.timedOut) throw new HttpProblem(problem(503, "compile-timeout", error.message));
    // The compiler's process died (out of memory, a signal): the node is fine and nothing was installed.
    if (error instanceof CompileChildError) throw new HttpProblem(problem(503, "compile-failed", `the compiler's process failed (${error.message}); nothing was installed`));
    throw error;
  }
}

export function mountTenantRoutes(app: Hono, deps: TenantRouteDeps): void {
  app.get("/v1/:tenant", async function getTenant(c) {
    const tenant = c.req.param("tenant");
    const caller = await verifyBearer(bearerToken(c), { tenant, now: deps.now() });
    if (!caller.ok) return problemResponse(c, caller.error);
    // A tenant that does not exist and one the caller is not in look the same.
    const roles = await rolesOrNone(deps, tenant, caller.value);
    if (!roles.member) throw new HttpProblem(problem(403, "not-member", `${caller.value} is neither an owner nor a member of '${tenant}'`));
    const { value: described } = await ask(deps, "tenant-describe", { tenant });
    const namespaces = described.namespaces.filter((n) => n.status === "active");
    return c.json({ handle: described.handle, did: described.did, namespaces });
  });

  app.post("/v1/:tenant/_install", async function postInstall(c) {
    const tenant = c.req.param("tenant");
    const verified = parseInstall(await signedBody(c, "install"), { now: deps.now(), tenant });
    if (!verified.ok) return problemResponse(c, verified.error);
    const { signer, payload } = verified.value;
    // Ownership first: nobody else gets to spend a compiler process.
    const roles = await rolesOrNone(deps, tenant, signer);
    if (!roles.owner) throw new HttpProblem(problem(403, "not-owner", `${signer} is not an owner of '${tenant}'; only owners install contracts`));
    // Queries may read the tenant's other contracts and the standard library: check against them.
    const { value: collections } = await ask(deps, "collections", { tenant });
    let compiled = await compile(deps, payload.source, { collections });
    // An upgrade is checked again against the version it replaces (missing `migrate` lines, old.FIELD).
    const upgrades = compiled.ok ? upgradesOf(compiled.artifact.schemaJson) : null;
    if (upgrades !== null) {
      const replaced = await deps.admin.request("artifact-schema", { id: upgrades }).catch(() => null);
      if (replaced?.ok) compiled = await compile(deps, payload.source, { collections, previous: previousFromSchema(JSON.parse(replaced.value.schemaJson) as Schema) });
    }
    if (!compiled.ok) {
      const count = compiled.errors.length;
      throw new HttpProblem(problem(422, "compile-errors", `the contract has ${count} error${count === 1 ? "" : "s"}`, compiled.errors));
    }
    const signed = { id: payload.id, issuedAt: payload.issuedAt };
    const { value: installed } = await ask(deps, "install", { tenant, artifact: compiled.artifact, by: signer, requireOwner: true, signed });
    await deps.installed?.();
    return c.json({ artifact: installed.artifact, namespace: installed.namespace, version: installed.version });
  });
}
