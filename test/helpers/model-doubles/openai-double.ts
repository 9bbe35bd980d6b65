/**
 * @module A local server speaking OpenAI's chat-completions protocol, scripted per test: `POST
 * /v1/chat/completions` (an SSE stream of `chat.completion.chunk`s ending in `data: [DONE]`, or one
 * JSON `chat.completion` when `stream` is not set) and `GET /v1/models`. Each request takes the next
 * scripted reply. Tests only: `test/model-doubles.test.ts` keeps it honest against the official
 * `openai` client.
 */
import type { ServerResponse } from "node:http";
import { type Delivery, type DoubleServer, ScriptedDouble, type ErrorReply, type RecordedRequest, sendEventStream, sendJson, splitInto, sseFrame } from "./double-server.ts";

/** A tool call the double answers with; its arguments are sent in `argumentParts` deltas. */
export interface ScriptedToolCall {
  id: string;
  name: string;
  arguments: string;
  argumentParts?: number;
}

/** A model answer: text in chunks, tool calls, usage, how it finished, and how it is delivered. */
export interface OpenAiAnswer extends Delivery {
  text?: string[];
  toolCalls?: ScriptedToolCall[];
  usage?: { prompt: number; completion: number };
  /** `finish_reason`; by default `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
}

export type OpenAiReply = OpenAiAnswer | ErrorReply;

export interface OpenAiDoubleOptions {
  /** The key the double requires as `Authorization: Bearer`; none, like Ollama, when absent. */
  apiKey?: string;
  models?: string[];
}

/** The OpenAI double: `reply()` queues answers, `requests` holds what it received. */
export class OpenAiDouble extends ScriptedDouble<OpenAiReply> {
  readonly #options: OpenAiDoubleOptions;

  private constructor(server: DoubleServer, options: OpenAiDoubleOptions) {
    super(server);
    this.#options = options;
  }

  static start(options: OpenAiDoubleOptions = {}): Promise<OpenAiDouble> {
    return ScriptedDouble.listen((server) => new OpenAiDouble(server, options));
  }

  /** The base URL a client is given (ends in `/v1`). */
  get baseURL(): string {
    return `${this.serverUrl}/v1`;
  }

  protected handle(req: RecordedRequest, res: ServerResponse, finished: () => void): void | Promise<void> {
    const key = this.#options.apiKey;
    if (key !== undefined && req.headers.authorization !== `Bearer ${key}`) {
      return sendJson(res, finished, 401, errorBody(401, "Incorrect API key provided."));
    }
    if (req.method === "GET" && req.path === "/v1/models") {
      const data = (this.#options.models ?? []).map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "double" }));
      return sendJson(res, finished, 200, { object: "list", data });
    }
    if (req.method !== "POST" || req.path !== "/v1/chat/completions") {
      return sendJson(res, finished, 404, errorBody(404, `Unknown request URL: ${req.method} ${req.path}`));
    }
    const body = req.body;
    if (typeof body !== "object" || body === null || typeof body.model !== "string" || !Array.isArray(body.messages)) {
      return sendJson(res, finished, 400, errorBody(400, "'model' and 'messages' are required."));
    }
    const reply = this.nextReply();
    if (reply === undefined) return sendJson(res, finished, 500, errorBody(500, "The double has no scripted reply left."));
    if ("error" in reply) {
      const { status, headers, body: errorJson, message } = reply.error;
      return sendJson(res, finished, status, errorJson ?? errorBody(status, message ?? `Scripted error ${status}.`), headers);
    }
    if (body.stream === true) {
      const frames = chunks(reply, body.model, body.stream_options?.include_usage === true).map((chunk) => sseFrame(JSON.stringify(chunk)));
      frames.push(sseFrame("[DONE]"));
      return sendEventStream(res, finished, frames, reply, sseFrame('{"id": "chatcmpl-double", "choices": [{"delta": '));
    }
    return sendJson(res, finished, 200, completion(reply, body.model));
  }
}

/** OpenAI's error body for `status`. */
function errorBody(status: number, message: string): unknown {
  const type = status === 401 ? "invalid_request_error" : status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, param: null, code: status === 401 ? "invalid_api_key" : null } };
}

function finishReason(answer: OpenAiAnswer): string {
  return answer.finishReason ?? ((answer.toolCalls ?? []).length > 0 ? "tool_calls" : "stop");
}

/** The `chat.completion.chunk`s of a streamed answer, as the protocol orders them. */
function chunks(answer: OpenAiAnswer, model: string, includeUsage: boolean): unknown[] {
  const base = { id: "chatcmpl-double", object: "chat.completion.chunk", created: 1_700_000_000, model, system_fingerprint: "fp_double" };
  const usage = includeUsage ? { usage: null } : {};
  const chunk = (delta: unknown, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...usage });
  const out: unknown[] = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const text of answer.text ?? []) out.push(chunk({ content: text }));
  (answer.toolCalls ?? []).forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const part of splitInto(call.arguments, call.argumentParts ?? 3)) out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  out.push(chunk({}, finishReason(answer)));
  if (includeUsage) {
    const { prompt, completion } = answer.usage ?? { prompt: 0, completion: 0 };
    out.push({ ...base, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } });
  }
  return out;
}

/** The one `chat.completion` of an answer asked for without streaming. */
function completion(answer: OpenAiAnswer, model: string): unknown {
  const calls = (answer.toolCalls ?? []).map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }));
  const { prompt, completion: done } = answer.usage ?? { prompt: 0, completion: 0 };
  const message = { role: "assistant", content: (answer.text ?? []).join("") || null, refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
  return {
    id: "chatcmpl-double",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(answer) }],
    usage: { prompt_tokens: prompt, completion_tokens: done, total_tokens: prompt + done },
  };
}
