/**
 * @module `GET /api/analytics?tenant=&from=&to=`: counts over a tenant's history (the personal
 * tenant unless `tenant` names another the person owns or is a member of) for the days `from` to
 * `to` (`YYYY-MM-DD`, UTC, both included; the last 30 days by default, 366 at most):
 *
 * ```
 * {tenant, from, to, complete, countedFrom, totals: {commands, accepted, refused},
 *  days: [{date, commands, accepted, refused}],
 *  refusals: {byReason: [{code, count}], byAction: [{namespace, action, count}]},
 *  busiest: [{namespace, aggregate, commands}]}
 * ```
 *
 * Read in one snapshot, bounded (reads/history-analytics.ts): `complete: false` when the range held
 * more entries than one answer reads, with `countedFrom` the time its counts start at.
 */
import type { Hono } from "hono";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { DAYS_MAX, historyAnalytics } from "../../reads/history-analytics.ts";
import { badParameter, NAME_MAX } from "./data-input.ts";

const DAY_MS = 86_400_000;
/** Days counted when `from` is not given. */
const DEFAULT_DAYS = 30;

/** Mounts `GET /api/analytics`. */
export function mountAnalyticsRoute(api: Hono<ApiEnv>, deps: { readonly reader: PersonReader; readonly now: () => number }): void {
  const { reader } = deps;
  api.get("/api/analytics", (c) => {
    sessionOf(c);
    const tenantParam = c.req.query("tenant");
    if (tenantParam !== undefined && tenantParam.length > NAME_MAX) throw badParameter("tenant", `tenant is a handle of at most ${NAME_MAX} characters`);
    const tenant = tenantParam === undefined || tenantParam === "" ? undefined : tenantParam;
    const today = Math.floor(deps.now() / DAY_MS) * DAY_MS;
    const toParam = c.req.query("to");
    const fromParam = c.req.query("from");
    const to = toParam === undefined ? today : dayParam(toParam, "to");
    const from = fromParam === undefined ? to - (DEFAULT_DAYS - 1) * DAY_MS : dayParam(fromParam, "from");
    if (from > to) throw badParameter("from", "from is a day on or before to");
    const days = (to - from) / DAY_MS + 1;
    if (days > DAYS_MAX) throw badParameter("from", `from and to are at most ${DAYS_MAX} days apart, both included`);
    return c.json(reader.read(tenant, (r) => historyAnalytics(r.db, r.tenant, from, days)));
  });
}

/** A `YYYY-MM-DD` parameter as its UTC midnight, or a `400` naming it. */
function dayParam(value: string, name: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) throw badParameter(name, `${name} is a calendar day, YYYY-MM-DD`);
  return ms;
}
