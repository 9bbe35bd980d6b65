/**
 * @module `/api/identities` (specification §4.9): the person's identities are tenants of the
 * engine — the personal one, and the businesses and households the person makes here, each with
 * its own did:key — driven through the engine's admin channel; their kind and display name are a
 * `std.identities` record in the personal tenant (identities/identity-records.ts).
 *
 * - `GET /api/identities` → `{items: [{handle, did, kind, name?, role}], next}`
 * - `GET /api/identities/{handle}` → the identity described (its owners, members, delegations,
 *   retired dids), for an owner: an unknown handle `404`, one the person does not own `403 not-owner`.
 * - `POST /api/identities {handle, kind: "business" | "household", name?}` → `201` the identity
 *   (with the receipt of its registration); the engine's handle rules (`400` naming `handle`), `409
 *   handle-taken`; a name the contract refuses is `422` with the receipt, and no tenant is made.
 * - `POST /api/identities/{handle}/owners|members {did, remove?}`, `…/delegations {did, scope,
 *   until?, remove?}` (step-up; the person must own it) → `200` the identity described.
 */
import type { Hono } from "hono";
import { receiptJsonOf } from "../../../../shared/identity/index.ts";
import type { Logger } from "../../../../shared/log.ts";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { problemResponse } from "../../problem-response.ts";
import { refusedProblem } from "../personal/signed-write.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { type Admin, ask } from "../identities/identity-admin.ts";
import { BodyFields } from "../identities/identity-body.ts";
import { CREATED_KINDS, identityItem, identityView, type IdentityView, register, withdraw } from "../identities/identity-records.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";

/** Problems after which a change may or may not have been made. */
const UNSETTLED: ReadonlySet<string> = new Set(["engine-unavailable", "not-committed", "commit-timeout", "forward-failed"]);

/** What the identity routes use. */
export interface IdentityRouteDeps {
  readonly admin: Admin;
  readonly writer: PersonWriter;
  readonly reader: PersonReader;
  readonly account: Pick<AccountCeremonies, "context">;
  readonly log: Logger;
}

/** The identity `handle` described by the engine now. */
export async function describeIdentity(deps: Pick<IdentityRouteDeps, "admin" | "reader">, handle: string): Promise<IdentityView> {
  return identityView(deps.reader, await ask(deps.admin, "tenant-describe", { tenant: handle }));
}

/** Throws `404` for no such identity, `403 not-owner` unless the person owns it. */
export function requireOwner(reader: PersonReader, handle: string): void {
  reader.read(handle, () => undefined, "owner");
}

/** Throws unless `handle` is a handle by the engine's rules (`400` naming `handle`) that no tenant has (`409`). */
async function requireFree(admin: Admin, handle: string): Promise<void> {
  try {
    await ask(admin, "tenant-describe", { tenant: handle }, { bad_handle: "handle" });
  } catch (error) {
    if (error instanceof HttpProblem && error.problem.status === 404) return;
    throw error;
  }
  throw new HttpProblem(problem(409, "handle-taken", `'${handle}' is taken: choose another handle`));
}

export function mountIdentityListRoutes(api: Hono<ApiEnv>, deps: IdentityRouteDeps): void {
  api.get("/api/identities", function listIdentities(c) {
    sessionOf(c);
    const request = pageRequest(c);
    const personal = deps.reader.personalTenant();
    const tenants = deps.reader.memberships();
    // The personal identity first, then the others by handle.
    const ordered = [...tenants.filter((t) => t.handle === personal), ...tenants.filter((t) => t.handle !== personal)];
    const page = pageOf(ordered, (t) => t.handle, request);
    return c.json({ items: page.items.map((t) => identityItem(deps.reader, t, t.owner ? "owner" : "member")), next: page.next });
  });

  api.get("/api/identities/:handle", async function showIdentity(c) {
    sessionOf(c);
    const handle = c.req.param("handle");
    requireOwner(deps.reader, handle);
    return c.json(await describeIdentity(deps, handle));
  });

  api.post("/api/identities", async function createIdentity(c) {
    sessionOf(c);
    const body = await jsonBody(c, ["handle", "kind", "name"]);
    const fields = new BodyFields();
    const handle = fields.text(body.handle, "handle", true);
    const kind = fields.choice(body.kind, "kind", CREATED_KINDS);
    const name = fields.text(body.name, "name", false) ?? "";
    fields.done();
    const person = deps.reader.did();
    // Nothing is written unless the engine would take the handle, and the contract the name.
    await requireFree(deps.admin, handle);
    const registered = await register(deps.writer, handle, kind, name);
    if (registered.kind === "problem") return problemResponse(c, registered.problem);
    if (registered.outcome !== "accepted") return problemResponse(c, refusedProblem(registered.jws));
    try {
      await ask(deps.admin, "tenant-create", { handle, owners: [person], by: person }, { bad_handle: "handle" });
    } catch (error) {
      // Refused (taken meanwhile, a failure of the node): the registration no longer counts. Not
      // answered, or not known to be committed: the tenant may exist, and the registration is its.
      if (!(error instanceof HttpProblem && UNSETTLED.has(error.problem.code))) await withdraw(deps.writer, handle, deps.log);
      throw error;
    }
    const created = await describeIdentity(deps, handle);
    return c.json({ ...created, receipt: JSON.parse(receiptJsonOf(registered.jws)) as unknown }, 201);
  });
}

export function mountIdentityRoleRoutes(api: Hono<ApiEnv>, deps: IdentityRouteDeps): void {
  for (const [path, role] of [["owners", "owner"], ["members", "member"]] as const) {
    api.post(`/api/identities/:handle/${path}`, async function changeRole(c) {
      sessionOf(c);
      const handle = c.req.param("handle");
      const body = await jsonBody(c, ["did", "remove"]);
      const fields = new BodyFields();
      const did = fields.text(body.did, "did", true);
      const remove = fields.flag(body.remove, "remove");
      fields.done();
      requireOwner(deps.reader, handle);
      requireSteppedUp(c, deps.account);
      if (role === "owner" && remove && handle === deps.reader.personalTenant() && did === deps.reader.did()) {
        throw new HttpProblem(problem(409, "personal-owner", "you stay an owner of your personal identity: the node writes your records as you there"));
      }
      if (role === "owner") await ask(deps.admin, remove ? "tenant-owner-remove" : "tenant-owner-add", { tenant: handle, did });
      else await ask(deps.admin, remove ? "tenant-member-remove" : "tenant-member-add", { tenant: handle, did });
      return c.json(await describeIdentity(deps, handle));
    });
  }

  api.post("/api/identities/:handle/delegations", async function changeDelegation(c) {
    sessionOf(c);
    const handle = c.req.param("handle");
    const body = await jsonBody(c, ["did", "scope", "until", "remove"]);
    const fields = new BodyFields();
    const did = fields.text(body.did, "did", true);
    const scope = fields.text(body.scope, "scope", true);
    const until = fields.text(body.until, "until", false);
    const remove = fields.flag(body.remove, "remove");
    if (remove && until !== undefined) fields.reject("until", "until goes with a delegation given, not one taken back");
    fields.done();
    requireOwner(deps.reader, handle);
    requireSteppedUp(c, deps.account);
    if (remove) await ask(deps.admin, "tenant-undelegate", { tenant: handle, did, scope });
    else await ask(deps.admin, "tenant-delegate", { tenant: handle, did, scope, ...(until === undefined ? {} : { until }) });
    return c.json(await describeIdentity(deps, handle));
  });
}
