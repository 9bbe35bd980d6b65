/**
 * @module A `std.dashboards` record as `/api/artifacts` answers it: the panels from the contract's
 * parallel lists, the stored result parsed, times in RFC 3339 (the contract keeps milliseconds).
 */
import { rfc3339 } from "../routes/account-deps.ts";
import { type PanelResult, parseResult } from "./dashboard-result.ts";

/** One panel: a declared query of the personal tenant and its parameters. */
export interface Panel {
  readonly namespace: string;
  readonly query: string;
  readonly params: unknown;
}

/** A dashboard, as the routes answer it. */
export interface DashboardView {
  readonly id: string;
  readonly title: string;
  readonly panels: readonly Panel[];
  /** The last refresh's rows, one entry per panel; null before the first refresh. */
  readonly result: { readonly panels: readonly PanelResult[] } | null;
  readonly refreshedAt: string | null;
  /** `everyMinutes` 0 is no schedule (`nextAt` null). */
  readonly schedule: { readonly everyMinutes: number; readonly nextAt: string | null };
  /** The last refresh that failed, when none succeeded since. */
  readonly error: { readonly message: string; readonly at: string | null } | null;
  readonly createdAt: string;
  readonly creator: string | null;
}

/** The state of a dashboard that exists and is not deleted, else null. */
export function liveState(state: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  return state === null || state === undefined || ms(state.created_at) === null || state.deleted === true ? null : state;
}

/** `state` (a live dashboard's public fields) as the routes answer it. */
export function dashboardView(id: string, state: Record<string, unknown>): DashboardView {
  const namespaces = texts(state.panel_namespaces);
  const queries = texts(state.panel_queries);
  const params = texts(state.panel_params);
  const result = parseResult(typeof state.result === "string" ? state.result : "");
  const everyMinutes = Number(state.every_minutes ?? 0);
  const error = typeof state.last_error === "string" && state.last_error !== "" ? { message: state.last_error, at: rfc3339(ms(state.failed_at)) } : null;
  return {
    id,
    title: typeof state.title === "string" ? state.title : "",
    panels: namespaces.map((namespace, i) => ({ namespace, query: queries[i] ?? "", params: parseParams(params[i]) })),
    result: result === null ? null : { panels: result },
    refreshedAt: rfc3339(ms(state.refreshed_at)),
    schedule: { everyMinutes, nextAt: everyMinutes > 0 ? rfc3339(ms(state.next_at)) : null },
    error,
    createdAt: rfc3339(ms(state.created_at) ?? 0),
    creator: typeof state.creator === "string" ? state.creator : null,
  };
}

/** A stored time: a positive Int of milliseconds, else null. */
function ms(value: unknown): number | null {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

function texts(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === "string" ? v : "")) : [];
}

// Written by the node as JSON; text that is not JSON (written another way) is shown as null.
function parseParams(text: string | undefined): unknown {
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
