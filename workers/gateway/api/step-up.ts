/**
 * @module The step-up guard of a sensitive `/api` route (node.md "/api conventions"): the caller's
 * session must have confirmed with a passkey within the last 5 minutes, else `403
 * step-up-required` (a recovery sign-in: `403 limited-session`). Routes call it before they act.
 */
import type { Context } from "hono";
import { HttpProblem } from "../../../shared/problem.ts";
import { requireStepUp } from "./account/account-context.ts";
import { accountProblem } from "./account-problem.ts";
import type { AccountCeremonies } from "./account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "./api-env.ts";

/** Throws the problem unless the caller's session is stepped up now. */
export function requireSteppedUp(c: Context<ApiEnv>, account: Pick<AccountCeremonies, "context">): void {
  const allowed = requireStepUp(account.context, sessionOf(c));
  if (!allowed.ok) throw new HttpProblem(accountProblem(allowed.error));
}
