/**
 * @module The one catalogue of the account ceremonies' refusals: every error a sign-in, set-up,
 * step-up, passkey, recovery or pairing step can answer with, under a stable kebab-case code and
 * its HTTP status. The `/api` routes turn an `AccountError` into a problem document of the same code.
 */

interface Entry {
  readonly status: number;
  readonly title: string;
}

/** Every refusal an account ceremony can answer with. */
export const accountErrorCatalog = {
  "bad-first-name": { status: 400, title: "Not a usable first name" },
  "bad-response": { status: 400, title: "Not a WebAuthn response" },
  "bad-challenge": { status: 400, title: "Challenge unknown, used or expired" },
  "bad-settings": { status: 400, title: "Settings out of range" },
  unauthenticated: { status: 401, title: "Unauthenticated" },
  "bad-setup-code": { status: 403, title: "Wrong set-up code" },
  "bad-recovery-code": { status: 403, title: "Unknown or used recovery code" },
  "bad-pairing-code": { status: 403, title: "Unknown, used or expired pairing code" },
  "step-up-required": { status: 403, title: "Step-up required" },
  "limited-session": { status: 403, title: "A recovery sign-in may only add a passkey" },
  "not-found": { status: 404, title: "Not Found" },
  "already-set-up": { status: 409, title: "Already set up" },
  "not-set-up": { status: 409, title: "Not set up" },
  "last-passkey": { status: 409, title: "The last passkey cannot be removed" },
  "too-many-passkeys": { status: 409, title: "Too many passkeys" },
  "rate-limited": { status: 429, title: "Too Many Requests" },
} as const satisfies Record<string, Entry>;

/** A code of the catalogue. */
export type AccountErrorCode = keyof typeof accountErrorCatalog;

/** A refusal: its code, the catalogue's status, a sentence for the person, and for 429 when to retry. */
export interface AccountError {
  readonly code: AccountErrorCode;
  readonly status: number;
  readonly message: string;
  /** Seconds to wait before trying again (only `rate-limited`). */
  readonly retryAfter?: number;
  /** Why a check failed, for the log line only: never sent (it would help a forger). */
  readonly reason?: string;
}

/** Builds the refusal of `code`; its status comes from the catalogue. */
export function accountError(code: AccountErrorCode, message: string, retryAfter?: number): AccountError {
  const { status } = accountErrorCatalog[code];
  return retryAfter === undefined ? { code, status, message } : { code, status, message, retryAfter };
}
