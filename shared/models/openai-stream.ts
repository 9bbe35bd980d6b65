/**
 * @module OpenAI chat-completions chunks → `ModelEvent`s, one chunk at a time. Tool calls arrive as
 * fragments keyed by `index` (the first with the id and name, the rest with pieces of the
 * arguments); they are relayed as `tool-call-delta`s and given whole once the answer finishes.
 * Compatible servers differ in small ways this tolerates: a fragment without `index` (older Ollama
 * sends each call whole, unindexed), a call without an id, and `finish_reason: "stop"` on an answer
 * that did call tools.
 */
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { ModelEvent, StopReason } from "./model.ts";

interface PendingCall {
  id: string;
  name: string;
  argumentsJson: string;
}

/** Reads one streamed answer; `finished` once a finish reason has arrived. */
export class OpenAiStreamReader {
  readonly #calls = new Map<number, PendingCall>();
  #stop: StopReason | undefined;
  #usage: ModelEvent | undefined;

  get finished(): boolean {
    return this.#stop !== undefined;
  }

  /** The events one chunk carries. */
  read(chunk: ChatCompletionChunk): ModelEvent[] {
    const events: ModelEvent[] = [];
    if (chunk.usage) this.#usage = { type: "usage", inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
    const choice = chunk.choices?.[0];
    if (!choice) return events;
    const delta = choice.delta ?? {};
    if (typeof delta.content === "string" && delta.content !== "") events.push({ type: "text", delta: delta.content });
    for (const fragment of delta.tool_calls ?? []) {
      const call = this.#callFor(fragment.index, fragment.id);
      if (fragment.function?.name && call.name === "") call.name = fragment.function.name;
      const piece = fragment.function?.arguments ?? "";
      call.argumentsJson += piece;
      if (piece !== "") events.push({ type: "tool-call-delta", id: call.id, name: call.name, argumentsDelta: piece });
    }
    if (choice.finish_reason && this.#stop === undefined) {
      this.#stop = this.#stopReason(choice.finish_reason);
      for (const call of this.#calls.values()) events.push({ type: "tool-call", ...call, argumentsJson: call.argumentsJson || "{}" });
    }
    return events;
  }

  /** The events after the stream's end: the usage, if any was sent, and `done`. Only once `finished`. */
  end(): ModelEvent[] {
    const events: ModelEvent[] = this.#usage ? [this.#usage] : [];
    events.push({ type: "done", stopReason: this.#stop ?? "other" });
    return events;
  }

  #callFor(index: number | undefined, id: string | undefined): PendingCall {
    let key = typeof index === "number" ? index : undefined;
    if (key === undefined) {
      const keys = [...this.#calls.keys()];
      const known = id ? [...this.#calls].find(([, call]) => call.id === id) : undefined;
      // An unindexed fragment with a new id is a new call; one without an id continues the last.
      key = known ? known[0] : id || keys.length === 0 ? Math.max(-1, ...keys) + 1 : (keys.at(-1) ?? 0);
    }
    let call = this.#calls.get(key);
    if (!call) {
      call = { id: id || `call_${key}`, name: "", argumentsJson: "" };
      this.#calls.set(key, call);
    }
    return call;
  }

  #stopReason(reason: string): StopReason {
    if (reason === "tool_calls" || reason === "function_call") return "tool-calls";
    if (reason === "length") return "max-tokens";
    if (reason === "stop") return this.#calls.size > 0 ? "tool-calls" : "end";
    return "other";
  }
}
