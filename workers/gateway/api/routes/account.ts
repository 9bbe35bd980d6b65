/**
 * @module `/api/account`: its state, creating it (begin → register → finish), signing in and out,
 * stepping up. Thin adapters: the body's known fields go to a ceremony (account/ceremonies.ts), its
 * answer comes back as JSON, its refusal as a problem document, a new session as its cookie.
 *
 * - `GET /api/account` → `{setUp, signedIn, firstName, seal}` (`firstName`, `seal` null when signed out)
 * - `POST /api/account/create/begin {firstName, setupCode}` → `{options}`
 * - `POST /api/account/create/register {response}` → `{ok: true}` and the set-up ticket's cookie
 * - `POST /api/account/create/finish {}` → `{account, recoveryCodes}` and the session cookie
 * - `POST /api/account/signin/begin {}` → `{options}`; `…/signin/finish {response}` → `{account}` + cookie
 * - `POST /api/account/signout` → `204`, the session ended and its cookie cleared
 * - `POST /api/account/stepup/begin {}` → `{options}`; `…/stepup/finish {response}` → `{until}`
 */
import type { Hono } from "hono";
import { clearSessionCookie } from "../account/sessions.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { jsonBody } from "../request-body.ts";
import { accountView, type AccountRouteDeps, respond, rfc3339, setSessionCookie, userAgentOf } from "./account-deps.ts";
import { clearSetupTicketCookie, setupTicketCookie, setupTicketFrom } from "./setup-ticket.ts";

/** Mounts the account's own routes on the `/api` app. */
export function mountAccountRoutes(api: Hono<ApiEnv>, deps: AccountRouteDeps): void {
  const { account } = deps;

  api.get("/api/account", (c) => c.json(accountView(deps, c.get("session"))));

  api.post("/api/account/create/begin", async (c) => {
    const body = await jsonBody(c, ["firstName", "setupCode"]);
    return respond(c, deps, account.createBegin({ firstName: body.firstName, setupCode: body.setupCode }), (v) => c.json(v));
  });

  api.post("/api/account/create/register", async (c) => {
    const body = await jsonBody(c, ["response"]);
    return respond(c, deps, account.createRegister({ response: body.response }), ({ ticket }) => {
      c.header("set-cookie", setupTicketCookie(ticket, deps.origin));
      return c.json({ ok: true });
    });
  });

  api.post("/api/account/create/finish", async (c) => {
    await jsonBody(c, []);
    const ticket = setupTicketFrom(c.req.header("cookie"));
    return respond(c, deps, account.createFinish({ ticket }, userAgentOf(c), deps.setUp), (finished) => {
      setSessionCookie(c, deps, finished);
      c.header("set-cookie", clearSetupTicketCookie(deps.origin), { append: true });
      return c.json({ account: accountView(deps, finished.session), recoveryCodes: finished.recoveryCodes });
    });
  });

  api.post("/api/account/signin/begin", async (c) => {
    await jsonBody(c, []);
    return respond(c, deps, account.signInBegin(), (v) => c.json(v));
  });

  api.post("/api/account/signin/finish", async (c) => {
    const body = await jsonBody(c, ["response"]);
    return respond(c, deps, account.signInFinish({ response: body.response }, userAgentOf(c)), (started) => {
      setSessionCookie(c, deps, started);
      return c.json({ account: accountView(deps, started.session) });
    });
  });

  api.post("/api/account/signout", async (c) => {
    await jsonBody(c, []);
    account.signOut(sessionOf(c));
    c.header("set-cookie", clearSessionCookie(deps.origin));
    return c.body(null, 204);
  });

  api.post("/api/account/stepup/begin", async (c) => {
    await jsonBody(c, []);
    return respond(c, deps, account.stepUpBegin(sessionOf(c)), (v) => c.json(v));
  });

  api.post("/api/account/stepup/finish", async (c) => {
    const body = await jsonBody(c, ["response"]);
    return respond(c, deps, account.stepUpFinish(sessionOf(c), { response: body.response }), ({ until }) => c.json({ until: rfc3339(until) }));
  });
}
