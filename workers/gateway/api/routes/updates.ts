/**
 * @module Self-update's routes (the updater worker does the work; shared/protocol/updater.ts):
 *
 * ```
 * GET  /api/settings/updates                → the status: {settings, running, state, available, lastCheck, nextCheckAt, history, rolledBack}
 * PUT  /api/settings/updates {mode?, channel?, releaseKey?, window?, timeZone?} → the status
 *        (step-up to change the channel or the release key, or to turn automatic installs on)
 * POST /api/settings/updates/check          → the status, with what is available; a refused release 409 update-refused
 * POST /api/settings/updates/install {version?} → 202 the status (the node restarts into the release; step-up)
 * ```
 *
 * A refused release answers `409 update-refused` with `reason` its refusal (`unsigned`,
 * `foreign-signed`, `tampered`, `downgrade`, `unsuitable`); each refusal is also recorded in the
 * history. In ask mode, installing is the person's approval of the release the check found.
 */
import type { Hono } from "hono";
import { HttpProblem, type Problem, problem } from "../../../../shared/problem.ts";
import type { UpdateRefusal } from "../../../../shared/protocol/updater.ts";
import type { AccountCeremonies } from "../account/ceremonies.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { jsonBody } from "../request-body.ts";
import { requireSteppedUp } from "../step-up.ts";
import type { UpdateHost } from "../updates/update-host.ts";

export interface UpdateRouteDeps {
  readonly updates: UpdateHost;
  readonly account: Pick<AccountCeremonies, "context">;
}

const BASE = "/api/settings/updates";
const RELEASE_REFUSALS = new Set(["unsigned", "foreign-signed", "tampered", "downgrade", "unsuitable"]);

export function mountUpdateRoutes(api: Hono<ApiEnv>, deps: UpdateRouteDeps): void {
  const { updates } = deps;

  api.get(BASE, async (c) => {
    sessionOf(c);
    return c.json(await updates.request("update-status", {}));
  });

  api.put(BASE, async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["mode", "channel", "releaseKey", "window", "timeZone"]);
    const current = (await updates.request("update-status", {})).settings;
    const sensitive = ("channel" in body && body.channel !== current.channel) || ("releaseKey" in body && body.releaseKey !== current.releaseKey) || (body.mode === "automatic" && current.mode !== "automatic");
    if (sensitive) requireSteppedUp(c, deps.account);
    const answer = await updates.request("update-settings", { change: body });
    if (!answer.ok) throw new HttpProblem(problem(400, "bad-settings", answer.errors.map((e) => `${e.pointer}: ${e.detail}`).join("; "), answer.errors));
    return c.json(answer.status);
  });

  api.post(`${BASE}/check`, async (c) => {
    sessionOf(c);
    await jsonBody(c, []);
    const answer = await updates.request("update-check", {});
    if (!answer.ok) throw new HttpProblem(refusalProblem(answer.refusal));
    return c.json(answer.status);
  });

  api.post(`${BASE}/install`, async (c) => {
    sessionOf(c);
    requireSteppedUp(c, deps.account);
    const body = await jsonBody(c, ["version"]);
    if (body.version !== undefined && (typeof body.version !== "string" || !/^\d{1,6}\.\d{1,6}\.\d{1,6}$/.test(body.version))) {
      throw new HttpProblem(problem(400, "bad-settings", "version is MAJOR.MINOR.PATCH", [{ pointer: "#/version", detail: "version is MAJOR.MINOR.PATCH" }]));
    }
    const answer = await updates.request("update-install", body.version === undefined ? {} : { version: body.version as string });
    if (!answer.ok) throw new HttpProblem(refusalProblem(answer.refusal));
    return c.json(answer.status, 202);
  });
}

/** The problem of an update that could not go on: a refused release is `409 update-refused` with its refusal as `reason`. */
function refusalProblem(refusal: UpdateRefusal): Problem {
  if (RELEASE_REFUSALS.has(refusal.code)) return { ...problem(409, "update-refused", refusal.reason), reason: refusal.code };
  switch (refusal.code) {
    case "no-update":
      return problem(409, "no-update", refusal.reason);
    case "update-in-progress":
      return problem(409, "update-in-progress", refusal.reason);
    case "updates-not-configured":
      return problem(409, "updates-not-configured", refusal.reason);
    case "channel-unreachable":
      return problem(502, "channel-unreachable", refusal.reason);
    default:
      return problem(500, "update-failed", refusal.reason);
  }
}
