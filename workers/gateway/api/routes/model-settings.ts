/**
 * @module The assistant's model settings (assistant/model-route.ts), each `GET` (the stored value
 * with its defaults filled in) and `PUT` (the fields given replace the stored ones; answers what
 * is then stored):
 *
 * ```
 * /api/settings/models            {conversation?: {connection, model}, summaries?: …, planning?: …}   (null clears a kind)
 * /api/settings/routing           {conversation?: [{connection, model}…], summaries?: […], planning?: […]}   (≤ 5 each)
 * /api/settings/autonomy          {enabled, intervalMinutes, turnTokenBudget}   (5–10,080 min; 1,000–1,000,000 tokens)
 * /api/settings/openaiRouting     {maxTokens, temperature, responseTimeoutSeconds, idleTimeoutSeconds, retries}
 * /api/settings/anthropicRouting  (the same)
 * ```
 *
 * A wrong type or an unknown field is `400 malformed-body`, a value out of its bounds or a
 * connection that does not exist `400 bad-settings`; either names each field (`#/conversation/connection`).
 */
import type { Context, Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { Connections } from "../assistant-host/connections.ts";
import { autonomySettings, modelSettings, routingSettings, vendorCallSettings } from "../assistant-host/model-route.ts";
import type { NodeSettings } from "../assistant-host/node-settings.ts";
import { autonomyInput, callInput, modelsInput, routingInput, SETTING_NAMES, SettingErrors, WORK_KINDS } from "../assistant-host/settings-input.ts";
import { jsonBody } from "../request-body.ts";

/** What the settings routes need. */
export interface ModelSettingsRouteDeps extends AutonomySettingDeps {
  readonly connections: Connections;
}

/** What the autonomy setting's routes need: the settings, and who hears of a change (the autonomy schedule). */
export interface AutonomySettingDeps {
  readonly settings: NodeSettings;
  readonly onAutonomyChanged?: () => void;
}

const CALL_FIELDS = ["maxTokens", "temperature", "responseTimeoutSeconds", "idleTimeoutSeconds", "retries"] as const;

/** Mounts the model, routing, autonomy and vendor settings routes. */
export function mountModelSettingsRoutes(api: Hono<ApiEnv>, deps: ModelSettingsRouteDeps): void {
  const { settings, connections } = deps;
  const exists = (id: string) => connections.get(id) !== null;

  api.get("/api/settings/models", (c) => {
    sessionOf(c);
    return c.json(modelSettings(settings));
  });
  api.put("/api/settings/models", async (c) => {
    const given = await checked(c, WORK_KINDS, (body, errors) => modelsInput(body, errors, exists));
    const next: Record<string, unknown> = { ...modelSettings(settings), ...given };
    settings.put(SETTING_NAMES.models, Object.fromEntries(Object.entries(next).filter(([, v]) => v !== null)));
    return c.json(modelSettings(settings));
  });

  api.get("/api/settings/routing", (c) => {
    sessionOf(c);
    return c.json(routingSettings(settings));
  });
  api.put("/api/settings/routing", async (c) => {
    const given = await checked(c, WORK_KINDS, (body, errors) => routingInput(body, errors, exists));
    settings.put(SETTING_NAMES.routing, { ...routingSettings(settings), ...given });
    return c.json(routingSettings(settings));
  });

  mountAutonomySetting(api, "/api/settings/autonomy", deps);

  for (const provider of ["openai", "anthropic"] as const) {
    const path = `/api/settings/${SETTING_NAMES[provider]}`;
    api.get(path, (c) => {
      sessionOf(c);
      return c.json(vendorCallSettings(settings, provider));
    });
    api.put(path, async (c) => {
      const given = await checked(c, CALL_FIELDS, (body, errors) => callInput(body, provider, errors));
      settings.put(SETTING_NAMES[provider], { ...vendorCallSettings(settings, provider), ...given });
      return c.json(vendorCallSettings(settings, provider));
    });
  }
}

/** Mounts `GET`/`PUT` of the autonomy setting at `path` (served at `/api/settings/autonomy` and `/api/autonomy/settings`). */
export function mountAutonomySetting(api: Hono<ApiEnv>, path: string, deps: AutonomySettingDeps): void {
  const { settings } = deps;
  api.get(path, (c) => {
    sessionOf(c);
    return c.json(autonomySettings(settings));
  });
  api.put(path, async (c) => {
    const given = await checked(c, ["enabled", "intervalMinutes", "turnTokenBudget"], autonomyInput);
    settings.put(SETTING_NAMES.autonomy, { ...autonomySettings(settings), ...given });
    deps.onAutonomyChanged?.();
    return c.json(autonomySettings(settings));
  });
}

/** The body's fields as `read` takes them; every wrong one in one `400`. */
async function checked<F extends string, T>(c: Context<ApiEnv>, fields: readonly F[], read: (body: Record<string, unknown>, errors: SettingErrors) => T): Promise<T> {
  sessionOf(c);
  const body = await jsonBody(c, fields);
  const errors = new SettingErrors();
  const value = read(body, errors);
  if (errors.list.length > 0) {
    const detail = errors.list.map((e) => e.detail).join("; ");
    const named = errors.list.map((e) => ({ pointer: e.pointer, detail: e.detail }));
    throw new HttpProblem(errors.list.some((e) => e.type) ? problem(400, "malformed-body", detail, named) : problem(400, "bad-settings", detail, named));
  }
  return value;
}
