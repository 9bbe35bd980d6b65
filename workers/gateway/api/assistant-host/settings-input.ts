/**
 * @module The assistant's model settings as values: which model does which kind of work, the
 * fallbacks of each kind, autonomy, and each vendor's call settings — their defaults, their bounds,
 * and the checks that read them from a request body (or back from storage). Checks collect every
 * wrong field (`#/conversation/model`, `#/maxTokens`) rather than stop at the first.
 */
import type { ProviderKind } from "./connection-rules.ts";

/** The kinds of work a model is chosen for. */
export const WORK_KINDS = ["conversation", "summaries", "planning"] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

/** One model of one connection. */
export interface ModelChoice {
  connection: string;
  model: string;
}

/** The names the settings are kept under (node-settings.ts). */
export const SETTING_NAMES = { models: "models", routing: "routing", autonomy: "autonomy", openai: "openaiRouting", anthropic: "anthropicRouting" } as const;

/** The most fallbacks one kind of work may have. */
export const MAX_FALLBACKS = 5;
/** The longest model id accepted. */
export const MAX_MODEL_ID = 256;

export interface Autonomy {
  enabled: boolean;
  intervalMinutes: number;
  turnTokenBudget: number;
}

/** Autonomy is off until the person turns it on. */
export const AUTONOMY_DEFAULTS: Autonomy = { enabled: false, intervalMinutes: 60, turnTokenBudget: 20_000 };

export interface CallSettings {
  maxTokens: number;
  temperature: number | null;
  responseTimeoutSeconds: number;
  idleTimeoutSeconds: number;
  retries: number;
}

/** A vendor's calls until the person changes them: temperature null leaves it to the provider. */
export const CALL_DEFAULTS: CallSettings = { maxTokens: 4096, temperature: null, responseTimeoutSeconds: 300, idleTimeoutSeconds: 120, retries: 3 };

type Bounds = readonly [min: number, max: number];
const AUTONOMY_BOUNDS = { intervalMinutes: [5, 10_080], turnTokenBudget: [1_000, 1_000_000] } as const satisfies Record<string, Bounds>;
const CALL_BOUNDS = { maxTokens: [1, 200_000], responseTimeoutSeconds: [1, 3_600], idleTimeoutSeconds: [1, 3_600], retries: [0, 10] } as const satisfies Record<string, Bounds>;
/** Anthropic's temperature runs from 0 to 1, OpenAI's to 2. */
const TEMPERATURE_MAX: Readonly<Record<ProviderKind, number>> = { openai: 2, anthropic: 1 };

/** One wrong field of a body, by JSON pointer (`#/conversation/0/model`). */
export interface SettingError {
  readonly pointer: string;
  readonly detail: string;
  /** A value of the wrong type (rather than one of the right type out of its range, or naming nothing). */
  readonly type: boolean;
}

/** Collects the wrong fields of one body. */
export class SettingErrors {
  readonly list: SettingError[] = [];

  wrongType(pointer: string, detail: string): void {
    this.list.push({ pointer: `#/${pointer}`, detail, type: true });
  }

  wrongValue(pointer: string, detail: string): void {
    this.list.push({ pointer: `#/${pointer}`, detail, type: false });
  }
}

