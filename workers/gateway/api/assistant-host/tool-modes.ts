/**
 * @module The `tools` setting: each tool's mode (`off`, `read`, `ask`) and whether approving its
 * calls needs a step-up. Deny by default: a tool is `off` until the person turns it on, except
 * `std.memory.Add`, which is `ask` (the notes the assistant would keep wait for the person). An
 * action is never `read`: a change always waits for the person. Only what differs from the
 * defaults is stored, and only for tools in the catalogue, so the setting stays as small as the
 * person's choices. Pure: the stored value and a change in, the new value or field errors out.
 */
import type { NodeSettings } from "./node-settings.ts";

/** How the assistant may use a tool: not at all, run it freely (queries only), or ask the person each time. */
export type ToolMode = "off" | "read" | "ask";

/** The name the setting is stored under. */
export const TOOLS_SETTING = "tools";

/** The most entries one change may carry. */
export const MAX_TOOL_ENTRIES = 2000;

/** The setting as stored: the modes and sensitivities that differ from the defaults. */
export interface ToolSettings {
  readonly tools: Readonly<Record<string, ToolMode>>;
  readonly sensitive: Readonly<Record<string, boolean>>;
}

/** What a mode or sensitivity is decided for. */
export interface ToolKey {
  readonly name: string;
  readonly kind: "action" | "query";
  readonly namespace: string;
  readonly member: string;
  /** A tool server's tool: its mode is set with the server's settings. */
  readonly server?: string;
}

/** A change as `PUT /api/settings/tools` sends it, not yet checked. */
export interface ToolSettingsChange {
  readonly tools?: unknown;
  readonly sensitive?: unknown;
}

/** One wrong entry of a change. */
export interface ToolSettingError {
  readonly pointer: string;
  readonly detail: string;
}

const DEFAULT_ASK = new Set(["std.memory.Add"]);
const SENSITIVE_NAMESPACES = new Set(["std.identities"]);
const SENSITIVE_TOOLS = new Set(["std.persona.SetSensitiveInstructions"]);
const ACTION_MODES: readonly ToolMode[] = ["off", "ask"];
const QUERY_MODES: readonly ToolMode[] = ["off", "read", "ask"];

/** A tool's mode when the person has not chosen one. */
export function defaultMode(tool: Pick<ToolKey, "name">): ToolMode {
  return DEFAULT_ASK.has(tool.name) ? "ask" : "off";
}

/** Whether approving a call of the tool needs a step-up when the person has not said. */
export function defaultSensitive(tool: ToolKey): boolean {
  return (tool.kind === "action" && SENSITIVE_NAMESPACES.has(tool.namespace)) || SENSITIVE_TOOLS.has(tool.name);
}

/** The modes a tool of this kind may have. */
export function modesOf(kind: ToolKey["kind"]): readonly ToolMode[] {
  return kind === "action" ? ACTION_MODES : QUERY_MODES;
}

/** The stored setting; an entry that is not a mode or a boolean is as if absent. */
export function readToolSettings(settings: NodeSettings): ToolSettings {
  const stored = settings.get<unknown>(TOOLS_SETTING, null);
  const record = (x: unknown): Record<string, unknown> => (typeof x === "object" && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : {});
  const value = record(stored);
  const tools = Object.entries(record(value.tools)).filter((e): e is [string, ToolMode] => isMode(e[1]));
  const sensitive = Object.entries(record(value.sensitive)).filter((e): e is [string, boolean] => typeof e[1] === "boolean");
  return { tools: Object.fromEntries(tools), sensitive: Object.fromEntries(sensitive) };
}

/** The mode a tool has under `stored`: the stored one when it is allowed for its kind, else its default. */
export function modeOf(tool: ToolKey, stored: ToolSettings): ToolMode {
  const mode = Object.hasOwn(stored.tools, tool.name) ? stored.tools[tool.name] : undefined;
  return mode !== undefined && modesOf(tool.kind).includes(mode) ? mode : defaultMode(tool);
}

