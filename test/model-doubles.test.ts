// The model-provider doubles against the official `openai` and `@anthropic-ai/sdk` clients: what the
// doubles send must be what those clients parse, so the doubles cannot drift from the real protocols.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { AnthropicDouble } from "./helpers/model-doubles/anthropic-double.ts";
import { OpenAiDouble } from "./helpers/model-doubles/openai-double.ts";

const KEY = "sk-double-test-key-0123456789";

describe("the OpenAI chat-completions double, through the official openai client", () => {
  let double: OpenAiDouble;
  let client: OpenAI;
  before(async () => {
    double = await OpenAiDouble.start({ apiKey: KEY, models: ["llama3.2", "qwen3"] });
    client = new OpenAI({ apiKey: KEY, baseURL: double.baseURL, maxRetries: 0, logLevel: "off" });
  });
  after(() => double.close());

  test("streams text in chunks, ends with a finish reason and usage", async () => {
    double.reply({ text: ["Hel", "lo ", "there"], usage: { prompt: 12, completion: 3 } });
    const stream = await client.chat.completions.create({ model: "llama3.2", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } });
    let text = "";
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, "Hello there");
    assert.equal(finish, "stop");
    assert.deepEqual(usage, { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
    assert.deepEqual(double.requests.at(-1)?.body.messages, [{ role: "user", content: "hi" }]);
  });

  test("a tool call's arguments, split across deltas, are assembled by the client's stream helper", async () => {
    const args = JSON.stringify({ city: "Lyon", days: 3 });
    double.reply({ toolCalls: [{ id: "call_1", name: "forecast", arguments: args, argumentParts: 4 }] });
    const runner = client.chat.completions.stream({ model: "qwen3", messages: [{ role: "user", content: "weather?" }], tools: [{ type: "function", function: { name: "forecast", parameters: { type: "object" } } }] });
    const completion = await runner.finalChatCompletion();
    const call = completion.choices[0]?.message.tool_calls?.[0];
    assert.equal(completion.choices[0]?.finish_reason, "tool_calls");
    assert.equal(call?.type === "function" && call.function.name, "forecast");
    assert.equal(call?.type === "function" && call.function.arguments, args);
    assert.equal(call?.id, "call_1");
  });

  test("answers without streaming, and lists its models", async () => {
    double.reply({ text: ["plain"], usage: { prompt: 2, completion: 1 } });
    const completion = await client.chat.completions.create({ model: "qwen3", messages: [{ role: "user", content: "x" }] });
    assert.equal(completion.choices[0]?.message.content, "plain");
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.deepEqual(ids, ["llama3.2", "qwen3"]);
  });

  test("a 429 reaches the client as a RateLimitError with its retry-after header", async () => {
    double.reply({ error: { status: 429, headers: { "retry-after": "7" }, message: "Rate limit reached" } });
    const error = await client.chat.completions.create({ model: "qwen3", messages: [{ role: "user", content: "x" }], stream: true }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof OpenAI.RateLimitError);
    assert.equal(error.status, 429);
    assert.equal(error.headers?.get("retry-after"), "7");
    assert.match(error.message, /Rate limit reached/);
  });

  test("a wrong key is a 401 AuthenticationError", async () => {
    const wrong = new OpenAI({ apiKey: "sk-wrong", baseURL: double.baseURL, maxRetries: 0, logLevel: "off" });
    const error = await wrong.chat.completions.create({ model: "qwen3", messages: [{ role: "user", content: "x" }] }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof OpenAI.AuthenticationError);
    assert.equal(error.status, 401);
  });
});

