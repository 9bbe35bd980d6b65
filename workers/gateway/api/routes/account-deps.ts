/**
 * @module What the `/api` account and pairing routes share: the ceremonies bound to this node and
 * what set-up needs, and the few steps every adapter takes — answering a ceremony's outcome,
 * handing a new session's cookie to the browser, the account's public view, times as RFC 3339.
 */
import type { Context } from "hono";
import type { Logger } from "../../../../shared/log.ts";
import type { AccountCeremonies, NewSession, SetUp } from "../account/ceremonies.ts";
import type { SessionRecord } from "../account/account-store.ts";
import { sessionCookie } from "../account/sessions.ts";
import type { AccountError } from "../account/account-errors.ts";
import { refuse } from "../account-problem.ts";
import type { Result } from "../../../../shared/result.ts";

/** The account routes' surroundings. */
export interface AccountRouteDeps {
  readonly account: AccountCeremonies;
  /** The node's origin: cookies are `Secure` when it is HTTPS. */
  readonly origin: string;
  /** The node's seal (seal.ts), shown to a signed-in person. */
  readonly seal: string;
  /** Set-up's identity step (identity/person-key.ts). */
  readonly setUp: SetUp;
  readonly log: Logger;
}

/** `GET /api/account`'s answer, also the `account` of a sign-in. */
export interface AccountView {
  readonly setUp: boolean;
  readonly signedIn: boolean;
  readonly firstName: string | null;
  readonly seal: string | null;
}

/** The account as the caller may see it: names and seal only when signed in. */
export function accountView(deps: AccountRouteDeps, session: SessionRecord | null): AccountView {
  const status = deps.account.status(session);
  return { setUp: status.setUp, signedIn: status.signedIn, firstName: status.firstName, seal: status.signedIn ? deps.seal : null };
}

/** Answers `outcome`: its value through `answer`, or its refusal as a problem document. */
export async function respond<T>(c: Context, deps: AccountRouteDeps, outcome: Result<T, AccountError> | Promise<Result<T, AccountError>>, answer: (value: T) => Response): Promise<Response> {
  const settled = await outcome;
  return settled.ok ? answer(settled.value) : refuse(c, settled.error, deps.log);
}

/** Hands a new session's cookie to the browser. */
export function setSessionCookie(c: Context, deps: AccountRouteDeps, started: NewSession): void {
  c.header("set-cookie", sessionCookie(started.token, deps.origin, started.maxAgeSeconds), { append: true });
}

/** The caller's user agent, as the sessions list shows it. */
export function userAgentOf(c: Context): string {
  return c.req.header("user-agent") ?? "";
}

/** A time (ms since the epoch) as RFC 3339; null stays null. */
export function rfc3339(ms: number): string;
export function rfc3339(ms: number | null): string | null;
export function rfc3339(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
