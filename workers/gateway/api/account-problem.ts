/**
 * @module The one converter from the account ceremonies' refusals (account/account-errors.ts) to
 * problem documents: the same code, the same status, the ceremony's sentence as the detail, and
 * `Retry-After` for a lock. Why a check failed (`reason`) goes to the log line, never to the caller:
 * it would tell a forger which part of a forgery to fix.
 */
import type { Context } from "hono";
import type { Logger } from "../../../shared/log.ts";
import { type Problem, problemOf } from "../../../shared/problem.ts";
import type { AccountError } from "./account/account-errors.ts";
import { problemResponse } from "../problem-response.ts";

/** The problem document of a ceremony's refusal. */
export function accountProblem(error: AccountError): Problem {
  const p = { ...problemOf(error.code, error.message), ...(error.errors === undefined ? {} : { errors: error.errors }) };
  return error.retryAfter === undefined ? p : { ...p, retryAfter: error.retryAfter };
}

/** Answers a refusal, logging why a check failed when the ceremony said. */
export function refuse(c: Context, error: AccountError, log: Logger): Response {
  if (error.reason !== undefined) log.info("account check failed", { code: error.code, reason: error.reason.slice(0, 200) });
  return problemResponse(c, accountProblem(error));
}
