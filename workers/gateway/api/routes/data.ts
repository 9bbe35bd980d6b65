/**
 * @module The back office's generic record routes, for any installed contract of a tenant the
 * person owns or is a member of (the personal tenant unless `tenant` names another):
 *
 * ```
 * POST /api/data/act     {tenant?, namespace, action, subject, args, idempotencyKey?} → 200 {receipt, jws} | 422 (refused)
 * POST /api/data/preview {tenant?, namespace, action, subject, args}                  → 200 {outcome: "accepted", state} | 200 {outcome: "refused", reason}
 * POST /api/data/query   {tenant?, namespace, query, params}                          → 200 {rows, artifact}
 * ```
 *
 * An action is signed by the node as the signed-in person and decided by the contract; a preview
 * is the same signed command decided by the engine and never committed (no history, no state, no
 * idempotency key, no `/api/events` frame). A query is a declared query, read as the person.
 * Problems: `403` a tenant that is not the person's (an action needs the person to be an owner,
 * member or delegate of it; a query, an owner or member), `404` no such tenant, namespace, action
 * or query, `400` arguments or parameters the contract does not take. A few actions of the node's
 * own contracts are signed only by their own routes, or need a step-up (personal/generic-writes.ts).
 */
import type { Hono } from "hono";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { guardGenericWrite } from "../personal/generic-writes.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import type { PersonWriter } from "../personal/person-writer.ts";
import { jsonBody } from "../request-body.ts";
import { commandResponse, previewResponse, requireKnown } from "./data-answers.ts";
import { nameField, objectField, stringField, tenantField } from "./data-input.ts";

/** Mounts the data routes. */
export function mountDataRoutes(
  api: Hono<ApiEnv>,
  deps: { readonly writer: PersonWriter; readonly reader: PersonReader; readonly now: () => number; readonly account: Pick<AccountCeremonies, "context"> },
): void {
  const { writer, reader } = deps;

  api.post("/api/data/act", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["tenant", "namespace", "action", "subject", "args", "idempotencyKey"]);
    const write = actionOf(body);
    const idempotencyKey = body.idempotencyKey === undefined ? undefined : stringField(body.idempotencyKey, "idempotencyKey");
    requireKnown(reader, write.tenant, deps.now());
    guardGenericWrite(c, deps, write);
    return commandResponse(c, await writer.act({ ...write, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) }));
  });

  api.post("/api/data/preview", async (c) => {
    sessionOf(c);
    const write = actionOf(await jsonBody(c, ["tenant", "namespace", "action", "subject", "args"]));
    requireKnown(reader, write.tenant, deps.now());
    return previewResponse(c, await writer.preview(write));
  });

  api.post("/api/data/query", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["tenant", "namespace", "query", "params"]);
    const tenant = tenantField(body.tenant);
    const namespace = nameField(body.namespace, "namespace");
    const query = nameField(body.query, "query");
    const params = objectField(body.params, "params");
    const { rows, artifact } = reader.query(tenant, namespace, query, params);
    return c.json({ rows, artifact });
  });
}

/** The action a body asks for: tenant (absent: the personal one), namespace, action, subject, args. */
function actionOf(body: { tenant?: unknown; namespace?: unknown; action?: unknown; subject?: unknown; args?: unknown }) {
  const tenant = tenantField(body.tenant);
  return {
    ...(tenant === undefined ? {} : { tenant }),
    namespace: nameField(body.namespace, "namespace"),
    action: nameField(body.action, "action"),
    subject: stringField(body.subject, "subject"),
    args: objectField(body.args, "args"),
  };
}
