/**
 * @module Which model a kind of work goes to, read from the node's settings: the model chosen for
 * the kind (or, when it has none, the conversation's), then the kind's fallbacks in order, each
 * with its connection opened; and the settings of each vendor's calls and of autonomy, with their
 * defaults filled in. Stored values are read through the same checks that admitted them, so a value
 * that does not fit (written by another version) falls back to the default rather than crash a turn.
 */
import type { ConnectionSecret, Connections, ProviderKind } from "./connections.ts";
import type { NodeSettings } from "./node-settings.ts";
import {
  AUTONOMY_DEFAULTS,
  autonomyInput,
  CALL_DEFAULTS,
  callInput,
  type ModelChoice,
  modelsInput,
  routingInput,
  SETTING_NAMES,
  SettingErrors,
  WORK_KINDS,
  type WorkKind,
} from "./settings-input.ts";

export type { ModelChoice, WorkKind } from "./settings-input.ts";

/** One model to try, with its connection opened. */
export interface RouteStep {
  connection: ConnectionSecret;
  model: string;
}

const anyConnection = () => true;

/** The model chosen for each kind of work (a kind without one falls back to conversation's). */
export function modelSettings(settings: NodeSettings): Partial<Record<WorkKind, ModelChoice>> {
  const stored = objectOf(settings.get<unknown>(SETTING_NAMES.models, {}));
  const out: Partial<Record<WorkKind, ModelChoice>> = {};
  for (const kind of WORK_KINDS) {
    const choice = modelsInput({ [kind]: stored[kind] }, new SettingErrors(), anyConnection)[kind];
    if (choice) out[kind] = choice;
  }
  return out;
}

/** The fallbacks of each kind of work, tried in order after its chosen model fails ([] for none). */
export function routingSettings(settings: NodeSettings): Record<WorkKind, ModelChoice[]> {
  const stored = objectOf(settings.get<unknown>(SETTING_NAMES.routing, {}));
  const out = { conversation: [], summaries: [], planning: [] } as Record<WorkKind, ModelChoice[]>;
  for (const kind of WORK_KINDS) out[kind] = routingInput({ [kind]: stored[kind] }, new SettingErrors(), anyConnection)[kind] ?? [];
  return out;
}

/**
 * The models to try for `kind`, in order: the chosen one (the conversation's when `kind` has none),
 * then the kind's fallbacks. A step whose connection is gone, or that repeats an earlier one, is
 * skipped. `[]`: no model is configured.
 */
export function routeFor(kind: WorkKind, settings: NodeSettings, connections: Connections): RouteStep[] {
  return routeChoices(kind, settings, connections).flatMap((choice) => {
    const connection = connections.secret(choice.connection);
    return connection === null ? [] : [{ connection, model: choice.model }];
  });
}

/** The same route as `routeFor` without opening any key: what `/api/bootstrap` and a new message need to know. */
export function routeChoices(kind: WorkKind, settings: NodeSettings, connections: Pick<Connections, "get">): ModelChoice[] {
  const models = modelSettings(settings);
  const chosen = models[kind] ?? models.conversation;
  const steps: ModelChoice[] = [];
  const seen = new Set<string>();
  for (const choice of [...(chosen === undefined ? [] : [chosen]), ...routingSettings(settings)[kind]]) {
    const key = JSON.stringify([choice.connection, choice.model]);
    if (seen.has(key)) continue;
    seen.add(key);
    if (connections.get(choice.connection) !== null) steps.push(choice);
  }
  return steps;
}

/** How calls to `provider`'s models are made: their token limit, temperature, time limits and retries. */
export function vendorCallSettings(settings: NodeSettings, provider: ProviderKind): { maxTokens: number; temperature: number | null; responseTimeoutSeconds: number; idleTimeoutSeconds: number; retries: number } {
  const stored = objectOf(settings.get<unknown>(SETTING_NAMES[provider], {}));
  return { ...CALL_DEFAULTS, ...callInput(stored, provider, new SettingErrors()) };
}

/** Whether the assistant works on its own between conversations, how often, and how many tokens one such turn may spend. */
export function autonomySettings(settings: NodeSettings): { enabled: boolean; intervalMinutes: number; turnTokenBudget: number } {
  const stored = objectOf(settings.get<unknown>(SETTING_NAMES.autonomy, {}));
  return { ...AUTONOMY_DEFAULTS, ...autonomyInput(stored, new SettingErrors()) };
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
