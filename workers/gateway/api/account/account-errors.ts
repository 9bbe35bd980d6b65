/**
 * @module The account ceremonies' refusals: the codes a sign-in, set-up, step-up, passkey, recovery
 * or pairing step can answer with. Each is a code of the problem catalogue
 * (shared/problem-catalog.ts), which gives its status and title, so the `/api` routes answer an
 * `AccountError` as the problem of the same code.
 */
import { type ProblemCode, problemCatalog } from "../../../../shared/problem-catalog.ts";

/** Every code an account ceremony can refuse with. */
export const ACCOUNT_ERROR_CODES = [
  "bad-first-name",
  "bad-response",
  "bad-challenge",
  "bad-settings",
  "unauthenticated",
  "bad-setup-code",
  "bad-recovery-code",
  "bad-pairing-code",
  "step-up-required",
  "limited-session",
  "not-found",
  "already-set-up",
  "not-set-up",
  "last-passkey",
  "too-many-passkeys",
  "rate-limited",
  "engine-unavailable",
] as const satisfies readonly ProblemCode[];

/** A code an account ceremony refuses with. */
export type AccountErrorCode = (typeof ACCOUNT_ERROR_CODES)[number];

/** A refusal: its code, the catalogue's status, a sentence for the person, and for 429 when to retry. */
export interface AccountError {
  readonly code: AccountErrorCode;
  readonly status: number;
  readonly message: string;
  /** Seconds to wait before trying again (only `rate-limited`). */
  readonly retryAfter?: number;
  /** Why a check failed, for the log line only: never sent (it would help a forger). */
  readonly reason?: string;
  /** The wrong fields of a body, each with what it should be (`bad-settings`). */
  readonly errors?: readonly { readonly pointer: string; readonly detail: string }[];
}

/** Builds the refusal of `code`; its status comes from the catalogue. */
export function accountError(code: AccountErrorCode, message: string, retryAfter?: number): AccountError {
  const { status } = problemCatalog[code];
  return retryAfter === undefined ? { code, status, message } : { code, status, message, retryAfter };
}
