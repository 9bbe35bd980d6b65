/**
 * @module The assistant's one view of a language model, whoever serves it: a request (system text,
 * messages, tools), a stream of events back, and one error type whose `kind` says what went wrong
 * and whether trying again can help. Each provider adapter maps its wire protocol onto this.
 */

/** A tool the model may call: its parameters are a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One call the model asked for; `argumentsJson` is the model's text, not yet parsed or checked. */
export interface ToolCall {
  id: string;
  name: string;
  argumentsJson: string;
}

/** One message of the conversation, in the assistant's own terms. */
export type ChatMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls: ToolCall[] }
  | { role: "tool"; toolCallId: string; content: string; isError: boolean };

/** What one model call asks for. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  maxTokens: number;
  temperature?: number;
}

/** Why the model stopped: its answer is complete, it wants tools run, it ran out of tokens, or else. */
export type StopReason = "end" | "tool-calls" | "max-tokens" | "other";

/** One event of a model's streamed answer; a stream that completes ends with exactly one `done`. */
export type ModelEvent =
  | { type: "text"; delta: string }
  | { type: "tool-call-delta"; id: string; name: string; argumentsDelta: string }
  | ({ type: "tool-call" } & ToolCall)
  | { type: "usage"; inputTokens: number; outputTokens: number }
  | { type: "done"; stopReason: StopReason };

/** A model provider: streams one answer, lists the models it serves. Every failure is a `ModelError`. */
export interface ModelProvider {
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
  listModels(signal: AbortSignal): Promise<string[]>;
}

/** What went wrong with a provider, in the terms a turn can act on. */
export type ModelErrorKind =
  | "auth" // the key was refused (401/403): asking again will not help
  | "rate-limited" // 429: wait (`retryAfterMs` when the provider said) and try again
  | "server" // 5xx or an overloaded provider: may pass
  | "bad-request" // the provider refused the request itself (4xx): asking again will not help
  | "cut" // the answer stopped before its end marker
  | "malformed" // the answer could not be parsed
  | "timeout" // no answer, or no progress, within the allowed time
  | "cancelled" // the caller aborted
  | "unreachable"; // no connection could be made

/** Every failure of a provider. Its message is one line and never holds the provider's key. */
export class ModelError extends Error {
  readonly kind: ModelErrorKind;
  readonly status?: number;
  readonly retryAfterMs?: number;
  /** How many attempts were made, set by `withRetries` when it gives up. */
  readonly attempts?: number;

  constructor(kind: ModelErrorKind, message: string, details: { status?: number; retryAfterMs?: number; attempts?: number } = {}) {
    super(message);
    this.name = "ModelError";
    this.kind = kind;
    if (details.status !== undefined) this.status = details.status;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
    if (details.attempts !== undefined) this.attempts = details.attempts;
  }
}

/** Is `error` a `ModelError`? */
export function isModelError(error: unknown): error is ModelError {
  return error instanceof ModelError;
}
