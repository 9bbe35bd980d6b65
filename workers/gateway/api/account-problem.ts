/**
 * @module The one converter from the account ceremonies' refusals (account/account-errors.ts) to
 * problem documents: the same code, the same status, the ceremony's sentence as the detail, and
 * `Retry-After` for a lock. Why a check failed (`reason`) goes to the log line, never to the caller:
 * it would tell a forger which part of a forgery to fix.
 */
import type { Context } from "hono";
import type { Logger } from "../../../shared/log.ts";
import { type Problem, problemOf, type ProblemCode } from "../../../shared/problem.ts";
import type { AccountError, AccountErrorCode } from "./account/account-errors.ts";
import { problemResponse } from "../problem-response.ts";

/** Each ceremony code's problem code: one spelling, held to the problem catalogue by the type checker. */
export const ACCOUNT_PROBLEMS = {
  "bad-first-name": "bad-first-name",
  "bad-response": "bad-response",
  "bad-challenge": "bad-challenge",
  "bad-settings": "bad-settings",
  unauthenticated: "unauthenticated",
  "bad-setup-code": "bad-setup-code",
  "bad-recovery-code": "bad-recovery-code",
  "bad-pairing-code": "bad-pairing-code",
  "step-up-required": "step-up-required",
  "limited-session": "limited-session",
  "not-found": "not-found",
  "already-set-up": "already-set-up",
  "not-set-up": "not-set-up",
  "last-passkey": "last-passkey",
  "too-many-passkeys": "too-many-passkeys",
  "rate-limited": "rate-limited",
} as const satisfies Record<AccountErrorCode, ProblemCode>;

/** The problem document of a ceremony's refusal. */
export function accountProblem(error: AccountError): Problem {
  const p = problemOf(ACCOUNT_PROBLEMS[error.code], error.message);
  return error.retryAfter === undefined ? p : { ...p, retryAfter: error.retryAfter };
}

/** Answers a refusal, logging why a check failed when the ceremony said. */
export function refuse(c: Context, error: AccountError, log: Logger): Response {
  if (error.reason !== undefined) log.info("account check failed", { code: error.code, reason: error.reason.slice(0, 200) });
  return problemResponse(c, accountProblem(error));
}
