/**
 * @module The signed-in person's care of the account: sessions, passkeys, sign-in settings and
 * recovery codes. Thin adapters over the ceremonies, which hold the rules (what needs a step-up,
 * the last passkey, the settings' ranges).
 *
 * - `GET /api/account/sessions` → `{items: [{id, current, scope, createdAt, lastSeenAt, userAgent, steppedUpUntil}], next}`
 *   (`?after=&limit=`, list-page.ts; most recently seen first)
 * - `POST /api/account/sessions/{id}/end` → `204` (another session than the caller's: step-up)
 * - `GET /api/account/passkey` → `{items: [{id, label, transports, createdAt, lastUsedAt}], next}`
 * - `POST /api/account/passkey/begin {}` → `{options}`; `…/passkey/finish {response, label?}` → `201` the passkey
 *   (step-up, or the recovery sign-in, which ends there)
 * - `DELETE /api/account/passkey/{id}` → `204` (step-up; the last one: `409 last-passkey`)
 * - `GET`/`PUT /api/account/settings` `{signInRequired, sessionDays, idleDays, timeZone}` → the same and `loopback` (whether the
 *   node listens on loopback only: sign-in can be turned off, and is honoured off, only then); `timeZone` is an IANA
 *   name (the machine's zone until the person sets one)
 * - `GET /api/account/recovery` → `{codesLeft, createdAt}`; `POST …/recovery/regenerate {}` → `{recoveryCodes}` (step-up);
 *   `POST …/recovery/use {code}` → `{account, scope: "recovery"}` and a short session that may only add a passkey
 */
import type { Hono } from "hono";
import { accountError } from "../account/account-errors.ts";
import { clearSessionCookie } from "../account/sessions.ts";
import { refuse } from "../account-problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { jsonBody } from "../request-body.ts";
import { pageOf, pageRequest } from "../list-page.ts";
import { accountView, type AccountRouteDeps, respond, rfc3339, setSessionCookie, userAgentOf } from "./account-deps.ts";

/** Mounts the sessions, passkeys, settings and recovery routes on the `/api` app. */
export function mountAccountAdminRoutes(api: Hono<ApiEnv>, deps: AccountRouteDeps): void {
  const { account } = deps;

  api.get("/api/account/sessions", (c) => {
    const request = pageRequest(c);
    const items = account.sessions(sessionOf(c)).map((s) => ({
      ...s,
      createdAt: rfc3339(s.createdAt),
      lastSeenAt: rfc3339(s.lastSeenAt),
      steppedUpUntil: s.steppedUpUntil > 0 ? rfc3339(s.steppedUpUntil) : null,
    }));
    return c.json(pageOf(items, (s) => s.id, request));
  });

  api.post("/api/account/sessions/:id/end", async (c) => {
    await jsonBody(c, []);
    const current = sessionOf(c);
    const id = c.req.param("id");
    return respond(c, deps, account.endSession(current, id), () => {
      if (id === current.id) c.header("set-cookie", clearSessionCookie(deps.origin));
      return c.body(null, 204);
    });
  });

  api.get("/api/account/passkey", (c) => {
    const request = pageRequest(c);
    const items = account.passkeys().map((p) => ({ ...p, createdAt: rfc3339(p.createdAt), lastUsedAt: rfc3339(p.lastUsedAt) }));
    return c.json(pageOf(items, (p) => p.id, request));
  });

  api.post("/api/account/passkey/begin", async (c) => {
    await jsonBody(c, []);
    return respond(c, deps, account.passkeyAddBegin(sessionOf(c)), (v) => c.json(v));
  });

  api.post("/api/account/passkey/finish", async (c) => {
    const body = await jsonBody(c, ["response", "label"]);
    return respond(c, deps, account.passkeyAddFinish(sessionOf(c), { response: body.response, label: body.label }), ({ passkey, sessionEnded }) => {
      // A recovery sign-in has done what it was for: the browser signs in again with the new passkey.
      if (sessionEnded) c.header("set-cookie", clearSessionCookie(deps.origin));
      return c.json({ ...passkey, createdAt: rfc3339(passkey.createdAt), lastUsedAt: rfc3339(passkey.lastUsedAt) }, 201);
    });
  });

  api.delete("/api/account/passkey/:id", (c) => respond(c, deps, account.passkeyRemove(sessionOf(c), c.req.param("id")), () => c.body(null, 204)));

  api.get("/api/account/settings", (c) => {
    const settings = account.settings();
    return settings === null ? refuse(c, accountError("not-set-up", "this node has no account yet"), deps.log) : c.json({ ...settings, loopback: account.context.loopback });
  });

  api.put("/api/account/settings", async (c) => {
    const body = await jsonBody(c, ["signInRequired", "sessionDays", "idleDays", "timeZone"]);
    return respond(c, deps, account.updateSettings(sessionOf(c), body), (settings) => c.json({ ...settings, loopback: account.context.loopback }));
  });

  api.get("/api/account/recovery", (c) => {
    const { codesLeft, createdAt } = account.recoveryStatus();
    return c.json({ codesLeft, createdAt: rfc3339(createdAt) });
  });

  api.post("/api/account/recovery/regenerate", async (c) => {
    await jsonBody(c, []);
    return respond(c, deps, account.recoveryRegenerate(sessionOf(c)), ({ codes }) => c.json({ recoveryCodes: codes }));
  });

  api.post("/api/account/recovery/use", async (c) => {
    const body = await jsonBody(c, ["code"]);
    return respond(c, deps, account.recoveryUse({ code: body.code }, userAgentOf(c)), (started) => {
      setSessionCookie(c, deps, started);
      return c.json({ account: accountView(deps, started.session), scope: started.session.scope });
    });
  });
}
