import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { drain, failureOf, textOf } from "../../test/helpers/model-doubles/drain.ts";
import { OpenAiDouble } from "../../test/helpers/model-doubles/openai-double.ts";
import type { ModelRequest } from "./model.ts";
import { openAiCompatibleProvider } from "./openai-compatible.ts";

const KEY = "sk-openai-double-key-9f8e7d6c5b4a";
const FORECAST = { name: "forecast", description: "The weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "llama3.2", system: "You are terse.", messages: [{ role: "user", content: "hi" }], tools: [], maxTokens: 256, ...extra };
}

const never = () => new AbortController().signal;

describe("the OpenAI-compatible provider, against the chat-completions double", () => {
  let double: OpenAiDouble;
  let keyless: OpenAiDouble;
  before(async () => {
    double = await OpenAiDouble.start({ apiKey: KEY, models: ["gpt-double", "gpt-double-mini"] });
    keyless = await OpenAiDouble.start({ models: ["llama3.2"] });
  });
  after(async () => {
    await double.close();
    await keyless.close();
  });
  const provider = () => openAiCompatibleProvider({ baseURL: double.baseURL, apiKey: KEY });

  test("streams text, usage and the end; sends the system text, the tools' JSON Schema and the token limit", async () => {
    double.reply({ text: ["Hel", "lo"], usage: { prompt: 30, completion: 2 } });
    const { events, error } = await drain(provider().stream(request({ tools: [FORECAST], temperature: 0.2 }), never()));
    assert.equal(error, undefined);
    assert.deepEqual(events, [
      { type: "text", delta: "Hel" },
      { type: "text", delta: "lo" },
      { type: "usage", inputTokens: 30, outputTokens: 2 },
      { type: "done", stopReason: "end" },
    ]);
    const sent = double.requests.at(-1)!;
    assert.equal(sent.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(sent.body.messages, [
      { role: "system", content: "You are terse." },
      { role: "user", content: "hi" },
    ]);
    assert.deepEqual(sent.body.tools, [{ type: "function", function: FORECAST }]);
    assert.equal(sent.body.max_tokens, 256);
    assert.equal(sent.body.temperature, 0.2);
    assert.equal(sent.body.stream, true);
    assert.deepEqual(sent.body.stream_options, { include_usage: true });
  });

  test("two tool calls in one reply: relayed as deltas, given whole at the end; a conversation with results is sent back", async () => {
    const first = JSON.stringify({ city: "Lyon" });
    const second = JSON.stringify({ city: "Nantes" });
    double.reply({ text: ["Let me look."], toolCalls: [{ id: "call_a", name: "forecast", arguments: first, argumentParts: 3 }, { id: "call_b", name: "forecast", arguments: second, argumentParts: 2 }] });
    const conversation = request({
      tools: [FORECAST],
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: "", toolCalls: [{ id: "call_0", name: "forecast", argumentsJson: '{"city":"Paris"}' }] },
        { role: "tool", toolCallId: "call_0", content: "no such station", isError: true },
      ],
    });
    const { events } = await drain(provider().stream(conversation, never()));
    const deltas = events.filter((event) => event.type === "tool-call-delta");
    assert.equal(deltas.length, 5);
    assert.equal(deltas.filter((d) => d.id === "call_a").map((d) => d.argumentsDelta).join(""), first);
    assert.deepEqual(events.filter((event) => event.type === "tool-call"), [
      { type: "tool-call", id: "call_a", name: "forecast", argumentsJson: first },
      { type: "tool-call", id: "call_b", name: "forecast", argumentsJson: second },
    ]);
    assert.equal(textOf(events), "Let me look.");
    assert.deepEqual(events.at(-1), { type: "done", stopReason: "tool-calls" });
    assert.deepEqual(double.requests.at(-1)!.body.messages.slice(2), [
      { role: "assistant", content: null, tool_calls: [{ id: "call_0", type: "function", function: { name: "forecast", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_0", content: "Error: no such station" },
    ]);
  });

  test("a server that needs no key (Ollama) gets no Authorization header; finish_reason stop with tool calls still means tool calls", async () => {
    keyless.reply({ toolCalls: [{ id: "call_x", name: "forecast", arguments: "{}" }], finishReason: "stop" });
    const { events } = await drain(openAiCompatibleProvider({ baseURL: keyless.baseURL }).stream(request(), never()));
    assert.equal(keyless.requests.at(-1)!.headers.authorization, undefined);
    assert.deepEqual(events.at(-1), { type: "done", stopReason: "tool-calls" });
  });

  test("each refusal is its kind, with status and retry-after, and no message holds the key", async () => {
    double.reply(
      { error: { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}. Also ${KEY.slice(3, 20)}…`, type: "invalid_request_error", code: "invalid_api_key" } } } },
      { error: { status: 429, headers: { "retry-after": "7" }, message: "Rate limit reached" } },
      { error: { status: 500, message: "The server had an error" } },
      { error: { status: 503, message: "Overloaded" } },
      { error: { status: 400, message: "Invalid 'messages'" } },
      { error: { status: 403, message: "Country not supported" } },
    );
    const seen = [];
    for (let i = 0; i < 6; i++) seen.push(await failureOf(provider().stream(request(), never())));
    assert.deepEqual(seen.map((e) => [e.kind, e.status]), [["auth", 401], ["rate-limited", 429], ["server", 500], ["server", 503], ["bad-request", 400], ["auth", 403]]);
    assert.equal(seen[1]!.retryAfterMs, 7_000);
    for (const error of seen) {
      assert.ok(!error.message.includes(KEY) && !error.message.includes(KEY.slice(3, 20)), error.message);
      assert.ok(!/\n/.test(error.message));
      assert.ok(!JSON.stringify({ ...error }).includes(KEY.slice(3, 20)));
    }
    assert.match(seen[0]!.message, /^openai-compatible: HTTP 401 \(auth\): Incorrect API key provided: \[key\]/);
  });

  test("a stream cut halfway is `cut`; one with a frame that is not JSON is `malformed`", async () => {
    double.reply({ text: ["a", "b", "c", "d"], cutAfter: 3 }, { text: ["a", "b"], malformedAfter: 2 }, { text: ["a"], finishReason: "stop", cutAfter: 3 });
    const cut = await drain(provider().stream(request(), never()));
    assert.equal(cut.error?.kind, "cut");
    assert.equal(textOf(cut.events), "ab");
    assert.equal((await failureOf(provider().stream(request(), never()))).kind, "malformed");
    // The finish reason arrived, then the connection broke before the usage and [DONE]: still a cut.
    const whole = await drain(provider().stream(request(), never()));
    assert.equal(whole.error?.kind, "cut");
  });

  // The double stalls and never ends the stream: only the abort ends the call (a hang fails on the test's timeout).
  test("cancelling mid-stream ends the call, and the double sees the socket close", { timeout: 30_000 }, async () => {
    double.reply({ text: ["one", "two", "three"], stallAfter: 2 });
    const controller = new AbortController();
    const stream = provider().stream(request(), controller.signal)[Symbol.asyncIterator]();
    assert.deepEqual((await stream.next()).value, { type: "text", delta: "one" });
    const next = stream.next().then(() => undefined, (e: unknown) => e);
    controller.abort();
    const error = (await next) as { kind?: string };
    assert.equal(error?.kind, "cancelled");
    const sent = double.requests.at(-1)!;
    await sent.closed;
    assert.ok(sent.closedEarly);
  });

  // The whole call may take ten minutes: only the idle limit (150 ms) can end it within the test's timeout.
  test("a provider that stops sending is a timeout, not a hang", { timeout: 30_000 }, async () => {
    double.reply({ text: ["slow"], stallAfter: 2 });
    const limited = openAiCompatibleProvider({ baseURL: double.baseURL, apiKey: KEY, limits: { responseTimeoutMs: 600_000, idleTimeoutMs: 150 } });
    const { events, error } = await drain(limited.stream(request(), never()));
    assert.equal(error?.kind, "timeout");
    assert.equal(textOf(events), "slow");
    assert.match(error?.message ?? "", /idle/);
  });

  test("no server listening is `unreachable`", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const error = await failureOf(openAiCompatibleProvider({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: KEY }).stream(request(), never()));
    assert.equal(error.kind, "unreachable");
    assert.ok(!error.message.includes(KEY));
  });

  test("lists the models; a wrong key is `auth` there too", async () => {
    assert.deepEqual(await provider().listModels(never()), ["gpt-double", "gpt-double-mini"]);
    assert.deepEqual(await openAiCompatibleProvider({ baseURL: keyless.baseURL }).listModels(never()), ["llama3.2"]);
    const error = await openAiCompatibleProvider({ baseURL: double.baseURL, apiKey: "sk-wrong-key-123456" }).listModels(never()).then(() => undefined, (e: unknown) => e);
    assert.equal((error as { kind?: string }).kind, "auth");
  });
});
