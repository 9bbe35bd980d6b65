/**
 * @module Asking a node whether it answers: `GET /health` timed for the round trip, and its
 * `/.well-known/charter.json` (identity and voters). Never anything but GETs of public routes.
 */

/** What one probe of a node found. */
export interface Probe {
  readonly url: string;
  readonly answers: boolean;
  /** Round-trip time of `GET /health` in ms; null when it did not answer. */
  readonly rttMs: number | null;
  /** The HTTP status of `/health` (503 while a worker is down), or the error when there was no answer. */
  readonly status: number | null;
  readonly error: string | null;
  readonly health: Record<string, unknown> | null;
  readonly wellKnown: Record<string, unknown> | null;
  readonly at: number;
}

/** Probes `url` with `timeoutMs` for each request; `wellKnown` also fetches the identity document. */
export async function probeNode(url: string, options: { timeoutMs?: number; wellKnown?: boolean; now?: () => number } = {}): Promise<Probe> {
  const timeoutMs = options.timeoutMs ?? 1500;
  const now = options.now ?? Date.now;
  const base = url.replace(/\/+$/, "");
  const started = performance.now();
  try {
    const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    const health = await jsonOf(response);
    const rttMs = performance.now() - started;
    let wellKnown: Record<string, unknown> | null = null;
    if (options.wellKnown !== false) {
      try {
        wellKnown = await jsonOf(await fetch(`${base}/.well-known/charter.json`, { signal: AbortSignal.timeout(timeoutMs) }));
      } catch {
        // Health answered; the identity document is extra.
      }
    }
    return { url: base, answers: true, rttMs, status: response.status, error: null, health, wellKnown, at: now() };
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    const reason = e.name === "TimeoutError" ? `no answer in ${timeoutMs} ms` : (e.cause?.code ?? e.message);
    return { url: base, answers: false, rttMs: null, status: null, error: reason, health: null, wellKnown: null, at: now() };
  }
}

async function jsonOf(response: Response): Promise<Record<string, unknown> | null> {
  try {
    const body = (await response.json()) as unknown;
    return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
