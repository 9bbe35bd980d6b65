import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { AnthropicDouble } from "../../test/helpers/model-doubles/anthropic-double.ts";
import { drain, failureOf, textOf } from "../../test/helpers/model-doubles/drain.ts";
import { anthropicProvider } from "./anthropic.ts";
import type { ModelRequest } from "./model.ts";

const KEY = "sk-ant-double-key-1a2b3c4d5e6f7a8b";
const FORECAST = { name: "forecast", description: "The weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "claude-double-1", system: "You are terse.", messages: [{ role: "user", content: "hi" }], tools: [], maxTokens: 512, ...extra };
}

const never = () => new AbortController().signal;

describe("the Anthropic provider, against the Messages double", () => {
  let double: AnthropicDouble;
  before(async () => {
    double = await AnthropicDouble.start({ apiKey: KEY, models: ["claude-double-1", "claude-double-2"] });
  });
  after(() => double.close());
  const provider = () => anthropicProvider({ apiKey: KEY, baseURL: double.baseURL });

  test("streams text, usage and the end; sends the system text, the tools' input schema and the token limit", async () => {
    double.reply({ text: ["Bon", "jour"], usage: { input: 40, output: 3 } });
    const { events, error } = await drain(provider().stream(request({ tools: [FORECAST], temperature: 0.3 }), never()));
    assert.equal(error, undefined);
    assert.deepEqual(events, [
      { type: "text", delta: "Bon" },
      { type: "text", delta: "jour" },
      { type: "usage", inputTokens: 40, outputTokens: 3 },
      { type: "done", stopReason: "end" },
    ]);
    const sent = double.requests.at(-1)!;
    assert.equal(sent.body.system, "You are terse.");
    assert.deepEqual(sent.body.messages, [{ role: "user", content: "hi" }]);
    assert.deepEqual(sent.body.tools, [{ name: "forecast", description: "The weather", input_schema: FORECAST.parameters }]);
    assert.equal(sent.body.max_tokens, 512);
    assert.equal(sent.body.stream, true);
    assert.equal(sent.body.temperature, undefined);
    assert.match(String(sent.headers["anthropic-version"]), /^\d{4}-\d{2}-\d{2}$/);
  });

  test("two tool uses in one reply: relayed as deltas, given whole at each block's end; tool results go back in one user message", async () => {
    const first = JSON.stringify({ city: "Lyon" });
    const second = JSON.stringify({ city: "Nantes" });
    double.reply({ text: ["Looking."], toolUses: [{ id: "toolu_a", name: "forecast", input: first, inputParts: 3 }, { id: "toolu_b", name: "forecast", input: second, inputParts: 2 }] });
    const conversation = request({
      tools: [FORECAST],
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: "Checking two.", toolCalls: [{ id: "toolu_0", name: "forecast", argumentsJson: '{"city":"Paris"}' }, { id: "toolu_1", name: "forecast", argumentsJson: "{}" }] },
        { role: "tool", toolCallId: "toolu_0", content: "12°C", isError: false },
        { role: "tool", toolCallId: "toolu_1", content: "city is required", isError: true },
        { role: "user", content: "and tomorrow?" },
      ],
    });
    const { events } = await drain(provider().stream(conversation, never()));
    const deltas = events.filter((event) => event.type === "tool-call-delta");
    assert.equal(deltas.length, 5);
    assert.equal(deltas.filter((d) => d.id === "toolu_b").map((d) => d.argumentsDelta).join(""), second);
    assert.deepEqual(events.filter((event) => event.type === "tool-call"), [
      { type: "tool-call", id: "toolu_a", name: "forecast", argumentsJson: first },
      { type: "tool-call", id: "toolu_b", name: "forecast", argumentsJson: second },
    ]);
    assert.equal(textOf(events), "Looking.");
    assert.deepEqual(events.at(-1), { type: "done", stopReason: "tool-calls" });
    assert.deepEqual(double.requests.at(-1)!.body.messages.slice(1), [
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking two." },
          { type: "tool_use", id: "toolu_0", name: "forecast", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_1", name: "forecast", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_0", content: "12°C" },
          { type: "tool_result", tool_use_id: "toolu_1", content: "city is required", is_error: true },
          { type: "text", text: "and tomorrow?" },
        ],
      },
    ]);
  });

  test("each refusal is its kind, with status and retry-after, and no message holds the key", async () => {
    double.reply(
      { error: { status: 401, body: { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } } } },
      { error: { status: 429, headers: { "retry-after": "3" }, message: "rate limit exceeded" } },
      { error: { status: 529, message: "Overloaded" } },
      { error: { status: 500, message: "Internal server error" } },
      { error: { status: 400, message: "messages: roles must alternate" } },
      { text: ["partial"], errorEventAfter: { frames: 4, type: "overloaded_error", message: "Overloaded" } },
    );
    const seen = [];
    for (let i = 0; i < 6; i++) seen.push(await failureOf(provider().stream(request(), never())));
    assert.deepEqual(seen.map((e) => [e.kind, e.status]), [["auth", 401], ["rate-limited", 429], ["server", 529], ["server", 500], ["bad-request", 400], ["server", undefined]]);
    assert.equal(seen[1]!.retryAfterMs, 3_000);
    for (const error of seen) {
      assert.ok(!error.message.includes(KEY) && !error.message.includes(KEY.slice(4, 16)), error.message);
      assert.ok(!/\n/.test(error.message));
    }
    assert.match(seen[5]!.message, /error in the stream \(server\): Overloaded/);
  });

  test("a stream cut halfway is `cut`; one with an event that is not JSON is `malformed`", async () => {
    double.reply({ text: ["a", "b", "c"], cutAfter: 5 }, { text: ["a", "b"], malformedAfter: 4 });
    const cut = await drain(provider().stream(request(), never()));
    assert.equal(cut.error?.kind, "cut");
    assert.equal(textOf(cut.events), "ab");
    const malformed = await drain(provider().stream(request(), never()));
    assert.equal(malformed.error?.kind, "malformed");
    assert.equal(textOf(malformed.events), "a");
  });

  // The double stalls and never ends the stream: only the abort ends the call (a hang fails on the test's timeout).
  test("cancelling mid-stream ends the call, and the double sees the socket close", { timeout: 30_000 }, async () => {
    double.reply({ text: ["one", "two", "three"], stallAfter: 4 });
    const controller = new AbortController();
    const stream = provider().stream(request(), controller.signal)[Symbol.asyncIterator]();
    assert.deepEqual((await stream.next()).value, { type: "text", delta: "one" });
    const next = stream.next().then(() => undefined, (e: unknown) => e);
    controller.abort();
    assert.equal(((await next) as { kind?: string })?.kind, "cancelled");
    const sent = double.requests.at(-1)!;
    await sent.closed;
    assert.ok(sent.closedEarly);
  });

  // The whole call may take ten minutes: only the idle limit (150 ms) can end it within the test's timeout.
  test("a provider that stops sending is a timeout, not a hang", { timeout: 30_000 }, async () => {
    double.reply({ text: ["slow"], stallAfter: 4 });
    const limited = anthropicProvider({ apiKey: KEY, baseURL: double.baseURL, limits: { responseTimeoutMs: 600_000, idleTimeoutMs: 150 } });
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
    const error = await failureOf(anthropicProvider({ apiKey: KEY, baseURL: `http://127.0.0.1:${port}` }).stream(request(), never()));
    assert.equal(error.kind, "unreachable");
  });

  test("lists the models; a wrong key is `auth` there too", async () => {
    assert.deepEqual(await provider().listModels(never()), ["claude-double-1", "claude-double-2"]);
    const error = await anthropicProvider({ apiKey: "sk-ant-wrong-000000", baseURL: double.baseURL }).listModels(never()).then(() => undefined, (e: unknown) => e);
    assert.equal((error as { kind?: string }).kind, "auth");
  });
});