/** Whether approving a call of the tool needs a step-up under `stored`. */
export function sensitiveOf(tool: ToolKey, stored: ToolSettings): boolean {
  const marked = Object.hasOwn(stored.sensitive, tool.name) ? stored.sensitive[tool.name] : undefined;
  return marked ?? defaultSensitive(tool);
}

/**
 * Merges `change` into `stored` for the tools of `catalogue`: a name not sent keeps its mode. Every
 * wrong entry is reported (a name not in the catalogue, a mode its kind may not have, a
 * sensitivity that is not a boolean); the answer keeps only non-default entries of the catalogue.
 */
export function changeToolSettings(catalogue: readonly ToolKey[], stored: ToolSettings, change: ToolSettingsChange): { ok: true; value: ToolSettings } | { ok: false; errors: ToolSettingError[] } {
  const errors: ToolSettingError[] = [];
  const tools = entriesOf(change.tools, "tools", errors);
  const sensitive = entriesOf(change.sensitive, "sensitive", errors);
  if (errors.length > 0) return { ok: false, errors };
  if (tools.length + sensitive.length > MAX_TOOL_ENTRIES) return { ok: false, errors: [{ pointer: "#/tools", detail: `at most ${MAX_TOOL_ENTRIES} entries in one change` }] };
  const byName = new Map(catalogue.map((t) => [t.name, t]));
  const modes = new Map(catalogue.map((t) => [t.name, modeOf(t, stored)]));
  const marks = new Map(catalogue.map((t) => [t.name, sensitiveOf(t, stored)]));
  for (const [name, mode] of tools) {
    const tool = byName.get(name);
    const pointer = `#/tools/${pointerToken(name)}`;
    if (tool === undefined) errors.push({ pointer, detail: `${shown(name)} is not a tool of the catalogue` });
    else if (tool.server !== undefined) errors.push({ pointer, detail: `${name} is a tool server's: set it at /api/settings/integrations/tools/${tool.server}/tools` });
    else if (!isMode(mode)) errors.push({ pointer, detail: `the mode of ${name} is one of ${modesOf(tool.kind).join(", ")}` });
    else if (!modesOf(tool.kind).includes(mode)) errors.push({ pointer, detail: `${name} is an action: off or ask (a change always waits for the person)` });
    else modes.set(name, mode);
  }
  for (const [name, mark] of sensitive) {
    const pointer = `#/sensitive/${pointerToken(name)}`;
    if (!byName.has(name)) errors.push({ pointer, detail: `${shown(name)} is not a tool of the catalogue` });
    else if (typeof mark !== "boolean") errors.push({ pointer, detail: `whether ${name} is sensitive is true or false` });
    else marks.set(name, mark);
  }
  if (errors.length > 0) return { ok: false, errors: errors.slice(0, 50) };
  return {
    ok: true,
    value: {
      tools: Object.fromEntries(catalogue.filter((t) => modes.get(t.name) !== defaultMode(t)).map((t) => [t.name, modes.get(t.name) as ToolMode])),
      sensitive: Object.fromEntries(catalogue.filter((t) => marks.get(t.name) !== defaultSensitive(t)).map((t) => [t.name, marks.get(t.name) as boolean])),
    },
  };
}

/** The entries of a change's map; not an object → one error. The body's own JSON limits bound its size. */
function entriesOf(value: unknown, field: string, errors: ToolSettingError[]): [string, unknown][] {
  if (value === undefined) return [];
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    errors.push({ pointer: `#/${field}`, detail: `${field} is an object of tool names` });
    return [];
  }
  return Object.entries(value);
}

function isMode(x: unknown): x is ToolMode {
  return x === "off" || x === "read" || x === "ask";
}

/** A name from the request as a message shows it: quoted, at most 100 characters. */
function shown(name: string): string {
  return JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name);
}

function pointerToken(name: string): string {
  return name.slice(0, 200).replaceAll("~", "~0").replaceAll("/", "~1");
}
