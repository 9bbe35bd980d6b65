/**
 * @module A local server speaking Anthropic's Messages protocol, scripted per test: `POST
 * /v1/messages` (an event stream — `message_start`, `content_block_start|delta|stop`, `ping`,
 * `message_delta`, `message_stop` — or one JSON message when `stream` is not set) and `GET
 * /v1/models`, checking the `anthropic-version` header and the key (`x-api-key`, or the
 * `Authorization: Bearer` the official client sends). Each request takes the next scripted reply.
 * Tests only: `test/model-doubles.test.ts` keeps it honest against the official `@anthropic-ai/sdk`.
 */
import type { ServerResponse } from "node:http";
import { type Delivery, type DoubleServer, ScriptedDouble, type ErrorReply, type RecordedRequest, sendEventStream, sendJson, splitInto, sseFrame } from "./double-server.ts";

/** A tool use the double answers with; its input JSON is sent in `inputParts` deltas. */
export interface ScriptedToolUse {
  id: string;
  name: string;
  input: string;
  inputParts?: number;
}

/** A model answer: text in chunks, tool uses, usage, how it stopped, and how it is delivered. */
export interface AnthropicAnswer extends Delivery {
  text?: string[];
  toolUses?: ScriptedToolUse[];
  usage?: { input: number; output: number };
  /** `stop_reason`; by default `tool_use` when there are tool uses, else `end_turn`. */
  stopReason?: string;
  /** After this many frames, send an `error` event (e.g. `overloaded_error`) and end the stream. */
  errorEventAfter?: { frames: number; type: string; message: string };
}

export type AnthropicReply = AnthropicAnswer | ErrorReply;

export interface AnthropicDoubleOptions {
  apiKey: string;
  models?: string[];
}

/** The Anthropic double: `reply()` queues answers, `requests` holds what it received. */
export class AnthropicDouble extends ScriptedDouble<AnthropicReply> {
  readonly #options: AnthropicDoubleOptions;

  private constructor(server: DoubleServer, options: AnthropicDoubleOptions) {
    super(server);
    this.#options = options;
  }

  static start(options: AnthropicDoubleOptions): Promise<AnthropicDouble> {
    return ScriptedDouble.listen((server) => new AnthropicDouble(server, options));
  }

  /** The base URL a client is given (the API's root, without `/v1`). */
  get baseURL(): string {
    return this.serverUrl;
  }

  protected handle(req: RecordedRequest, res: ServerResponse, finished: () => void): void | Promise<void> {
    const version = req.headers["anthropic-version"];
    if (typeof version !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(version)) {
      return sendJson(res, finished, 400, errorBody(400, "anthropic-version: header is required"));
    }
    const key = req.headers["x-api-key"] ?? String(req.headers.authorization ?? "").replace(/^Bearer /, "");
    if (key !== this.#options.apiKey) return sendJson(res, finished, 401, errorBody(401, "invalid x-api-key"));
    if (req.method === "GET" && req.path === "/v1/models") {
      const data = (this.#options.models ?? []).map((id) => ({ type: "model", id, display_name: id, created_at: "2026-01-01T00:00:00Z" }));
      return sendJson(res, finished, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
    }
    if (req.method !== "POST" || req.path !== "/v1/messages") return sendJson(res, finished, 404, errorBody(404, "Not found"));
    const body = req.body;
    if (typeof body !== "object" || body === null || typeof body.model !== "string" || !Array.isArray(body.messages) || typeof body.max_tokens !== "number") {
      return sendJson(res, finished, 400, errorBody(400, "model, messages and max_tokens are required"));
    }
    const reply = this.nextReply();
    if (reply === undefined) return sendJson(res, finished, 500, errorBody(500, "The double has no scripted reply left."));
    if ("error" in reply) {
      const { status, headers, body: errorJson, message } = reply.error;
      return sendJson(res, finished, status, errorJson ?? errorBody(status, message ?? `Scripted error ${status}.`), headers);
    }
    if (body.stream === true) {
      const frames = events(reply, body.model).map(([event, data]) => sseFrame(JSON.stringify(data), event));
      const failure = reply.errorEventAfter;
      if (failure) frames.splice(failure.frames, frames.length, sseFrame(JSON.stringify(errorBody(0, failure.message, failure.type)), "error"));
      return sendEventStream(res, finished, frames, reply, sseFrame('{"type": "content_block_delta", "index": 0, "delta": {', "content_block_delta"));
    }
    return sendJson(res, finished, 200, message(reply, body.model));
  }
}

/** Anthropic's error body for `status` (or of the given `type`). */
function errorBody(status: number, message: string, type?: string): unknown {
  const byStatus: Record<number, string> = { 400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error" };
  return { type: "error", error: { type: type ?? byStatus[status] ?? "api_error", message } };
}

function stopReason(answer: AnthropicAnswer): string {
  return answer.stopReason ?? ((answer.toolUses ?? []).length > 0 ? "tool_use" : "end_turn");
}

function usage(answer: AnthropicAnswer, output: number): Record<string, unknown> {
  return { input_tokens: answer.usage?.input ?? 0, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

/** The content blocks of an answer: its text first, then its tool uses. */
function blocks(answer: AnthropicAnswer): Array<{ type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown; parts: string[] }> {
  const out: ReturnType<typeof blocks> = [];
  if ((answer.text ?? []).length > 0) out.push({ type: "text", text: (answer.text ?? []).join("") });
  for (const use of answer.toolUses ?? []) out.push({ type: "tool_use", id: use.id, name: use.name, input: JSON.parse(use.input || "{}"), parts: splitInto(use.input, use.inputParts ?? 3) });
  return out;
}

/** The `[event, data]` pairs of a streamed answer, as the protocol orders them. */
function events(answer: AnthropicAnswer, model: string): Array<[string, unknown]> {
  const start = { id: "msg_double", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: usage(answer, 1) };
  const out: Array<[string, unknown]> = [["message_start", { type: "message_start", message: start }], ["ping", { type: "ping" }]];
  blocks(answer).forEach((block, index) => {
    if (block.type === "text") {
      out.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
      for (const text of answer.text ?? []) out.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text } }]);
    } else {
      out.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } }]);
      for (const part of block.parts) out.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: part } }]);
    }
    out.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  const delta = { stop_reason: stopReason(answer), stop_sequence: null };
  out.push(["message_delta", { type: "message_delta", delta, usage: { output_tokens: answer.usage?.output ?? 0 } }]);
  out.push(["message_stop", { type: "message_stop" }]);
  return out;
}

/** The one message of an answer asked for without streaming. */
function message(answer: AnthropicAnswer, model: string): unknown {
  const content = blocks(answer).map((block) => (block.type === "text" ? block : { type: "tool_use", id: block.id, name: block.name, input: block.input }));
  return { id: "msg_double", type: "message", role: "assistant", model, content, stop_reason: stopReason(answer), stop_sequence: null, usage: usage(answer, answer.usage?.output ?? 0) };
}
