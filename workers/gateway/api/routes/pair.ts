/**
 * @module `/api/pair`: adding a device with a code. A signed-in, stepped-up session issues the code;
 * the new device, signed out, begins with it and finishes by registering a passkey of its own,
 * which signs it in.
 *
 * - `POST /api/pair/code {}` → `201 {code, expiresAt}` (8 characters, 10 minutes, single use)
 * - `POST /api/pair/begin {code}` → `{options}`
 * - `POST /api/pair/finish {response, label?}` → `{account}` and the new device's session cookie
 */
import type { Hono } from "hono";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { jsonBody } from "../request-body.ts";
import { accountView, type AccountRouteDeps, respond, rfc3339, setSessionCookie, userAgentOf } from "./account-deps.ts";

/** Mounts the pairing routes on the `/api` app. */
export function mountPairRoutes(api: Hono<ApiEnv>, deps: AccountRouteDeps): void {
  const { account } = deps;

  api.post("/api/pair/code", async (c) => {
    await jsonBody(c, []);
    return respond(c, deps, account.pairIssue(sessionOf(c)), ({ code, expiresAt }) => c.json({ code, expiresAt: rfc3339(expiresAt) }, 201));
  });

  api.post("/api/pair/begin", async (c) => {
    const body = await jsonBody(c, ["code"]);
    return respond(c, deps, account.pairBegin({ code: body.code }), (v) => c.json(v));
  });

  api.post("/api/pair/finish", async (c) => {
    const body = await jsonBody(c, ["response", "label"]);
    return respond(c, deps, account.pairFinish({ response: body.response, label: body.label }, userAgentOf(c)), (started) => {
      setSessionCookie(c, deps, started);
      return c.json({ account: accountView(deps, started.session) });
    });
  });
}
