/**
 * @module The durable outbox and the connectors, as the person sees them:
 *
 * ```
 * GET    /api/outbox?state=pending|done|dead&after=&limit=  → {items: [effect], next}   (newest first; default pending)
 * GET    /api/outbox/{id}                                   → effect
 * POST   /api/outbox/{id}/retry                             → effect (a dead one, tried again from its first attempt)   (step-up)
 * POST   /api/outbox/{id}/drop                              → 204 (a dead one, removed)   (step-up)
 * POST   /api/outbox/check                                  → 202 effect (a no-op effect through the whole outbox)
 * GET    /api/outbox/{id}/document                          → application/pdf (a done `effect pdf`'s document)
 * GET    /api/settings/effects                              → {tenant, email: {account} | null, pdf}
 * PUT    /api/settings/effects {email: {account} | null, pdf} → the same   (step-up; the contracts' `effect` clauses)
 * GET    /api/settings/integrations/connectors              → {items: [{name, title, description, hosts, effects, accounts}]}
 * PUT    /api/settings/integrations/connectors/{c}/accounts/{id} {fields, secret?} → the account   (step-up)
 * DELETE /api/settings/integrations/connectors/{c}/accounts/{id} → 204   (step-up)
 * ```
 *
 * An effect: `{id, connector, effect, account, key, args, state, attempts, maxAttempts, lastError,
 * nextAttemptAt, createdAt, doneAt, providerId, receipt, source}` (`receipt`: the effect receipt JWS the
 * node signed once it was done; `source`: the command whose contract declared it, or null). Only a dead effect can be retried or dropped (`409 not-dead`
 * otherwise). No answer holds an account's secret.
 */
