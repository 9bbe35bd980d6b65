/**
 * @module The gate in front of every `/api` route, applied once to the whole tree: a state-changing
 * request (any method but GET and HEAD) must carry the node's own `Origin` (`403 bad-origin`, before
 * anything else, public routes included: a page elsewhere cannot drive a ceremony); then every route
 * but the public ones needs a live session cookie (`401 unauthenticated`, with the route not looked
 * up and the body not read, so a caller without a session learns nothing of what exists); and a
 * recovery sign-in may reach only what it exists for (`403 limited-session`).
 */
import type { MiddlewareHandler } from "hono";
import { problem } from "../../../shared/problem.ts";
import { problemResponse } from "../problem-response.ts";
import type { SessionRecord } from "./account/account-store.ts";
import { clearSessionCookie, sessionTokenFrom } from "./account/sessions.ts";
import type { ApiEnv } from "./api-env.ts";

/** Routes reached without a session: the account's state, creating it, signing in, recovery, pairing. */
const PUBLIC_ROUTES: readonly ((method: string, path: string) => boolean)[] = [
  (m, p) => (m === "GET" || m === "HEAD") && p === "/api/account",
  (m, p) => m === "POST" && p.startsWith("/api/account/create/"),
  (m, p) => m === "POST" && p.startsWith("/api/account/signin/"),
  (m, p) => m === "POST" && p === "/api/account/recovery/use",
  (m, p) => m === "POST" && (p === "/api/pair/begin" || p === "/api/pair/finish"),
  // A device joins its home node before it is set up (it proves itself with its set-up code).
  (m, p) => m === "POST" && p === "/api/sync/join",
];

/** What a recovery sign-in may do: see the account, add a passkey, sign out. */
const RECOVERY_ROUTES = new Set(["GET /api/account", "HEAD /api/account", "POST /api/account/passkey/begin", "POST /api/account/passkey/finish", "POST /api/account/signout"]);

/** What the gate needs: the node's origin and the session a cookie's token belongs to now. */
export interface GateOptions {
  readonly origin: string;
  readonly session: (token: string | null) => SessionRecord | null;
}

/** Whether `method` changes state (needs the node's `Origin`). */
export function changesState(method: string): boolean {
  return method !== "GET" && method !== "HEAD";
}

/** Whether `method path` is reached without a session. */
export function isPublicRoute(method: string, path: string): boolean {
  return PUBLIC_ROUTES.some((route) => route(method, path));
}

/** The gate middleware; see the module comment. */
export function apiGate(options: GateOptions): MiddlewareHandler<ApiEnv> {
  return async function gate(c, next) {
    const { method, path } = c.req;
    if (changesState(method) && c.req.header("origin") !== options.origin) {
      return problemResponse(c, problem(403, "bad-origin", `a request that changes something must come from ${options.origin} (its Origin header)`));
    }
    const token = sessionTokenFrom(c.req.header("cookie"));
    // Asked even without a cookie: with sign-in off (account/sign-in-off.ts) there is a session then too.
    const session = options.session(token);
    if (session === null && !isPublicRoute(method, path)) {
      // A cookie that no longer opens a session is taken away, so the browser stops sending it.
      if (token !== null) c.header("set-cookie", clearSessionCookie(options.origin));
      return problemResponse(c, problem(401, "unauthenticated", "sign in first: this needs a session"));
    }
    if (session !== null && session.scope === "recovery" && !RECOVERY_ROUTES.has(`${method} ${path}`) && !isPublicRoute(method, path)) {
      return problemResponse(c, problem(403, "limited-session", "a recovery sign-in may only add a passkey: add one, then sign in with it"));
    }
    c.set("session", session);
    await next();
  };
}
