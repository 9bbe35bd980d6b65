/**
 * @module A model provider for any OpenAI-compatible chat-completions endpoint (OpenAI itself, and
 * Ollama, llama.cpp's server, vLLM and other hosted ones), on the official `openai` client with its
 * own retries off: whether to try again is the turn's decision (`retry.ts`).
 */
import OpenAI from "openai";
import type { ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { type CallGuard, type CallLimits, DEFAULT_LIMITS, guardCall, listModelIds } from "./call-guard.ts";
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest } from "./model.ts";
import { OpenAiStreamReader } from "./openai-stream.ts";
import { classify as classifyFailure, failure, stringField } from "./provider-failure.ts";

const NAME = "openai-compatible";

export interface OpenAiCompatibleOptions {
  /** The API's base URL, up to and including `/v1` (Ollama: `http://127.0.0.1:11434/v1`). */
  baseURL: string;
  /** The key, sent as `Authorization: Bearer`; none for a local server that needs none. */
  apiKey?: string;
  limits?: CallLimits;
  /**
   * The field that carries `maxTokens`. `max_tokens` is the one every compatible server reads;
   * OpenAI's own reasoning models accept only `max_completion_tokens`.
   */
  tokenLimitField?: "max_tokens" | "max_completion_tokens";
}

/** The provider for the endpoint `options` names. */
export function openAiCompatibleProvider(options: OpenAiCompatibleOptions): ModelProvider {
  const key = options.apiKey || undefined;
  const limits = options.limits ?? DEFAULT_LIMITS;
  const client = new OpenAI({
    baseURL: options.baseURL,
    // The client insists on a key; a server that needs none gets no Authorization header at all.
    apiKey: key ?? "none",
    ...(key === undefined ? { defaultHeaders: { Authorization: null } } : {}),
    adminAPIKey: null,
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: limits.responseTimeoutMs,
    logLevel: "off",
  });
  const classify = (error: unknown, guard: CallGuard, streaming: boolean) =>
    classifyFailure(error, {
      provider: NAME,
      secret: key,
      ended: guard.ended(),
      streaming,
      errors: OpenAI,
      describe: (body) => ({ message: stringField(body, "message"), type: stringField(body, "type") ?? stringField(body, "code") }),
    });

  return {
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
      const guard = guardCall(signal, limits);
      let streaming = false;
      try {
        const stream = await client.chat.completions.create(body(request, options.tokenLimitField ?? "max_tokens"), { signal: guard.signal });
        streaming = true;
        const reader = new OpenAiStreamReader();
        for await (const chunk of stream) {
          guard.progress();
          yield* reader.read(chunk);
        }
        if (guard.ended()) throw classify(undefined, guard, true);
        if (!reader.finished) throw failure("cut", NAME, "the answer ended before its finish reason", key);
        yield* reader.end();
      } catch (error) {
        throw classify(error, guard, streaming);
      } finally {
        guard.stop();
      }
    },

    listModels(signal: AbortSignal): Promise<string[]> {
      return listModelIds(signal, limits, (s) => client.models.list({ signal: s }), (error, guard) => classify(error, guard, false));
    },
  };
}

/** The chat-completions request for `request`. */
function body(request: ModelRequest, tokenLimitField: "max_tokens" | "max_completion_tokens"): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = request.system ? [{ role: "system", content: request.system }] : [];
  messages.push(...request.messages.map(message));
  return {
    model: request.model,
    messages,
    // Some compatible servers refuse an empty tool list, so none is sent when there are no tools.
    ...(request.tools.length > 0 ? { tools: request.tools.map((tool) => ({ type: "function" as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } })) } : {}),
    [tokenLimitField]: request.maxTokens,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    stream: true,
    stream_options: { include_usage: true },
  };
}

function message(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content };
    case "assistant": {
      const calls = message.toolCalls.map((call) => ({ id: call.id, type: "function" as const, function: { name: call.name, arguments: call.argumentsJson } }));
      return { role: "assistant", content: message.content || null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
    }
    case "tool":
      // The protocol has no error flag on a tool result: the text says it.
      return { role: "tool", tool_call_id: message.toolCallId, content: message.isError ? `Error: ${message.content}` : message.content };
    default:
      throw new Error(`unknown message role: ${(message satisfies never as { role: string }).role}`);
  }
}