/** A `{connection, model}` at `at` ("" for the body itself), naming an existing connection; undefined (and errors) otherwise. */
export function choiceOf(value: unknown, at: string, errors: SettingErrors, exists: (connection: string) => boolean): ModelChoice | undefined {
  const under = (field: string) => (at === "" ? field : `${at}/${field}`);
  const named = (field: string) => (at === "" ? field : `${at.replaceAll("/", ".")}.${field}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    errors.wrongType(at, `${at} must be {connection, model}`);
    return undefined;
  }
  const before = errors.list.length;
  const unknown = Object.keys(value).filter((k) => k !== "connection" && k !== "model");
  for (const k of unknown.slice(0, 5)) errors.wrongType(under(k.slice(0, 64).replaceAll("~", "~0").replaceAll("/", "~1")), "unknown field");
  const { connection, model } = value as { connection?: unknown; model?: unknown };
  if (typeof connection !== "string") errors.wrongType(under("connection"), `${named("connection")} must be a connection id`);
  else if (!exists(connection)) errors.wrongValue(under("connection"), `no connection ${JSON.stringify(connection.slice(0, 64))}`);
  if (typeof model !== "string") errors.wrongType(under("model"), `${named("model")} must be a model id`);
  else if (model.length === 0 || model.length > MAX_MODEL_ID || /\p{Cc}/u.test(model)) errors.wrongValue(under("model"), `${named("model")} must be 1 to ${MAX_MODEL_ID} characters, no control characters`);
  return errors.list.length === before ? { connection: connection as string, model: model as string } : undefined;
}

/** The kinds a models body sets (null clears a kind: it falls back to conversation). */
export function modelsInput(body: Record<string, unknown>, errors: SettingErrors, exists: (connection: string) => boolean): Partial<Record<WorkKind, ModelChoice | null>> {
  const out: Partial<Record<WorkKind, ModelChoice | null>> = {};
  for (const kind of WORK_KINDS) {
    const value = body[kind];
    if (value === undefined) continue;
    if (value === null) out[kind] = null;
    else {
      const choice = choiceOf(value, kind, errors, exists);
      if (choice !== undefined) out[kind] = choice;
    }
  }
  return out;
}

/** The kinds a routing body sets: each a list of at most MAX_FALLBACKS choices (null or [] clears it). */
export function routingInput(body: Record<string, unknown>, errors: SettingErrors, exists: (connection: string) => boolean): Partial<Record<WorkKind, ModelChoice[]>> {
  const out: Partial<Record<WorkKind, ModelChoice[]>> = {};
  for (const kind of WORK_KINDS) {
    const value = body[kind];
    if (value === undefined) continue;
    if (value === null) {
      out[kind] = [];
      continue;
    }
    if (!Array.isArray(value)) {
      errors.wrongType(kind, `${kind} must be a list of {connection, model}`);
      continue;
    }
    if (value.length > MAX_FALLBACKS) {
      errors.wrongValue(kind, `${kind} may hold at most ${MAX_FALLBACKS} fallbacks`);
      continue;
    }
    const choices = value.map((v, i) => choiceOf(v, `${kind}/${i}`, errors, exists));
    if (choices.every((c) => c !== undefined)) out[kind] = choices;
  }
  return out;
}

/** The autonomy fields a body gives, each checked. */
export function autonomyInput(body: Record<string, unknown>, errors: SettingErrors): Partial<Autonomy> {
  const out: Partial<Autonomy> = {};
  if (body.enabled !== undefined) {
    if (typeof body.enabled === "boolean") out.enabled = body.enabled;
    else errors.wrongType("enabled", "enabled must be true or false");
  }
  for (const field of ["intervalMinutes", "turnTokenBudget"] as const) {
    const n = wholeNumber(body[field], field, AUTONOMY_BOUNDS[field], errors);
    if (n !== undefined) out[field] = n;
  }
  return out;
}

/** The call-setting fields a body gives for `provider`, each checked. */
export function callInput(body: Record<string, unknown>, provider: ProviderKind, errors: SettingErrors): Partial<CallSettings> {
  const out: Partial<CallSettings> = {};
  for (const field of ["maxTokens", "responseTimeoutSeconds", "idleTimeoutSeconds", "retries"] as const) {
    const n = wholeNumber(body[field], field, CALL_BOUNDS[field], errors);
    if (n !== undefined) out[field] = n;
  }
  const t = body.temperature;
  if (t === null) out.temperature = null;
  else if (t !== undefined) {
    if (typeof t !== "number") errors.wrongType("temperature", "temperature must be a number or null");
    else if (!(t >= 0 && t <= TEMPERATURE_MAX[provider])) errors.wrongValue("temperature", `temperature must be from 0 to ${TEMPERATURE_MAX[provider]}`);
    else out.temperature = t;
  }
  return out;
}

/** `value` as a whole number within `bounds`, undefined when absent or wrong (and then an error). */
function wholeNumber(value: unknown, field: string, [min, max]: Bounds, errors: SettingErrors): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number") errors.wrongType(field, `${field} must be a number`);
  else if (!Number.isInteger(value) || value < min || value > max) errors.wrongValue(field, `${field} must be a whole number from ${min} to ${max}`);
  else return value;
  return undefined;
}
