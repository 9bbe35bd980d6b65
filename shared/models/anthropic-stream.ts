/**
 * @module Anthropic Messages stream events → `ModelEvent`s, one event at a time: text deltas as they
 * come, a tool use's input JSON relayed piece by piece and given whole at its `content_block_stop`,
 * usage from `message_start` and `message_delta`, the stop reason from `message_delta`, and the end
 * at `message_stop`. Blocks of other kinds (thinking and the like) are passed over.
 */
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type { ModelEvent, StopReason } from "./model.ts";

interface ToolBlock {
  id: string;
  name: string;
  inputJson: string;
}

interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** Reads one streamed answer; `finished` once `message_stop` has arrived. */
export class AnthropicStreamReader {
  readonly #tools = new Map<number, ToolBlock>();
  #stop: StopReason = "other";
  #inputTokens = 0;
  #outputTokens = 0;
  #finished = false;

  get finished(): boolean {
    return this.#finished;
  }

  /** The events one stream event carries. */
  read(event: RawMessageStreamEvent): ModelEvent[] {
    switch (event.type) {
      case "message_start":
        this.#count(event.message.usage);
        return [];
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "tool_use") this.#tools.set(event.index, { id: block.id, name: block.name, inputJson: "" });
        return block.type === "text" && block.text !== "" ? [{ type: "text", delta: block.text }] : [];
      }
      case "content_block_delta": {
        const delta = event.delta;
        if (delta.type === "text_delta") return delta.text === "" ? [] : [{ type: "text", delta: delta.text }];
        const tool = this.#tools.get(event.index);
        if (delta.type !== "input_json_delta" || !tool || delta.partial_json === "") return [];
        tool.inputJson += delta.partial_json;
        return [{ type: "tool-call-delta", id: tool.id, name: tool.name, argumentsDelta: delta.partial_json }];
      }
      case "content_block_stop": {
        const tool = this.#tools.get(event.index);
        // A tool without input streams no JSON at all: its input is the empty object.
        return tool ? [{ type: "tool-call", id: tool.id, name: tool.name, argumentsJson: tool.inputJson || "{}" }] : [];
      }
      case "message_delta":
        this.#count(event.usage);
        this.#stop = stopReason(event.delta.stop_reason);
        return [];
      case "message_stop":
        this.#finished = true;
        return [
          { type: "usage", inputTokens: this.#inputTokens, outputTokens: this.#outputTokens },
          { type: "done", stopReason: this.#stop },
        ];
      default:
        return [];
    }
  }

  /** Usage counts are running totals: a later report replaces an earlier one. */
  #count(usage: AnthropicUsage | null | undefined): void {
    if (!usage) return;
    const input = [usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens];
    if (typeof usage.input_tokens === "number") this.#inputTokens = input.reduce<number>((sum, n) => sum + (n ?? 0), 0);
    if (typeof usage.output_tokens === "number") this.#outputTokens = usage.output_tokens;
  }
}

function stopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "end";
    case "tool_use":
      return "tool-calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max-tokens";
    default:
      return "other";
  }
}