import type { Context, Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import type { ConnectorManifest } from "../../../../shared/connectors/manifest.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { ACCOUNT_FIELDS, checkAccountFields } from "../connectors/account-fields.ts";
import { ACCOUNT_ID, type ConnectorAccounts, MAX_ACCOUNTS } from "../connectors/connector-accounts.ts";
import { effectNumber, type EffectListState, type OutboxEffects, type OutboxHost } from "../connectors/outbox-host.ts";
import { pageRequest } from "../list-page.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import { badParameter } from "./data-input.ts";
import { randomUUID } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { documentPath } from "../../../../shared/connectors/documents.ts";
import type { PersonReader } from "../personal/person-reader.ts";

export interface OutboxRouteDeps {
  readonly outbox: OutboxHost;
  readonly effects: OutboxEffects;
  readonly manifests: ReadonlyMap<string, ConnectorManifest>;
  readonly connectorAccounts: ConnectorAccounts;
  readonly account: Pick<AccountCeremonies, "context">;
  readonly reader: Pick<PersonReader, "personalTenant">;
  /** Where `effect pdf` documents are written (the outbox's pdf connector). */
  readonly documentsDir: string;
}

/** The largest document `/api/outbox/{id}/document` serves (the renderer stops at 500 pages). */
const MAX_DOCUMENT = 64 * 1024 * 1024;

const MAX_SECRET = 4096;

export function mountOutboxRoutes(api: Hono<ApiEnv>, deps: OutboxRouteDeps): void {
  const { effects } = deps;

  api.get("/api/outbox", async (c) => {
    sessionOf(c);
    const state = c.req.query("state") ?? "pending";
    if (state !== "pending" && state !== "done" && state !== "dead") throw badParameter("state", "state is pending, done or dead");
    const page = pageRequest(c);
    const after = page.after === null ? null : effectNumber(page.after);
    if (page.after !== null && after === null) throw badParameter("after", "after is a cursor from an earlier page's next");
    const listed = await effects.list(state as EffectListState, after, page.limit);
    return c.json({ items: listed.items, next: listed.next === null ? null : Buffer.from(listed.next, "utf8").toString("base64url") });
  });

  api.post("/api/outbox/check", async (c) => {
    sessionOf(c);
    const id = await deps.outbox.queue({ connector: "noop", effect: "nothing", account: null, args: {}, key: `check-${randomUUID()}` });
    return c.json(await effects.get(id), 202);
  });

  api.get("/api/outbox/:id/document", async (c) => {
    sessionOf(c);
    const effect = await effectOf(c);
    const digest = /^sha256:([0-9a-f]{64})$/.exec(effect.providerId ?? "")?.[1];
    if (effect.connector !== "pdf" || effect.state !== "done" || digest === undefined) throw new HttpProblem(problem(404, "not-found", "this effect made no document"));
    const path = documentPath(deps.documentsDir, digest);
    const size = await stat(path).then((s) => s.size, () => null);
    if (size === null || size > MAX_DOCUMENT) throw new HttpProblem(problem(404, "not-found", "the document is no longer on this node"));
    const bytes = await readFile(path);
    const name = typeof effect.args === "object" && effect.args !== null ? (effect.args as Record<string, unknown>).file : null;
    const file = typeof name === "string" && /^[\w .()-]{1,120}$/.test(name) ? name : `${digest.slice(0, 16)}.pdf`;
    return c.body(bytes, 200, { "content-type": "application/pdf", "content-disposition": `attachment; filename="${file}"`, "x-content-type-options": "nosniff" });
  });

  api.get("/api/settings/effects", async (c) => {
    sessionOf(c);
    const tenant = deps.reader.personalTenant();
    const on = await effects.tenantEffects(tenant);
    return c.json({ tenant, email: on?.email ?? null, pdf: on?.pdf ?? false });
  });

  api.put("/api/settings/effects", async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    const tenant = deps.reader.personalTenant();
    const body = await jsonBody(c, ["email", "pdf"]);
    const errors: { pointer: string; detail: string }[] = [];
    let email: { account: string } | null = null;
    if (body.email !== undefined && body.email !== null) {
      const account = typeof body.email === "object" && !Array.isArray(body.email) ? (body.email as Record<string, unknown>).account : undefined;
      const extra = typeof body.email === "object" && body.email !== null ? Object.keys(body.email).filter((k) => k !== "account") : [];
      if (typeof account !== "string" || !ACCOUNT_ID.test(account) || extra.length > 0) errors.push({ pointer: "#/email", detail: "null, or {account}: the id of an email account" });
      else if (deps.connectorAccounts.get("email", account) === null) errors.push({ pointer: "#/email/account", detail: "no email account with this id" });
      else email = { account };
    }
    if (body.pdf !== undefined && typeof body.pdf !== "boolean") errors.push({ pointer: "#/pdf", detail: "true or false" });
    if (errors.length > 0) throw new HttpProblem(problem(400, "malformed-body", errors.map((e) => `${e.pointer}: ${e.detail}`).join("; "), errors));
    const pdf = body.pdf === true;
    await effects.setTenantEffects(tenant, email === null && !pdf ? null : { email, pdf });
    return c.json({ tenant, email, pdf });
  });

  api.get("/api/outbox/:id", async (c) => {
    sessionOf(c);
    return c.json(await effectOf(c));
  });

  api.post("/api/outbox/:id/retry", async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    const effect = await effectOf(c);
    if (effect.state !== "dead" || !(await effects.revive(effectNumber(effect.id) as number))) throw notDead();
    deps.outbox.wake();
    return c.json(await effects.get(effectNumber(effect.id) as number));
  });

  api.post("/api/outbox/:id/drop", async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    const effect = await effectOf(c);
    if (effect.state !== "dead" || !(await effects.drop(effectNumber(effect.id) as number))) throw notDead();
    return c.body(null, 204);
  });

  api.get("/api/settings/integrations/connectors", (c) => {
    sessionOf(c);
    const items = [...deps.manifests.values()].map((m) => ({
      name: m.name,
      title: m.title,
      description: m.description,
      hosts: m.hosts,
      effects: m.effects,
      queue: m.queue,
      retry: m.retry,
      accountFields: Object.keys(ACCOUNT_FIELDS[m.name] ?? {}),
      accounts: deps.connectorAccounts.list(m.name),
    }));
    return c.json({ items });
  });

  api.put("/api/settings/integrations/connectors/:connector/accounts/:id", async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    const connector = connectorOf(c);
    const id = c.req.param("id");
    if (!ACCOUNT_ID.test(id)) throw badParameter("id", "an account id is 1 to 40 of a-z 0-9 -, starting with a letter or digit");
    const body = await jsonBody(c, ["fields", "secret"]);
    const checked = checkAccountFields(connector, body.fields);
    const errors = checked.ok ? [] : [...checked.errors];
    if (body.secret !== undefined && body.secret !== null && (typeof body.secret !== "string" || body.secret.length > MAX_SECRET)) {
      errors.push({ pointer: "#/secret", detail: `a text of at most ${MAX_SECRET} characters, or null for none` });
    }
    if (!checked.ok || errors.length > 0) throw new HttpProblem(problem(400, "malformed-body", errors.map((e) => `${e.pointer}: ${e.detail}`).join("; "), errors));
    if (deps.connectorAccounts.get(connector, id) === null && deps.connectorAccounts.list(connector).length >= MAX_ACCOUNTS) {
      throw new HttpProblem(problem(409, "too-many-accounts", `a connector keeps at most ${MAX_ACCOUNTS} accounts: delete one first`));
    }
    return c.json(deps.connectorAccounts.set(connector, id, checked.fields, body.secret as string | null | undefined));
  });

  api.delete("/api/settings/integrations/connectors/:connector/accounts/:id", (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    if (!deps.connectorAccounts.delete(connectorOf(c), c.req.param("id"))) throw new HttpProblem(problem(404, "not-found", "no such account"));
    return c.body(null, 204);
  });

  function connectorOf(c: Context<ApiEnv>): string {
    const name = c.req.param("connector") ?? "";
    if (!deps.manifests.has(name) || ACCOUNT_FIELDS[name] === undefined) throw new HttpProblem(problem(404, "not-found", "no connector with accounts of that name"));
    return name;
  }

  async function effectOf(c: Context<ApiEnv>): Promise<NonNullable<Awaited<ReturnType<OutboxEffects["get"]>>>> {
    const n = effectNumber(c.req.param("id") ?? "");
    const effect = n === null ? null : await effects.get(n);
    if (effect === null) throw new HttpProblem(problem(404, "not-found", "no such effect"));
    return effect;
  }
}

function notDead(): HttpProblem {
  return new HttpProblem(problem(409, "not-dead", "only a dead effect can be retried or dropped"));
}
