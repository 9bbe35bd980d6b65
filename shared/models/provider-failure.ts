/**
 * @module How a provider's failure becomes a `ModelError`: the HTTP status (or, mid-stream, the
 * error event's type) decides the kind, `retry-after` becomes `retryAfterMs`, and the message is
 * one short line from which the provider's key has been removed (providers echo keys back in 401
 * messages, and messages end up in logs and in front of the person).
 */
import { ModelError, type ModelErrorKind } from "./model.ts";

/** What a provider said when it refused: its status (absent for an error sent mid-stream), headers, error type, message. */
export interface ProviderFailure {
  status?: number;
  headers?: Headers;
  errorType?: string;
  message: string;
}

const MAX_MESSAGE = 300;
/** Shortest run of the key's characters that is taken as the key showing through. */
const KEY_WINDOW = 8;

/** `text` on one line, at most `MAX_MESSAGE` characters, with every trace of `secret` replaced. */
export function safeLine(text: string, secret: string | undefined): string {
  let line = text.slice(0, 4 * MAX_MESSAGE).replace(/\s+/g, " ").trim();
  if (secret && secret.length > 0) {
    line = line.split(secret).join("[key]");
    if (secret.length >= KEY_WINDOW) {
      const windows = new Set<string>();
      for (let i = 0; i + KEY_WINDOW <= secret.length; i++) windows.add(secret.slice(i, i + KEY_WINDOW));
      line = line.replace(/[^\s"'`,;:()[\]{}<>]+/g, (word) => {
        for (let i = 0; i + KEY_WINDOW <= word.length; i++) if (windows.has(word.slice(i, i + KEY_WINDOW))) return "[key]";
        return word;
      });
    }
  }
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
}

/** The wait a provider asked for, from `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, now: () => number = Date.now): number | undefined {
  const ms = Number(headers?.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now()) : undefined;
}

/** The kind of a refusal with an HTTP status. */
function kindOfStatus(status: number): ModelErrorKind {
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate-limited";
  if (status === 408) return "timeout";
  // 409 is a provider's lock conflict: transient, like a server error.
  if (status >= 500 || status === 409) return "server";
  return "bad-request";
}

/** The kind of an error sent inside a stream (no status), by the type the provider gave it. */
function kindOfType(type: string | undefined): ModelErrorKind {
  switch (type) {
    case "authentication_error":
    case "permission_error":
    case "invalid_api_key":
      return "auth";
    case "rate_limit_error":
    case "rate_limit_exceeded":
      return "rate-limited";
    case "invalid_request_error":
    case "not_found_error":
    case "request_too_large":
      return "bad-request";
    default:
      return "server";
  }
}

/** The `ModelError` for a provider's refusal. `provider` names the adapter in the message. */
export function refusal(provider: string, failure: ProviderFailure, secret: string | undefined): ModelError {
  const { status } = failure;
  const kind = status === undefined ? kindOfType(failure.errorType) : kindOfStatus(status);
  const wait = kind === "rate-limited" ? retryAfterMs(failure.headers) : undefined;
  const head = status === undefined ? `${provider}: error in the stream` : `${provider}: HTTP ${status}`;
  const details: { status?: number; retryAfterMs?: number } = {};
  if (status !== undefined) details.status = status;
  if (wait !== undefined) details.retryAfterMs = wait;
  return new ModelError(kind, safeLine(`${head} (${kind}): ${failure.message}`, secret), details);
}

/** A `ModelError` of `kind` whose message is made safe like a refusal's. */
export function failure(kind: ModelErrorKind, provider: string, message: string, secret: string | undefined): ModelError {
  return new ModelError(kind, safeLine(`${provider}: ${message}`, secret));
}

/** The error classes an official client throws (both clients share these names and this shape). */
export interface ClientErrors {
  APIUserAbortError: abstract new (...args: any[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: any[]) => Error;
  APIConnectionError: abstract new (...args: any[]) => Error;
  APIError: abstract new (...args: any[]) => Error & { status?: number | undefined; headers?: Headers | undefined; error?: unknown };
}

/** One failed call, as an adapter sees it. `streaming`: the answer had begun when it failed. */
export interface FailedCall {
  provider: string;
  secret: string | undefined;
  ended: "cancelled" | "timeout" | undefined;
  streaming: boolean;
  errors: ClientErrors;
  /** The provider's own message and error type from a refusal's JSON body. */
  describe(body: unknown): { message?: string; type?: string };
}

/** Every failure of a call as a `ModelError`. */
export function classify(error: unknown, call: FailedCall): ModelError {
  const { provider, secret, streaming, errors } = call;
  if (call.ended === "cancelled") return failure("cancelled", provider, "the call was cancelled", secret);
  if (call.ended === "timeout") return failure("timeout", provider, streaming ? "no progress within the idle limit" : "no answer within the response limit", secret);
  if (error instanceof ModelError) return error;
  if (error instanceof errors.APIUserAbortError) return failure("cancelled", provider, "the call was cancelled", secret);
  if (error instanceof errors.APIConnectionTimeoutError) return failure("timeout", provider, "no answer within the response limit", secret);
  if (error instanceof errors.APIConnectionError) return failure(streaming ? "cut" : "unreachable", provider, connectionMessage(error), secret);
  if (error instanceof errors.APIError) {
    const said = call.describe(error.error);
    const facts: ProviderFailure = { message: said.message ?? error.message };
    if (error.status !== undefined) facts.status = error.status;
    if (error.headers) facts.headers = error.headers;
    if (said.type) facts.errorType = said.type;
    return refusal(provider, facts, secret);
  }
  if (error instanceof SyntaxError) return failure("malformed", provider, `the answer could not be parsed: ${error.message}`, secret);
  const text = error instanceof Error ? error.message : String(error);
  return failure(streaming ? "cut" : "unreachable", provider, streaming ? `the answer was cut: ${text}` : `could not reach the provider: ${text}`, secret);
}

/** A connection error's message, with its cause (the refused or reset socket) when it has one. */
function connectionMessage(error: Error): string {
  const cause = error.cause instanceof Error ? ((error.cause as Error & { code?: string }).code ?? error.cause.message) : undefined;
  return cause ? `${error.message} (${cause})` : error.message;
}

/** `value[key]` when it is a string. */
export function stringField(value: unknown, key: string): string | undefined {
  const field = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof field === "string" ? field : undefined;
}
