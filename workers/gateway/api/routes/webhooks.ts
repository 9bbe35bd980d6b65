/**
 * @module The webhook listener's settings (hooks/*):
 *
 * ```
 * GET    /api/settings/integrations/webhooks                      → {listener, sources, mappings, deliveries}
 * GET    /api/settings/integrations/webhooks/deliveries?status=&after=&limit= → {items, next}, newest first
 * GET    /api/settings/integrations/webhooks/deliveries/{id}      → the delivery
 * POST   /api/settings/integrations/webhooks/deliveries/{id}/retry → 202 the delivery, pending again (a failed one only: else 409)
 * PUT    /api/settings/integrations/webhooks/secrets/{source} {secret} → the source   (step-up)
 * DELETE /api/settings/integrations/webhooks/secrets/{source}     → 204; none set: 404   (step-up)
 * PUT    /api/settings/integrations/webhooks/mappings {mappings}  → {mappings}
 * GET    /api/settings/integrations/github                        → the source github, with the listener's URL for it
 * PUT    /api/settings/integrations/github {webhookSecret}        → the same   (step-up)
 * DELETE /api/settings/integrations/github                        → 204; none set: 404   (step-up)
 * ```
 *
 * No answer holds a secret, nor any part of one. Setting or removing one needs a step-up. A mapping
 * names an action of a contract installed in the personal tenant: one that does not exist, or
 * arguments it does not take, are `400 bad-settings` naming each (`#/mappings/0/command/args/x`);
 * an action only its own route signs is `403 dedicated-route`, and one that needs a step-up
 * wherever it is signed needs one here too.
 */
import type { Context, Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { HOOK_SOURCES, HOOK_TOPIC, type HookSource } from "../../../../shared/protocol/outbox.ts";
import type { EngineLink } from "../../../../shared/worker/engine-link.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { DELIVERY_FILTERS, type DeliveryFilter, deliveryNumber, getDelivery, listDeliveries } from "../hooks/hook-deliveries.ts";
import type { HookHost } from "../hooks/hook-host.ts";
import { type ActionLookup, checkMappings } from "../hooks/hook-mapping.ts";
import { type HookSettings, MAX_SECRET_BYTES } from "../hooks/hook-settings.ts";
import { pageRequest } from "../list-page.ts";
import { guardGenericWrite } from "../personal/generic-writes.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import { badField } from "./data-input.ts";

/** What the webhook routes need. */
export interface WebhookRouteDeps {
  readonly hooks: HookSettings;
  readonly hookHost: HookHost;
  readonly reader: PersonReader;
  readonly engine: EngineLink;
  readonly account: Pick<AccountCeremonies, "context">;
}

/** Deliveries the overview shows. */
const OVERVIEW_DELIVERIES = 20;
const BASE = "/api/settings/integrations/webhooks";

/** Mounts the webhook settings routes. */
export function mountWebhookRoutes(api: Hono<ApiEnv>, deps: WebhookRouteDeps): void {
  const { hooks, hookHost, reader } = deps;
  const listener = () => hookHost.listener() ?? { url: null, error: "the outbox worker is not connected to the gateway (its state is on /health)" };

  api.get(BASE, (c) => {
    sessionOf(c);
    const deliveries = reader.read(undefined, (r) => listDeliveries(r.db, "all", null, OVERVIEW_DELIVERIES).items);
    return c.json({ listener: listener(), sources: hooks.sources(), mappings: hooks.mappings(), deliveries });
  });

  api.get(`${BASE}/deliveries`, (c) => {
    sessionOf(c);
    const status = c.req.query("status") ?? "all";
    if (!(DELIVERY_FILTERS as readonly string[]).includes(status)) throw badParameter("status", `status is one of ${DELIVERY_FILTERS.join(", ")}`);
    const page = pageRequest(c);
    const before = page.after === null ? null : deliveryNumber(page.after);
    if (page.after !== null && before === null) throw badParameter("after", "after is a cursor from an earlier page's next");
    const { items, more } = reader.read(undefined, (r) => listDeliveries(r.db, status as DeliveryFilter, before, page.limit));
    const last = items.at(-1);
    return c.json({ items, next: more && last !== undefined ? Buffer.from(last.id, "utf8").toString("base64url") : null });
  });

  api.get(`${BASE}/deliveries/:id`, (c) => {
    sessionOf(c);
    return c.json(found(deps, c.req.param("id")));
  });

  api.post(`${BASE}/deliveries/:id/retry`, async (c) => {
    sessionOf(c);
    await jsonBody(c, []);
    const id = c.req.param("id");
    const delivery = found(deps, id);
    if (delivery.status !== "failed") throw new HttpProblem(problem(409, "delivery-not-failed", `delivery ${id} is ${delivery.status}: only a failed one is tried again`));
    // Another request may have revived it meanwhile: then it is not failed any more either.
    if (!(await deps.engine.request("journal-revive", { topic: HOOK_TOPIC, id: deliveryNumber(id) as number }))) {
      throw new HttpProblem(problem(409, "delivery-not-failed", `delivery ${id} is no longer failed`));
    }
    return c.json(found(deps, id), 202);
  });

  api.put(`${BASE}/secrets/:source`, async (c) => setSecret(c, deps, c.req.param("source"), "secret"));
  api.delete(`${BASE}/secrets/:source`, (c) => deleteSecret(c, deps, c.req.param("source")));

  api.put(`${BASE}/mappings`, async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["mappings"]);
    const checked = checkMappings(body.mappings, (namespace, action) => lookupAction(reader, namespace, action));
    if (!checked.ok) throw new HttpProblem(problem(400, "bad-settings", checked.errors.map((e) => e.detail).join("; "), checked.errors));
    // An action only its own route signs is never a mapping's; one that needs a step-up needs it here.
    for (const m of checked.value) guardGenericWrite(c, deps, { namespace: m.command.namespace, action: m.command.action });
    try {
      hooks.setMappings(checked.value);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw new HttpProblem(problem(400, "bad-settings", "the mappings are too large to store: send fewer or shorter ones"));
    }
    return c.json({ mappings: hooks.mappings() });
  });

  // GitHub's own settings page (node.md): the same secret as `secrets/github`.
  api.get("/api/settings/integrations/github", (c) => {
    sessionOf(c);
    return c.json(githubView(deps, listener().url));
  });
  api.put("/api/settings/integrations/github", async (c) => {
    await setSecret(c, deps, "github", "webhookSecret");
    return c.json(githubView(deps, listener().url));
  });
  api.delete("/api/settings/integrations/github", (c) => deleteSecret(c, deps, "github"));
}

