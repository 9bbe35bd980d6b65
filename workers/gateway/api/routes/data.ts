/**
 * @module `POST /api/data/act` `{tenant?, namespace, action, subject, args, idempotencyKey?}`: one
 * action of any installed contract, signed by the node as the signed-in person (the personal
 * tenant unless `tenant` names another) and decided by the contract → the receipt, as `/v1`
 * answers a command: `200 {receipt, jws}` accepted, `422` refused (with the reason), or a problem
 * (`404` no such tenant, namespace or action; `400` arguments the action does not take).
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { receiptBody } from "../../routes/commands.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { jsonBody } from "../request-body.ts";
import { problemResponse } from "../../problem-response.ts";

/** Longest tenant, namespace or action name accepted (the engine's own limits are tighter). */
const NAME_MAX = 128;

/** Mounts the data routes. */
export function mountDataRoutes(api: Hono<ApiEnv>, deps: { readonly writer: PersonWriter }): void {
  api.post("/api/data/act", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["tenant", "namespace", "action", "subject", "args", "idempotencyKey"]);
    const tenant = body.tenant === undefined ? undefined : name(body.tenant, "tenant");
    const args = body.args === undefined ? {} : body.args;
    if (typeof args !== "object" || args === null || Array.isArray(args)) throw bad("args", "args must be a JSON object");
    if (body.idempotencyKey !== undefined && typeof body.idempotencyKey !== "string") throw bad("idempotencyKey", "idempotencyKey must be a string");
    if (typeof body.subject !== "string") throw bad("subject", "subject must be a string");
    const answer = await deps.writer.act({
      ...(tenant === undefined ? {} : { tenant }),
      namespace: name(body.namespace, "namespace"),
      action: name(body.action, "action"),
      subject: body.subject,
      args: args as Record<string, unknown>,
      ...(body.idempotencyKey === undefined ? {} : { idempotencyKey: body.idempotencyKey }),
    });
    if (answer.kind === "problem") return problemResponse(c, answer.problem);
    return c.body(receiptBody(answer.jws), answer.outcome === "accepted" ? 200 : 422, { "content-type": "application/json" });
  });
}

function name(value: unknown, field: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > NAME_MAX) throw bad(field, `${field} must be a name of 1 to ${NAME_MAX} characters`);
  return value;
}

function bad(field: string, detail: string): HttpProblem {
  return new HttpProblem(problem(400, "malformed-body", detail, [{ pointer: `#/${field}`, detail }]));
}
