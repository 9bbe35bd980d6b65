/**
 * @module The person's identities on the engine's admin channel — the one place tenants, their
 * owners, members and delegations live. `ask` sends a request and turns a refusal into a problem
 * document: a rule about one field of the request (a handle, a did, a scope, an end) is a `400`
 * naming that field with the engine's own reason; the others map to one code each.
 */
import { ChannelError } from "../../../../shared/channel/messages.ts";
import { HttpProblem, problem, problemOf, type ProblemCode } from "../../../../shared/problem.ts";
import type { AdminError, AdminRequests, AdminRequestType } from "../../../../shared/protocol/admin.ts";
import type { SocketLink } from "../../../../shared/worker/socket-link.ts";

/** The admin channel, as the routes use it. */
export type Admin = Pick<SocketLink<AdminRequests>, "request">;

/** Which request field each field rule of the engine is about (a route may name another). */
const FIELDS: Readonly<Record<string, string>> = { bad_did: "did", bad_scope: "scope", bad_until: "until" };

/**
 * The problem of each other refusal these routes can get back. A handle that is no tenant's, or
 * not a handle at all, in a path is `404`. A code missing here is a bug, answered `500` and logged.
 */
const PROBLEMS: Readonly<Record<string, ProblemCode>> = {
  bad_handle: "not-found",
  unknown_tenant: "not-found",
  tenant_exists: "handle-taken",
  last_owner: "last-owner",
  // A replicated engine's: the change did not go through the voters' log (try again), or failed there.
  no_leader: "no-leader",
  not_committed: "not-committed",
  commit_timeout: "commit-timeout",
  forward_failed: "forward-failed",
  apply_failed: "internal",
  // A key rotation the node could not make (its key files unreadable or not writable).
  key_unreadable: "internal",
  key_unwritable: "internal",
  key_mismatch: "internal",
  key_conflict: "internal",
  rotation_conflict: "internal",
};

/** The problem of an admin refusal; `fields` names the request field of a field rule (`{bad_handle: "handle"}`). */
export function adminProblem(error: AdminError, fields: Readonly<Record<string, string>> = {}): HttpProblem {
  const field = fields[error.code] ?? FIELDS[error.code];
  if (field !== undefined) return new HttpProblem(problem(400, "malformed-body", error.message, [{ pointer: `#/${field}`, detail: error.message }]));
  const code = PROBLEMS[error.code];
  if (code === undefined) throw new Error(`the engine answered an identity route with an unexpected admin error ${error.code}: ${error.message}`);
  return new HttpProblem(problemOf(code, error.message));
}

/** Asks the engine; a refusal is thrown as its problem, an engine that is not there as a `503`. */
export async function ask<K extends AdminRequestType>(
  admin: Admin,
  type: K,
  body: AdminRequests[K]["request"],
  fields?: Readonly<Record<string, string>>,
): Promise<Extract<AdminRequests[K]["response"], { ok: true }>["value"]> {
  let result: AdminRequests[K]["response"];
  try {
    result = await admin.request(type, body);
  } catch (error) {
    if (error instanceof ChannelError) throw new HttpProblem(problem(503, "engine-unavailable", "the engine did not answer; try again in a moment"));
    throw error;
  }
  if (!result.ok) throw adminProblem(result.error, fields);
  return result.value as Extract<AdminRequests[K]["response"], { ok: true }>["value"];
}