async function setSecret(c: Context<ApiEnv>, deps: WebhookRouteDeps, source: string, field: "secret" | "webhookSecret"): Promise<Response> {
  sessionOf(c);
  requireSteppedUp(c, deps.account);
  const known = sourceOf(source);
  const body = await jsonBody(c, [field]);
  const secret = body[field];
  if (typeof secret !== "string" || secret.length === 0 || Buffer.byteLength(secret) > MAX_SECRET_BYTES || hasControl(secret)) {
    throw badField(field, `${field} is the webhook's secret: 1 to ${MAX_SECRET_BYTES} bytes, no control characters`);
  }
  return c.json(deps.hooks.setSecret(known, secret));
}

function deleteSecret(c: Context<ApiEnv>, deps: WebhookRouteDeps, source: string): Response {
  sessionOf(c);
  requireSteppedUp(c, deps.account);
  if (!deps.hooks.deleteSecret(sourceOf(source))) throw new HttpProblem(problem(404, "not-found", `no secret is set for ${source} webhooks`));
  return c.body(null, 204);
}

function githubView(deps: WebhookRouteDeps, url: string | null): object {
  const github = deps.hooks.sources().find((s) => s.source === "github");
  return { ...github, url: url === null ? null : `${url}/hooks/github` };
}

/** `name` as a source; another is `404`. */
function sourceOf(name: string): HookSource {
  if (!(HOOK_SOURCES as readonly string[]).includes(name)) throw new HttpProblem(problem(404, "not-found", `no webhook source ${JSON.stringify(name.slice(0, 64))}; the sources are ${HOOK_SOURCES.join(", ")}`));
  return name as HookSource;
}

/** Delivery `id`, or `404`. */
function found(deps: WebhookRouteDeps, id: string) {
  const n = deliveryNumber(id);
  const delivery = n === null ? null : deps.reader.read(undefined, (r) => getDelivery(r.db, n));
  if (delivery === null) throw new HttpProblem(problem(404, "not-found", "no such webhook delivery"));
  return delivery;
}

/** An action of the personal tenant's contracts, for a mapping to name. */
function lookupAction(reader: PersonReader, namespace: string, action: string): ActionLookup {
  try {
    return reader.read(undefined, (r): ActionLookup => {
      const found = Object.values(r.contract(namespace).schema.actions).find((a) => a.name === action && a.exposure !== "internal");
      return found === undefined ? { ok: false, detail: `${namespace} has no action ${action} served by its API` } : { ok: true, params: found.params.map((p) => p.name) };
    });
  } catch (error) {
    if (error instanceof HttpProblem && error.problem.status === 404) return { ok: false, detail: `${namespace} is not installed in the personal tenant` };
    throw error;
  }
}

/** Whether `text` holds a control character (a secret pasted with a line break is not the sender's). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function badParameter(name: string, detail: string): HttpProblem {
  return new HttpProblem(problem(400, "bad-parameters", detail, [{ pointer: `?${name}`, detail }]));
}
