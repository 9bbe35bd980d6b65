/**
 * @module A model provider for Anthropic's Messages API, on the official `@anthropic-ai/sdk` client
 * with its own retries off: whether to try again is the turn's decision (`retry.ts`).
 */
import Anthropic from "@anthropic-ai/sdk";
import type { ContentBlockParam, MessageCreateParamsStreaming, MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { AnthropicStreamReader } from "./anthropic-stream.ts";
import { type CallGuard, type CallLimits, DEFAULT_LIMITS, guardCall, listModelIds } from "./call-guard.ts";
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest } from "./model.ts";
import { classify as classifyFailure, failure, stringField } from "./provider-failure.ts";

const NAME = "anthropic";

export interface AnthropicOptions {
  apiKey: string;
  /** The API's root (without `/v1`); Anthropic's own by default. */
  baseURL?: string;
  limits?: CallLimits;
}

/** The provider for Anthropic's Messages API with `options.apiKey`. */
export function anthropicProvider(options: AnthropicOptions): ModelProvider {
  const key = options.apiKey;
  const limits = options.limits ?? DEFAULT_LIMITS;
  const client = new Anthropic({
    apiKey: key,
    baseURL: options.baseURL ?? "https://api.anthropic.com",
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
      errors: Anthropic,
      describe: (body) => {
        const inner = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
        return { message: stringField(inner, "message"), type: stringField(inner, "type") };
      },
    });

  return {
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
      const guard = guardCall(signal, limits);
      let streaming = false;
      try {
        const stream = await client.messages.create(body(request), { signal: guard.signal });
        streaming = true;
        const reader = new AnthropicStreamReader();
        for await (const event of stream) {
          guard.progress();
          yield* reader.read(event);
          if (reader.finished) break;
        }
        if (guard.ended()) throw classify(undefined, guard, true);
        if (!reader.finished) throw failure("cut", NAME, "the answer ended before message_stop", key);
      } catch (error) {
        throw classify(error, guard, streaming);
      } finally {
        guard.stop();
      }
    },

    listModels(signal: AbortSignal): Promise<string[]> {
      return listModelIds(signal, limits, (s) => client.models.list({ limit: 100 }, { signal: s }), (error, guard) => classify(error, guard, false));
    },
  };
}

/**
 * The Messages request for `request`. The API this client speaks has no `temperature` (it is
 * deprecated there), so `request.temperature` is not sent.
 */
function body(request: ModelRequest): MessageCreateParamsStreaming {
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(request.system ? { system: request.system } : {}),
    messages: messages(request.messages),
    ...(request.tools.length > 0 ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: { type: "object" as const, ...tool.parameters } })) } : {}),
    stream: true,
  };
}

/**
 * The conversation in the API's shape: tool results travel in a user message, results first, so
 * consecutive results (and the user text after them) are gathered into one.
 */
function messages(conversation: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  let gathering: ContentBlockParam[] | undefined;
  for (const message of conversation) {
    if (message.role === "assistant") {
      gathering = undefined;
      const content: ContentBlockParam[] = message.content ? [{ type: "text", text: message.content }] : [];
      for (const call of message.toolCalls) content.push({ type: "tool_use", id: call.id, name: call.name, input: inputOf(call.argumentsJson) });
      out.push({ role: "assistant", content });
    } else if (message.role === "tool") {
      const result: ToolResultBlockParam = { type: "tool_result", tool_use_id: message.toolCallId, content: message.content, ...(message.isError ? { is_error: true } : {}) };
      if (gathering) gathering.push(result);
      else out.push({ role: "user", content: (gathering = [result]) });
    } else if (gathering) {
      gathering.push({ type: "text", text: message.content });
      gathering = undefined;
    } else {
      out.push({ role: "user", content: message.content });
    }
  }
  return out;
}

/** A tool call's arguments as the object the API wants; text that is not a JSON object is sent as `{}`. */
function inputOf(argumentsJson: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(argumentsJson);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
