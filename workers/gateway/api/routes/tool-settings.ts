/**
 * @module The assistant's tools and their modes over `/api`:
 *
 * ```
 * GET /api/settings/tools → {tools: {"<name>": mode, …}, items: [{name, callName, kind, mode, sensitive, description, parameters}]}
 * PUT /api/settings/tools {tools?: {"<name>": mode}, sensitive?: {"<name>": boolean}} → the same as GET
 * ```
 *
 * The catalogue is the personal tenant's contracts (assistant/tool-catalogue.ts); the rules of a
 * change are assistant/tool-modes.ts's: an action is `off` or `ask`, a query `off`, `read` or `ask`,
 * a name not in the catalogue is `400` naming it, a name not sent keeps its mode.
 *
 * No change here needs a step-up, not even turning a tool on or marking it not sensitive: a mode
 * decides only what the assistant may propose. Every call of an `ask` tool still waits for the
 * person's approval, and an action can never be `read`, so no setting lets the assistant change a
 * record on its own; `read` lets it run a query, which reads what the person can read anyway.
 * Sensitivity adds a step-up to approving, on top of the approval itself.
 */
import type { Hono } from "hono";
import { HttpProblem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import type { NodeSettings } from "../assistant-host/node-settings.ts";
import { type AssistantTool, toolCatalogue } from "../assistant-host/tool-catalogue.ts";
import { changeToolSettings, readToolSettings, TOOLS_SETTING } from "../assistant-host/tool-modes.ts";
import type { PersonReader } from "../personal/person-reader.ts";
import { jsonBody } from "../request-body.ts";

/** What the tool settings need; without `settings` (no assistant) the routes are not served. */
export interface ToolSettingsDeps {
  readonly reader: PersonReader;
  readonly settings?: NodeSettings;
}

/** Mounts `GET`/`PUT /api/settings/tools`. */
export function mountToolSettingsRoutes(api: Hono<ApiEnv>, deps: ToolSettingsDeps): void {
  const { reader, settings } = deps;
  if (settings === undefined) return;

  api.get("/api/settings/tools", (c) => {
    sessionOf(c);
    return c.json(toolSettingsView(toolCatalogue(reader, settings)));
  });

  api.put("/api/settings/tools", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["tools", "sensitive"]);
    const changed = changeToolSettings(toolCatalogue(reader, settings), readToolSettings(settings), body);
    if (!changed.ok) throw new HttpProblem(problem(400, "bad-settings", changed.errors.map((e) => e.detail).join("; "), changed.errors));
    try {
      settings.put(TOOLS_SETTING, changed.value);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw new HttpProblem(problem(400, "bad-settings", "too many tools are set apart from their defaults to store: turn some back to their defaults"));
    }
    return c.json(toolSettingsView(toolCatalogue(reader, settings)));
  });
}

/** The answer of both routes: each tool's mode by name, and the tools as the settings page shows them. */
export function toolSettingsView(catalogue: readonly AssistantTool[]): { tools: Record<string, string>; items: object[] } {
  return {
    tools: Object.fromEntries(catalogue.map((t) => [t.name, t.mode])),
    items: catalogue.map((t) => ({ name: t.name, callName: t.callName, kind: t.kind, mode: t.mode, sensitive: t.sensitive, description: t.description, parameters: t.parameters })),
  };
}
