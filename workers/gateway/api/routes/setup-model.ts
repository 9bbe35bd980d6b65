/**
 * @module The first-run model step, on a connection set with `PUT /api/connections/{id}/key`:
 *
 * ```
 * GET  /api/setup/model/providers                    → {items: [{provider, examples: [{name, baseUrl, needsKey}]}]}
 * POST /api/setup/model/models {connection}          → {items: [model id…]}   (the provider's own list)
 * POST /api/setup/model/try {connection, model, prompt?} → {model, text, ms}  (≤ 64 output tokens, ≤ 30 s)
 * POST /api/setup/model/choose {connection, model}   → the models setting, with it as the conversation's model
 * ```
 *
 * A provider's failure is `502 model-failed` with its `kind` (`auth`, `unreachable`, `timeout`, …)
 * and its one-line message, which never holds the key. A request the caller abandons stops the
 * provider's call. The SDKs are imported here, on first use, not when the gateway starts.
 */
import type { Context, Hono } from "hono";
import { isModelError, type ModelProvider } from "../../../../shared/models/model.ts";
import { HttpProblem, type Problem, problem } from "../../../../shared/problem.ts";
import { type ApiEnv, sessionOf } from "../api-env.ts";
import { DEFAULT_BASE_URLS, PROVIDERS } from "../assistant-host/connection-rules.ts";
import type { ConnectionSecret, Connections } from "../assistant-host/connections.ts";
import { modelSettings, vendorCallSettings } from "../assistant-host/model-route.ts";
import type { NodeSettings } from "../assistant-host/node-settings.ts";
import { choiceOf, SETTING_NAMES, SettingErrors } from "../assistant-host/settings-input.ts";
import { jsonBody } from "../request-body.ts";
import { badField } from "./data-input.ts";

/** What the set-up routes need. */
export interface SetupModelRouteDeps {
  readonly settings: NodeSettings;
  readonly connections: Connections;
}

/** A try's whole call, from the request to the last piece of the answer. */
const TRY_MS = 30_000;
const TRY_MAX_TOKENS = 64;
/** What a try keeps of an answer, whatever a provider sends past its token limit. */
const TRY_MAX_TEXT = 4_000;
const TRY_MAX_PROMPT = 2_000;
const TRY_PROMPT = "Say hello in one short sentence.";

/** Where each kind of provider is usually found; a local server needs no key. */
const EXAMPLES = {
  openai: [
    { name: "OpenAI", baseUrl: DEFAULT_BASE_URLS.openai, needsKey: true },
    { name: "Ollama on this machine", baseUrl: "http://localhost:11434/v1", needsKey: false },
  ],
  anthropic: [{ name: "Anthropic", baseUrl: DEFAULT_BASE_URLS.anthropic, needsKey: true }],
};

/** Mounts the set-up routes. */
export function mountSetupModelRoutes(api: Hono<ApiEnv>, deps: SetupModelRouteDeps): void {
  const { settings, connections } = deps;

  api.get("/api/setup/model/providers", (c) => {
    sessionOf(c);
    return c.json({ items: PROVIDERS.map((provider) => ({ provider, examples: EXAMPLES[provider] })) });
  });

  api.post("/api/setup/model/models", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["connection"]);
    const secret = secretOf(connections, body.connection);
    const items = await onProvider(c, secret, (provider, signal) => provider.listModels(signal));
    return c.json({ items });
  });

  api.post("/api/setup/model/try", async (c) => {
    sessionOf(c);
    const body = await jsonBody(c, ["connection", "model", "prompt"]);
    const { connection, model } = choiceIn(body, connections);
    if (body.prompt !== undefined && (typeof body.prompt !== "string" || body.prompt.length === 0 || body.prompt.length > TRY_MAX_PROMPT)) {
      throw badField("prompt", `prompt must be a text of 1 to ${TRY_MAX_PROMPT} characters`);
    }
    const secret = connections.secret(connection) as ConnectionSecret;
    const { temperature } = vendorCallSettings(settings, secret.provider);
    const started = performance.now();
    const text = await onProvider(c, secret, async (provider, signal, stop) => {
      const request = { model, system: "", messages: [{ role: "user" as const, content: (body.prompt as string | undefined) ?? TRY_PROMPT }], tools: [], maxTokens: TRY_MAX_TOKENS };
      let text = "";
      for await (const event of provider.stream(temperature === null ? request : { ...request, temperature }, signal)) {
        if (event.type === "text") text += event.delta;
        if (text.length >= TRY_MAX_TEXT) {
          stop();
          break;
        }
      }
      return text.slice(0, TRY_MAX_TEXT);
    });
    return c.json({ model, text, ms: Math.round(performance.now() - started) });
  });

  api.post("/api/setup/model/choose", async (c) => {
    sessionOf(c);
    const choice = choiceIn(await jsonBody(c, ["connection", "model"]), connections);
    settings.put(SETTING_NAMES.models, { ...modelSettings(settings), conversation: choice });
    return c.json(modelSettings(settings));
  });
}

/** The connection a body names, opened; a `400` naming the field when there is none. */
function secretOf(connections: Connections, id: unknown): ConnectionSecret {
  if (typeof id !== "string") throw badField("connection", "connection must be a connection id");
  const secret = connections.secret(id);
  if (secret === null) throw new HttpProblem(problem(400, "bad-settings", `no connection ${JSON.stringify(id.slice(0, 64))}`, [{ pointer: "#/connection", detail: "no such connection" }]));
  return secret;
}

/** `{connection, model}` of a body, the connection existing; every wrong field in one `400`. */
function choiceIn(body: { connection?: unknown; model?: unknown }, connections: Connections) {
  const errors = new SettingErrors();
  const choice = choiceOf({ connection: body.connection, model: body.model }, "", errors, (id) => connections.get(id) !== null);
  if (choice === undefined) {
    const detail = errors.list.map((e) => e.detail).join("; ");
    const named = errors.list.map((e) => ({ pointer: e.pointer, detail: e.detail }));
    throw new HttpProblem(errors.list.some((e) => e.type) ? problem(400, "malformed-body", detail, named) : problem(400, "bad-settings", detail, named));
  }
  return choice;
}

/**
 * Runs `call` on `secret`'s provider within TRY_MS, stopped when the caller goes away (or when
 * `call` says it has enough); a provider's failure becomes `502 model-failed`.
 */
async function onProvider<T>(c: Context<ApiEnv>, secret: ConnectionSecret, call: (provider: ModelProvider, signal: AbortSignal, stop: () => void) => Promise<T>): Promise<T> {
  const { adapterFor } = await import("../assistant-host/provider-adapters.ts");
  const provider = adapterFor(secret, { responseTimeoutMs: TRY_MS, idleTimeoutMs: TRY_MS });
  const deadline = AbortSignal.timeout(TRY_MS);
  const enough = new AbortController();
  try {
    return await call(provider, AbortSignal.any([c.req.raw.signal, deadline, enough.signal]), () => enough.abort());
  } catch (error) {
    if (!isModelError(error)) throw error;
    // The deadline ends the call as a cancellation would: to the caller it is a timeout.
    const kind = error.kind === "cancelled" && deadline.aborted ? "timeout" : error.kind;
    const message = kind === error.kind ? error.message : `no answer within ${TRY_MS / 1000} s`;
    const failed: Problem & { kind: string } = { ...problem(502, "model-failed", scrub(message, secret.key)), kind };
    throw new HttpProblem(failed);
  }
}

/** A provider's message, with the key taken out should a provider ever echo it. */
function scrub(message: string, key: string): string {
  return key.length >= 4 ? message.replaceAll(key, "[key]") : message;
}
