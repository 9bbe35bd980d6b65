/**
 * @module What travels on a channel: requests with ids, their replies, and one-way notices.
 * Replies are `{ok: true, value} | {ok: false, error}`; an error crossing the boundary is always a
 * ChannelError value (name, code, message), converted in exactly one place (`toChannelError`).
 */

/** A protocol: for each request type, its body and its reply value. */
export type RequestMap = Record<string, { readonly request: unknown; readonly response: unknown }>;

/** A protocol's one-way notices: for each type, its body. */
export type NoticeMap = Record<string, unknown>;

/** An error as it crosses a process boundary. */
export interface ChannelErrorValue {
  readonly name: string;
  readonly code: string;
  readonly message: string;
}

export type WireMessage =
  | { readonly k: "q"; readonly id: number; readonly type: string; readonly body: unknown }
  | { readonly k: "r"; readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly k: "r"; readonly id: number; readonly ok: false; readonly error: ChannelErrorValue }
  | { readonly k: "n"; readonly type: string; readonly body: unknown };

/** The error a request's promise rejects with. `code` is stable; `channel_closed` when the peer went away. */
export class ChannelError extends Error {
  readonly code: string;
  constructor(code: string, message: string, name = "ChannelError") {
    super(message);
    this.code = code;
    this.name = name;
  }
}

/** Converts anything a handler threw into the value sent back to the caller. */
export function toChannelError(error: unknown): ChannelErrorValue {
  if (error instanceof ChannelError) return { name: error.name, code: error.code, message: error.message };
  if (error instanceof Error) {
    const raw = (error as unknown as { code?: unknown }).code;
    const code = typeof raw === "string" ? raw : "internal";
    return { name: error.name, code, message: error.message };
  }
  return { name: "Error", code: "internal", message: String(error) };
}