describe("the Anthropic Messages double, through the official @anthropic-ai/sdk client", () => {
  let double: AnthropicDouble;
  let client: Anthropic;
  before(async () => {
    double = await AnthropicDouble.start({ apiKey: KEY, models: ["claude-double-1"] });
    client = new Anthropic({ apiKey: KEY, baseURL: double.baseURL, maxRetries: 0, logLevel: "off" });
  });
  after(() => double.close());

  test("streams text events; the client's message stream assembles them with usage and stop reason", async () => {
    double.reply({ text: ["Bon", "jour"], usage: { input: 20, output: 4 } });
    const stream = client.messages.stream({ model: "claude-double-1", max_tokens: 64, system: "be brief", messages: [{ role: "user", content: "hi" }] });
    const deltas: string[] = [];
    stream.on("text", (delta) => deltas.push(delta));
    const message = await stream.finalMessage();
    assert.deepEqual(deltas, ["Bon", "jour"]);
    assert.deepEqual(message.content.map((block) => block.type === "text" && block.text), ["Bonjour"]);
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.usage.input_tokens, 20);
    assert.equal(message.usage.output_tokens, 4);
    assert.equal(double.requests.at(-1)?.body.system, "be brief");
    assert.match(String(double.requests.at(-1)?.headers["anthropic-version"]), /^\d{4}-\d{2}-\d{2}$/);
  });

  test("a tool use's input, split across input_json_delta events, is assembled by the client", async () => {
    const input = JSON.stringify({ city: "Lyon", days: 3 });
    double.reply({ text: ["Checking."], toolUses: [{ id: "toolu_1", name: "forecast", input, inputParts: 5 }] });
    const stream = client.messages.stream({ model: "claude-double-1", max_tokens: 64, messages: [{ role: "user", content: "weather?" }], tools: [{ name: "forecast", input_schema: { type: "object" } }] });
    const message = await stream.finalMessage();
    const use = message.content.find((block) => block.type === "tool_use");
    assert.equal(message.stop_reason, "tool_use");
    assert.deepEqual(use?.type === "tool_use" && { id: use.id, name: use.name, input: use.input }, { id: "toolu_1", name: "forecast", input: { city: "Lyon", days: 3 } });
  });

  test("raw events arrive in the protocol's order", async () => {
    double.reply({ text: ["a"], usage: { input: 1, output: 1 } });
    const stream = await client.messages.create({ model: "claude-double-1", max_tokens: 8, messages: [{ role: "user", content: "x" }], stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    assert.deepEqual(types, ["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
  });

  test("answers without streaming, and lists its models", async () => {
    double.reply({ text: ["plain"] });
    const message = await client.messages.create({ model: "claude-double-1", max_tokens: 8, messages: [{ role: "user", content: "x" }] });
    assert.equal(message.content[0]?.type === "text" && message.content[0].text, "plain");
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.deepEqual(ids, ["claude-double-1"]);
  });

  test("a 429 reaches the client as a RateLimitError with its retry-after header", async () => {
    double.reply({ error: { status: 429, headers: { "retry-after": "3" }, message: "Number of request tokens has exceeded your rate limit" } });
    const error = await client.messages.create({ model: "claude-double-1", max_tokens: 8, messages: [{ role: "user", content: "x" }], stream: true }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof Anthropic.RateLimitError);
    assert.equal(error.status, 429);
    assert.equal(error.headers?.get("retry-after"), "3");
  });

  test("a wrong key is a 401 AuthenticationError; a missing anthropic-version is refused", async () => {
    const wrong = new Anthropic({ apiKey: "sk-wrong", baseURL: double.baseURL, maxRetries: 0, logLevel: "off" });
    const error = await wrong.messages.create({ model: "claude-double-1", max_tokens: 8, messages: [{ role: "user", content: "x" }] }).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof Anthropic.AuthenticationError);
    assert.equal(error.status, 401);
    const bare = await fetch(`${double.baseURL}/v1/messages`, { method: "POST", headers: { "x-api-key": KEY, "content-type": "application/json" }, body: "{}" });
    assert.equal(bare.status, 400);
    assert.equal(((await bare.json()) as { error: { type: string } }).error.type, "invalid_request_error");
  });
});
