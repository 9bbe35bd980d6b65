/**
 * Model connections and the first-run model step on a real `charter node`, against the OpenAI and
 * Anthropic doubles running as local servers: setting a key needs a step-up and no answer ever
 * holds it; the set-up routes list a provider's models, try one and choose it (then the bootstrap
 * says a model is configured); a provider's failure is `502 model-failed` with its kind; an
 * abandoned try stops the provider's call; the settings routes check types, bounds and
 * connections; and, at the end, no key is in the node's logs or in any answer it gave.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Answer, ApiClient, type CallOptions, createAccount, printedSetupCode, signIn, stepUp } from "./helpers/api-client.ts";
import { type Charter, cleanup, startCharter, stopCharter, waitFor } from "./helpers/charter-process.ts";
import { AnthropicDouble } from "./helpers/model-doubles/anthropic-double.ts";
import { OpenAiDouble } from "./helpers/model-doubles/openai-double.ts";
import type { SoftAuthenticator } from "./helpers/soft-authenticator.ts";

const ANTHROPIC_KEY = "sk-ant-double-7c1e5a9f3b2d4e6f8a0b";
const OPENAI_KEY = "sk-proj-double-4f2a8c6e0b1d3f5a7c9e";
const WRONG_KEY = "sk-ant-wrong-0a9b8c7d6e5f4a3b2c1d";
const KEYS = [ANTHROPIC_KEY, OPENAI_KEY, WRONG_KEY];

describe("model connections and the first-run model step", () => {
  let node: Charter;
  let api: ApiClient;
  let anthropic: AnthropicDouble;
  let openai: OpenAiDouble;
  let ollama: OpenAiDouble;
  let cookie = "";
  let auth: SoftAuthenticator;
  /** Every answer body the node gave this test, as text. */
  const bodies: string[] = [];
  const call = async (method: string, path: string, options: CallOptions = {}): Promise<Answer> => {
    const answer = await api.call(method, path, { cookie, ...options });
    bodies.push(JSON.stringify(answer.body));
    return answer;
  };
  const fields = (answer: Answer) => (answer.body.errors as { pointer: string }[]).map((e) => e.pointer);

  before(async () => {
    [node, anthropic, openai, ollama] = await Promise.all([
      startCharter({ edition: "node" }),
      AnthropicDouble.start({ apiKey: ANTHROPIC_KEY, models: ["claude-double", "claude-double-mini"] }),
      OpenAiDouble.start({ apiKey: OPENAI_KEY, models: ["gpt-double"] }),
      OpenAiDouble.start({ models: ["llama3.2", "qwen3"] }),
    ]);
    api = new ApiClient(node);
    ({ cookie, auth } = await createAccount(api, printedSetupCode(node)));
  });
  after(async () => {
    await Promise.all([anthropic.close(), openai.close(), ollama.close()]);
    await stopCharter(node);
    cleanup(node.dataDir);
  });

  it("setting a key needs a step-up; then the connection is listed with hasKey and without its key", async () => {
    const put = { provider: "anthropic", key: ANTHROPIC_KEY, baseUrl: anthropic.baseURL };
    const refused = await call("PUT", "/api/connections/claude/key", { body: put });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "step-up-required");
    assert.deepEqual((await call("GET", "/api/connections")).body, { items: [] }, "nothing was kept");

    await stepUp(api, auth, cookie);
    const set = await call("PUT", "/api/connections/claude/key", { body: put });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body, { id: "claude", provider: "anthropic", baseUrl: anthropic.baseURL, hasKey: true, memory: false, createdAt: set.body.createdAt, updatedAt: set.body.updatedAt });
    const local = await call("PUT", "/api/connections/ollama/key", { body: { provider: "openai", key: "", baseUrl: ollama.baseURL } });
    assert.equal(local.status, 200, JSON.stringify(local.body));
    assert.equal(local.body.hasKey, false, "a local server needs no key");
    const hosted = await call("PUT", "/api/connections/openai/key", { body: { provider: "openai", key: OPENAI_KEY, baseUrl: openai.baseURL, memory: true } });
    assert.equal(hosted.body.memory, true);

    const listed = await call("GET", "/api/connections");
    assert.deepEqual(
      listed.body.items.map((c: { id: string; hasKey: boolean }) => [c.id, c.hasKey]),
      [["claude", true], ["ollama", false], ["openai", true]],
    );
    assert.ok(!JSON.stringify(listed.body).includes(ANTHROPIC_KEY.slice(0, 12)), "no part of a key");
  });

  it("a connection's id, provider, key and base URL are checked: 400 naming each field, nothing kept", async () => {
    const bad = await call("PUT", "/api/connections/c2/key", { body: { provider: "gemini", key: 7, baseUrl: "http://me:secret@example.com/v1", memory: "yes" } });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.deepEqual(fields(bad).sort(), ["#/baseUrl", "#/key", "#/memory", "#/provider"]);
    const keyless = await call("PUT", "/api/connections/c2/key", { body: { provider: "openai", key: "", baseUrl: "https://api.openai.com/v1" } });
    assert.deepEqual(fields(keyless), ["#/key"], "a hosted endpoint needs a key");
    const noKeyAnthropic = await call("PUT", "/api/connections/c2/key", { body: { provider: "anthropic", key: "" } });
    assert.deepEqual(fields(noKeyAnthropic), ["#/key"]);
    const unknown = await call("PUT", "/api/connections/c2/key", { body: { provider: "openai", key: OPENAI_KEY, model: "x" } });
    assert.equal(unknown.status, 400);
    assert.deepEqual(fields(unknown), ["#/model"]);
    const badId = await call("PUT", `/api/connections/${"x".repeat(65)}/key`, { body: { provider: "openai", key: OPENAI_KEY } });
    assert.equal(badId.status, 400, JSON.stringify(badId.body));
    assert.equal((await call("GET", "/api/connections")).body.items.length, 3);
  });

  it("set-up: the providers, a provider's models, a try, and the choice the bootstrap then reports", async () => {
    const providers = await call("GET", "/api/setup/model/providers");
    assert.equal(providers.status, 200);
    assert.deepEqual(providers.body.items.map((p: { provider: string }) => p.provider), ["openai", "anthropic"]);
    const openaiExamples = providers.body.items[0].examples.map((e: { baseUrl: string }) => e.baseUrl);
    assert.deepEqual(openaiExamples, ["https://api.openai.com/v1", "http://localhost:11434/v1"]);

    assert.deepEqual((await call("GET", "/api/bootstrap")).body.model, { configured: false });
    const models = await call("POST", "/api/setup/model/models", { body: { connection: "claude" } });
    assert.equal(models.status, 200, JSON.stringify(models.body));
    assert.deepEqual(models.body, { items: ["claude-double", "claude-double-mini"] });
    assert.deepEqual((await call("POST", "/api/setup/model/models", { body: { connection: "ollama" } })).body, { items: ["llama3.2", "qwen3"] });

    anthropic.reply({ text: ["Hello", " from the double."] });
    const tried = await call("POST", "/api/setup/model/try", { body: { connection: "claude", model: "claude-double" } });
    assert.equal(tried.status, 200, JSON.stringify(tried.body));
    assert.equal(tried.body.model, "claude-double");
    assert.equal(tried.body.text, "Hello from the double.");
    assert.ok(Number.isInteger(tried.body.ms) && tried.body.ms >= 0);
    const sent = anthropic.requests.at(-1)!.body;
    assert.equal(sent.max_tokens, 64, "a try asks for at most 64 tokens");
    assert.equal(sent.model, "claude-double");

    ollama.reply({ text: ["Hi", "!"] });
    const local = await call("POST", "/api/setup/model/try", { body: { connection: "ollama", model: "llama3.2", prompt: "Say hi." } });
    assert.equal(local.body.text, "Hi!");
    assert.equal(ollama.requests.at(-1)!.body.messages.at(-1).content, "Say hi.");

    const chosen = await call("POST", "/api/setup/model/choose", { body: { connection: "claude", model: "claude-double" } });
    assert.equal(chosen.status, 200, JSON.stringify(chosen.body));
    assert.deepEqual(chosen.body, { conversation: { connection: "claude", model: "claude-double" } });
    assert.deepEqual((await call("GET", "/api/settings/models")).body, chosen.body);
    assert.deepEqual((await call("GET", "/api/bootstrap")).body.model, { configured: true, connection: "claude", model: "claude-double" });

    const unknown = await call("POST", "/api/setup/model/choose", { body: { connection: "nobody", model: "m" } });
    assert.equal(unknown.status, 400);
    assert.deepEqual(fields(unknown), ["#/connection"]);
    const noModel = await call("POST", "/api/setup/model/try", { body: { connection: "claude" } });
    assert.deepEqual(fields(noModel), ["#/model"]);
  });

  it("a provider's failure is 502 model-failed with its kind, and never its key", async () => {
    const wrong = await call("PUT", "/api/connections/wrong/key", { body: { provider: "anthropic", key: WRONG_KEY, baseUrl: anthropic.baseURL } });
    assert.equal(wrong.status, 200, JSON.stringify(wrong.body));
    const refused = await call("POST", "/api/setup/model/models", { body: { connection: "wrong" } });
    assert.equal(refused.status, 502, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "model-failed");
    assert.equal(refused.body.kind, "auth");
    assert.ok(refused.body.detail.length > 0);

    openai.reply({ error: { status: 500, message: "The double broke." } });
    const broken = await call("POST", "/api/setup/model/try", { body: { connection: "openai", model: "gpt-double" } });
    assert.equal(broken.status, 502);
    assert.equal(broken.body.kind, "server");

    const closed = await freePort();
    await call("PUT", "/api/connections/gone/key", { body: { provider: "openai", key: "", baseUrl: `http://127.0.0.1:${closed}/v1` } });
    const unreachable = await call("POST", "/api/setup/model/models", { body: { connection: "gone" } });
    assert.equal(unreachable.status, 502);
    assert.equal(unreachable.body.kind, "unreachable");
  });

  it("an abandoned try stops the provider's call", async () => {
    ollama.reply({ text: ["never", "ends"], stallAfter: 1 });
    const seen = ollama.requests.length;
    const abandon = new AbortController();
    const pending = fetch(`${api.url}/api/setup/model/try`, {
      method: "POST",
      headers: { origin: api.origin, cookie, "content-type": "application/json" },
      body: JSON.stringify({ connection: "ollama", model: "llama3.2" }),
      signal: abandon.signal,
    }).catch((error: unknown) => error);
    const request = await waitFor("the try to reach the provider", () => ollama.requests[seen]);
    abandon.abort();
    assert.ok((await pending) instanceof Error, "the caller gave up");
    await Promise.race([request.closed, new Promise((_, reject) => setTimeout(() => reject(new Error("the provider's call was left open")), 5_000))]);
    assert.equal(request.closedEarly, true, "the node closed its call to the provider");
  });

  it("settings: defaults, merges, bounds, types, unknown fields and unknown connections", async () => {
    assert.deepEqual((await call("GET", "/api/settings/autonomy")).body, { enabled: false, intervalMinutes: 60, turnTokenBudget: 20_000 });
    const on = await call("PUT", "/api/settings/autonomy", { body: { enabled: true, intervalMinutes: 30 } });
    assert.deepEqual(on.body, { enabled: true, intervalMinutes: 30, turnTokenBudget: 20_000 });
    const bounds = await call("PUT", "/api/settings/autonomy", { body: { intervalMinutes: 4, turnTokenBudget: 1_000_001 } });
    assert.equal(bounds.status, 400);
    assert.equal(bounds.body.code, "bad-settings");
    assert.deepEqual(fields(bounds), ["#/intervalMinutes", "#/turnTokenBudget"]);
    const typed = await call("PUT", "/api/settings/autonomy", { body: { enabled: "yes", intervalMinutes: 10_080 } });
    assert.equal(typed.body.code, "malformed-body");
    assert.deepEqual(fields(typed), ["#/enabled"]);
    assert.deepEqual((await call("GET", "/api/settings/autonomy")).body, on.body, "a refused PUT changes nothing");
    assert.equal((await call("PUT", "/api/settings/autonomy", { body: { budget: 5 } })).status, 400, "unknown field");

    assert.deepEqual((await call("GET", "/api/settings/openaiRouting")).body, { maxTokens: 4096, temperature: null, responseTimeoutSeconds: 300, idleTimeoutSeconds: 120, retries: 3 });
    const tuned = await call("PUT", "/api/settings/openaiRouting", { body: { temperature: 0.3, retries: 0 } });
    assert.deepEqual(tuned.body, { maxTokens: 4096, temperature: 0.3, responseTimeoutSeconds: 300, idleTimeoutSeconds: 120, retries: 0 });
    const over = await call("PUT", "/api/settings/anthropicRouting", { body: { temperature: 1.5, maxTokens: 0, idleTimeoutSeconds: 1.5 } });
    assert.deepEqual(fields(over).sort(), ["#/idleTimeoutSeconds", "#/maxTokens", "#/temperature"]);
    assert.equal((await call("GET", "/api/settings/anthropicRouting")).body.temperature, null);

    const ghost = await call("PUT", "/api/settings/models", { body: { summaries: { connection: "nobody", model: "m" } } });
    assert.equal(ghost.status, 400);
    assert.deepEqual(fields(ghost), ["#/summaries/connection"]);
    const extra = await call("PUT", "/api/settings/models", { body: { planning: { connection: "ollama", model: "qwen3", why: 1 } } });
    assert.deepEqual(fields(extra), ["#/planning/why"]);
    assert.equal((await call("PUT", "/api/settings/models", { body: { drafting: null } })).status, 400);
    const models = await call("PUT", "/api/settings/models", { body: { planning: { connection: "ollama", model: "qwen3" } } });
    assert.deepEqual(models.body, { conversation: { connection: "claude", model: "claude-double" }, planning: { connection: "ollama", model: "qwen3" } });
    const cleared = await call("PUT", "/api/settings/models", { body: { planning: null } });
    assert.deepEqual(cleared.body, { conversation: { connection: "claude", model: "claude-double" } });

    assert.deepEqual((await call("GET", "/api/settings/routing")).body, { conversation: [], summaries: [], planning: [] });
    const six = Array.from({ length: 6 }, () => ({ connection: "ollama", model: "llama3.2" }));
    const tooMany = await call("PUT", "/api/settings/routing", { body: { conversation: six } });
    assert.deepEqual(fields(tooMany), ["#/conversation"]);
    const badStep = await call("PUT", "/api/settings/routing", { body: { summaries: [{ connection: "ollama", model: "" }, { connection: "nobody", model: "m" }] } });
    assert.deepEqual(fields(badStep), ["#/summaries/0/model", "#/summaries/1/connection"]);
    const routing = await call("PUT", "/api/settings/routing", { body: { conversation: [{ connection: "ollama", model: "llama3.2" }] } });
    assert.deepEqual(routing.body, { conversation: [{ connection: "ollama", model: "llama3.2" }], summaries: [], planning: [] });
  });

  it("without a fresh step-up: memory may be turned off but not on; keys may not be set or deleted", async () => {
    const plain = await signIn(api, auth);
    const as = { cookie: plain };
    assert.equal((await call("PATCH", "/api/connections/ollama", { ...as, body: { memory: true } })).body.code, "step-up-required");
    const off = await call("PATCH", "/api/connections/openai", { ...as, body: { memory: false } });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.equal(off.body.memory, false);
    assert.equal((await call("PUT", "/api/connections/ollama/key", { ...as, body: { provider: "openai", key: "", baseUrl: ollama.baseURL } })).status, 403);
    assert.equal((await call("DELETE", "/api/connections/ollama/key", as)).status, 403);
    assert.equal((await call("PATCH", "/api/connections/nobody", { ...as, body: { memory: false } })).status, 404);
    assert.equal((await call("PATCH", "/api/connections/ollama", { ...as, body: { memory: "on" } })).status, 400);
    const on = await call("PATCH", "/api/connections/ollama", { body: { memory: true } });
    assert.equal(on.body.memory, true, "the stepped-up session may");
  });

  it("DELETE removes a connection (404 when there is none); the conversation's model then falls to its fallback", async () => {
    await stepUp(api, auth, cookie);
    const removed = await call("DELETE", "/api/connections/claude/key");
    assert.equal(removed.status, 204);
    assert.equal((await call("DELETE", "/api/connections/claude/key")).status, 404);
    assert.ok(!(await call("GET", "/api/connections")).body.items.some((c: { id: string }) => c.id === "claude"));
    assert.deepEqual((await call("GET", "/api/bootstrap")).body.model, { configured: true, connection: "ollama", model: "llama3.2" });
    await call("PUT", "/api/settings/routing", { body: { conversation: [] } });
    assert.deepEqual((await call("GET", "/api/bootstrap")).body.model, { configured: false });
  });

  it("a node keeps at most 50 connections", async () => {
    const have = (await call("GET", "/api/connections")).body.items.length as number;
    for (let i = have; i < 50; i++) {
      const made = await call("PUT", `/api/connections/extra-${i}/key`, { body: { provider: "openai", key: "", baseUrl: ollama.baseURL } });
      assert.equal(made.status, 200, JSON.stringify(made.body));
    }
    const more = await call("PUT", "/api/connections/one-too-many/key", { body: { provider: "openai", key: "", baseUrl: ollama.baseURL } });
    assert.equal(more.status, 409);
    assert.equal(more.body.code, "too-many-connections");
    assert.equal((await call("PUT", "/api/connections/ollama/key", { body: { provider: "openai", key: "", baseUrl: ollama.baseURL } })).status, 200, "replacing one is not adding one");
  });

  it("no key is in the node's logs, its output, or any answer it gave", async () => {
    const logs = filesUnder(join(node.dataDir, "logs"));
    assert.ok(logs.length > 0, "the node keeps logs");
    const texts = [...logs.map((path) => readFileSync(path, "utf8")), node.stdout, node.stderr, ...bodies];
    assert.ok(bodies.length > 50);
    assert.ok(texts.some((text) => text.includes("model-failed")), "the failures were answered and logged");
    for (const key of KEYS) {
      for (const text of texts) assert.ok(!text.includes(key), `a key was found in: ${text.slice(0, 200)}`);
    }
  });
});

/** A port nothing listens on (taken and let go). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
