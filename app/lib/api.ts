/**
 * @module The app's one way to the node: `api(method, path, body)` sends JSON to `/api` on the
 * page's own origin and answers the parsed answer. A refusal is a `Refusal` carrying the problem
 * document (RFC 9457: `code`, `detail`, field `errors`) or, for an action the contract refused, the
 * receipt with its reason. The page holds no business rule: what the node refuses is shown as the
 * node says it.
 */

/** A problem document as the node answers it. */
export interface Problem {
  readonly type?: string;
  readonly title?: string;
  readonly status?: number;
  readonly detail?: string;
  readonly code?: string;
  readonly errors?: readonly { readonly pointer?: string; readonly detail?: string }[];
  readonly [key: string]: unknown;
}

/** A refused request: its HTTP status and the node's answer. */
export class Refusal extends Error {
  readonly status: number;
  readonly body: Problem | null;
  constructor(status: number, body: Problem | null) {
    super(describe(status, body));
    this.status = status;
    this.body = body;
  }
  /** The problem's code (`step-up-required`, `not-found`, …), or null. */
  get code(): string | null {
    return typeof this.body?.code === "string" ? this.body.code : null;
  }
}

function describe(status: number, body: Problem | null): string {
  const receipt = body?.["receipt"] as { reason?: { message?: string } | null } | undefined;
  if (typeof receipt?.reason?.message === "string") return `refused: ${receipt.reason.message}`;
  if (typeof body?.detail === "string" && body.detail !== "") return body.detail;
  if (typeof body?.title === "string") return body.title;
  return `the node answered ${status}`;
}

/** Listeners told when any call is refused for want of a session or a step-up. */
type AuthListener = (refusal: Refusal) => void;
const authListeners = new Set<AuthListener>();

/** Calls `listener` whenever a request is answered 401 (the session ended). */
export function onSessionEnded(listener: AuthListener): () => void {
  authListeners.add(listener);
  return () => authListeners.delete(listener);
}

/**
 * Tells the app the session ended (a request was answered 401): `api()` calls it on its own 401s,
 * and a request made another way (the library's `XMLHttpRequest` upload) calls it on its own.
 */
export function reportSessionEnded(refusal: Refusal): void {
  for (const listener of authListeners) listener(refusal);
}

/** Sends `method path` with a JSON body (when given); answers the JSON answer (null when empty), or throws a Refusal. */
export async function api<T = unknown>(method: string, path: string, body?: unknown, init: { signal?: AbortSignal } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json, application/problem+json" };
  const request: RequestInit = { method, credentials: "same-origin", headers };
  if (init.signal !== undefined) request.signal = init.signal;
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    request.body = JSON.stringify(body);
  }
  const res = await fetch(path, request);
  const text = await res.text();
  let value: unknown;
  try {
    value = text === "" ? null : JSON.parse(text);
  } catch {
    value = null;
  }
  if (!res.ok) {
    const refusal = new Refusal(res.status, (value ?? null) as Problem | null);
    if (res.status === 401) reportSessionEnded(refusal);
    throw refusal;
  }
  return value as T;
}

/** What went wrong, in words for the person. */
export function messageOf(error: unknown): string {
  if (error instanceof Refusal) return error.message;
  const named = error as { name?: string; message?: string } | null;
  if (named?.name === "NotAllowedError") return "The passkey request was cancelled or timed out.";
  if (named?.name === "InvalidStateError") return "This device already has a passkey for this node.";
  if (named?.name === "AbortError") return "Cancelled.";
  if (error instanceof TypeError) return `The node could not be reached (${error.message}).`;
  return String(named?.message ?? error);
}

/** A page of a list route: `{items, next}`. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}

/** `path` with its query (`undefined`/null values left out). */
export function withQuery(path: string, query: Record<string, string | number | boolean | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** The WebSocket URL of `path` on the page's own origin (`wss:` under https). */
export function socketUrl(path: string): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}${path}`;
}
