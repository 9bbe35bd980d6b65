/**
 * @module How the record routes answer what the engine said: a command's receipt (`200 {receipt,
 * jws}` accepted; refused, the `422 refused` problem every `/api` write answers, with the receipt), a preview as node.md's
 * `{outcome, state | reason}`, and a problem as its document. Also the membership checks the
 * routes make before they sign anything, so a tenant the person does not belong to is `403`.
 */
import type { Context } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { rolesOf, tenantExists } from "../../../../shared/store/roles.ts";
import type { PreviewAnswer, SignedCommandAnswer } from "../../../../shared/protocol/engine.ts";
import { problemResponse } from "../../problem-response.ts";
import { receiptBody } from "../../routes/commands.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { refusedProblem } from "../personal/signed-write.ts";

/** The answer to a command: `200 {receipt, jws}` accepted, the `422 refused` problem (with the receipt) refused; or its problem. */
export function commandResponse(c: Context, answer: SignedCommandAnswer): Response {
  if (answer.kind === "problem") return problemResponse(c, answer.problem);
  if (answer.outcome !== "accepted") return problemResponse(c, refusedProblem(answer.jws));
  return c.body(receiptBody(answer.jws), 200, { "content-type": "application/json" });
}

/** The answer to a preview: `200 {outcome: "accepted", state}` or `200 {outcome: "refused", reason}`; or its problem. */
export function previewResponse(c: Context, answer: PreviewAnswer): Response {
  if (answer.kind === "problem") return problemResponse(c, answer.problem);
  return c.json(answer.outcome === "accepted" ? { outcome: answer.outcome, state: answer.state } : { outcome: answer.outcome, reason: answer.reason });
}

/**
 * Throws `403 not-member` unless the person owns or is a member of `tenant` (`404` when there is no
 * such tenant). The engine would answer a stranger's command with the one `404` that tells nothing;
 * the person is told plainly that the tenant is not theirs. The personal tenant is always theirs.
 */
export function requireMember(reader: PersonReader, tenant: string | undefined): void {
  if (tenant !== undefined) reader.read(tenant, () => undefined);
}

/**
 * As `requireMember`, but a delegation in force is enough too: a command names its action, and the
 * engine lets a delegate do the actions delegated to its scope (and refuses it the others).
 */
export function requireKnown(reader: PersonReader, tenant: string | undefined, now: number): void {
  if (tenant === undefined) return;
  const did = reader.did();
  // The roles are the store's, not the personal tenant's: read in the same snapshot as any read.
  reader.read(undefined, (r) => {
    if (rolesOf(r.db, tenant, did, now).known) return;
    if (!tenantExists(r.db, tenant)) throw new HttpProblem(problem(404, "not-found", `no tenant '${tenant}'`));
    throw new HttpProblem(problem(403, "not-member", `you are not an owner, member or delegate of '${tenant}'`));
  });
}
