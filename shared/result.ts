/**
 * @module The one shape of a fallible operation's answer: user input never throws, it comes back
 * as `{ok: false, error}` with a stable `code` (exceptions are kept for bugs). Identity checks,
 * admin requests, the command line's parsers and the peer link all answer with it.
 */

/** Success with a value, or failure with a typed error. */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** A success. */
export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

/** A failure. */
export function fail<E>(error: E): { readonly ok: false; readonly error: E } {
  return { ok: false, error };
}
