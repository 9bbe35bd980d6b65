/**
 * @module What the `/api` gate hands to the routes behind it: the caller's live session (null on a
 * public route called signed out). A route that needs a session reads it with `sessionOf`.
 */
import type { Context } from "hono";
import type { SessionRecord } from "./account/account-store.ts";

/** The `/api` app's Hono environment. */
export interface ApiEnv {
  Variables: { session: SessionRecord | null };
}

/** The caller's session on a route the gate keeps for sessions; its absence there is a bug. */
export function sessionOf(c: Context<ApiEnv>): SessionRecord {
  const session = c.get("session");
  if (session === null) throw new Error(`the gate let ${c.req.method} ${c.req.path} through without a session`);
  return session;
}
